// The publish to an object store, against s3rver in this process: what a nightly increment uploads (objects and bytes;
// only the partitions it changed, the manifests, the bookkeeping tables and the database), and the upload throughput of
// the place's put (4 at once, lib-storage) beside a plain sequential PutObject loop over the same files.
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import type { S3Client } from '@aws-sdk/client-s3';
import { DateTime } from 'luxon';
import { resolveRunOptions } from '../src/config/run-options.js';
import { createEmulator } from '../src/emulator/server.js';
import { runPipeline } from '../src/pipeline/run-pipeline.js';
import { eachLimited } from '../src/store/place.js';
import { createS3Client, s3Settings } from '../src/store/s3-client.js';
import { S3Place } from '../src/store/s3-place.js';
import { startS3TestServer } from '../test/helpers/s3-test-server.js';

export interface PublishFigures {
  /** Parquet files and manifests in the tree after the first run. */
  treeObjects: number;
  treeBytes: number;
  /** New objects (Parquet and manifests) the nightly increment uploaded under --out, and their bytes. */
  incrementObjects: number;
  incrementBytes: number;
  /** Data files among them, against the data files of the tree. */
  incrementDataFiles: number;
  treeDataFiles: number;
  /** The database object the increment uploaded. */
  databaseBytes: number;
  /** Throughput over the tree's files: the place's put (4 at once) and a sequential PutObject loop, MB/s. */
  placeMBps: number;
  loopMBps: number;
}

const FIRST = '2026-01-01T06:00:00Z';

/** Size, ETag and time of every object under `warehouse/`, by key relative to it. */
async function stamps(s3: S3Client, bucket: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({
        Bucket: bucket,
        Prefix: 'warehouse/',
        ...(token ? { ContinuationToken: token } : {}),
      }),
    );
    for (const o of page.Contents ?? [])
      out.set(o.Key!.slice('warehouse/'.length), `${o.Size}:${o.ETag}:${o.LastModified?.getTime()}`);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return out;
}
const NEXT = '2026-01-02T06:00:00Z';

export async function measurePublish(demoPipelinePath: string): Promise<PublishFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'engage-bench-s3-'));
  const store = await startS3TestServer();
  const saved = { ...process.env };
  Object.assign(process.env, store.env);
  const emulator = await createEmulator({ seed: 1, port: 0, now: NEXT });
  const s3 = createS3Client(s3Settings(store.env));
  try {
    const pipeline = join(dir, 'pipeline.yaml');
    // A quarter of history keeps this figure to a minute; the report goes into the bench's folder.
    await writeFile(
      pipeline,
      (await readFile(demoPipelinePath, 'utf8'))
        .replace(/^start_date:.*$/m, 'start_date: 2025-10-01')
        .replace(/^report:.*$/m, `report: { path: ${JSON.stringify(join(dir, 'report.html'))} }`),
    );
    const run = (until: string) =>
      runPipeline(
        resolveRunOptions(
          {
            pipeline,
            baseUrl: emulator.url,
            apiKey: emulator.demoApiKey,
            db: `s3://${store.bucket}/state/engage.duckdb`,
            out: `s3://${store.bucket}/warehouse`,
            until,
            workDir: join(dir, 'work'),
          },
          {},
          DateTime.utc(),
        ),
      );
    const place = new S3Place({ client: s3, bucket: store.bucket, prefix: 'warehouse', scratchDir: dir });
    await run(FIRST);
    const before = await stamps(s3, store.bucket);
    const after = await place.list('');
    await run(NEXT);
    const afterNext = await stamps(s3, store.bucket);
    // Uploaded by the increment: new keys, and keys rewritten in place (manifests, whose ETag or time changed).
    const fresh = [...afterNext]
      .filter(([key, stamp]) => before.get(key) !== stamp)
      .map(([key]) => ({ key, bytes: Number(afterNext.get(key)!.split(':')[0]) }));
    const data = (objs: typeof after) =>
      objs.filter((o) => o.key.endsWith('.parquet') && !/^etl_(runs|series_state|holes)\//.test(o.key));
    const database = await new S3Place({ client: s3, bucket: store.bucket, prefix: 'state', scratchDir: dir }).list(
      'engage.duckdb',
    );

    // The same files, twice: through the place (as the publish puts them) and with a plain PutObject loop.
    const tree = await place.list('');
    const files: string[] = [];
    for (const [i, o] of tree.entries()) {
      const file = join(dir, `file-${i}`);
      await writeFile(file, (await place.read(o.key))!);
      files.push(file);
    }
    const bytes = tree.reduce((n, o) => n + o.bytes, 0);
    const copies = await Promise.all(
      files.map(async (f) => {
        await copyFile(f, `${f}.put`);
        return `${f}.put`;
      }),
    );
    const target = new S3Place({ client: s3, bucket: store.bucket, prefix: 'throughput-place', scratchDir: dir });
    let started = performance.now();
    await eachLimited(
      copies.map((f, i) => [f, i] as const),
      4,
      ([f, i]) => target.put(`f${i}`, f),
    );
    const placeMs = performance.now() - started;
    started = performance.now();
    for (const [i, f] of files.entries())
      await s3.send(
        new PutObjectCommand({ Bucket: store.bucket, Key: `throughput-loop/f${i}`, Body: await readFile(f) }),
      );
    const loopMs = performance.now() - started;
    return {
      treeObjects: after.length,
      treeBytes: after.reduce((n, o) => n + o.bytes, 0),
      incrementObjects: fresh.length,
      incrementBytes: fresh.reduce((n, o) => n + o.bytes, 0),
      incrementDataFiles: data(fresh).length,
      treeDataFiles: data(after).length,
      databaseBytes: database[0]?.bytes ?? 0,
      placeMBps: bytes / 2 ** 20 / (placeMs / 1000),
      loopMBps: bytes / 2 ** 20 / (loopMs / 1000),
    };
  } finally {
    s3.destroy();
    await emulator.close();
    await store.close();
    for (const k of Object.keys(store.env)) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    await rm(dir, { recursive: true, force: true });
  }
}
