// What the object-storage tests read back from the store: every object under a prefix mirrored into a local folder, a
// downloaded database, and comparisons (EXCEPT ALL both ways over the data columns; Parquet named by the manifests read
// with hyparquet against the table's rows).
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { S3Client } from '@aws-sdk/client-s3';
import { DuckDBInstance } from '@duckdb/node-api';
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import type { TableManifest } from '../../src/export/table-manifest.js';
import { TABLE_SPECS } from '../../src/streams/table-specs.js';
import type { Emulator } from '../../src/emulator/server.js';
import { createS3Client, s3Settings } from '../../src/store/s3-client.js';
import { afterAll, beforeAll } from 'vitest';
import { startS3TestServer } from '../helpers/s3-test-server.js';
import type { S3TestServer } from '../helpers/s3-test-server.js';
import { removeDir, startEmulator, tempDir } from '../reliability/reliability-helpers.js';

/** What a describe block against s3rver works with, ready from its beforeAll on. */
export interface S3Suite {
  dir: string;
  em: Emulator;
  store: S3TestServer;
  s3: S3Client;
}

/**
 * Registers, in the calling describe block, a temp folder, an emulator, s3rver on port 0 with its AWS_* settings in the
 * environment (as a user's shell would have them), and an S3 client; all undone after the block. `beforeClose` runs
 * first in the afterAll (e.g. a scan of the folder before it is removed).
 */
export function s3Suite(
  prefix: string,
  beforeClose: (suite: S3Suite) => Promise<void> = async () => undefined,
): S3Suite {
  const suite = {} as S3Suite;
  const saved = { ...process.env };
  beforeAll(async () => {
    suite.dir = await tempDir(prefix);
    suite.em = await startEmulator();
    suite.store = await startS3TestServer();
    Object.assign(process.env, suite.store.env);
    suite.s3 = createS3Client(s3Settings(suite.store.env));
  });
  afterAll(async () => {
    await beforeClose(suite);
    suite.s3?.destroy();
    await suite.store?.close();
    await suite.em?.close();
    for (const k of Object.keys(suite.store?.env ?? {})) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    await removeDir(suite.dir);
  });
  return suite;
}

export async function listKeys(
  s3: S3Client,
  bucket: string,
  prefix: string,
): Promise<{ key: string; bytes: number }[]> {
  const out: { key: string; bytes: number }[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ...(token ? { ContinuationToken: token } : {}) }),
    );
    for (const o of page.Contents ?? []) out.push({ key: o.Key!, bytes: o.Size ?? 0 });
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return out.sort((a, b) => a.key.localeCompare(b.key));
}

export async function download(s3: S3Client, bucket: string, key: string, file: string): Promise<void> {
  const answer = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, await answer.Body!.transformToByteArray());
}

/** Every object under `prefix/` copied into `dir` under its key relative to the prefix; returns those keys. */
export async function mirror(s3: S3Client, bucket: string, prefix: string, dir: string): Promise<string[]> {
  const keys = (await listKeys(s3, bucket, `${prefix}/`)).map((o) => o.key);
  for (const key of keys) await download(s3, bucket, key, join(dir, key.slice(prefix.length + 1)));
  return keys.map((k) => k.slice(prefix.length + 1));
}

const dataColumns = (table: string): string[] =>
  TABLE_SPECS.find((s) => s.name === table)!
    .columns.map((c) => c.name)
    .filter((c) => !c.startsWith('_'));
const list = (cols: string[]) => cols.map((c) => `"${c}"`).join(', ');

/** Tables whose data rows differ between two databases (EXCEPT ALL both ways), with the counts; {} when equal. */
export async function tableDifferences(a: string, b: string): Promise<Record<string, [number, number]>> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    await conn.run(`ATTACH '${a}' AS a (READ_ONLY); ATTACH '${b}' AS b (READ_ONLY)`);
    const out: Record<string, [number, number]> = {};
    for (const spec of TABLE_SPECS) {
      const cols = list(dataColumns(spec.name));
      const count = async (x: string, y: string) =>
        Number(
          (
            await conn.runAndReadAll(
              `SELECT count(*) AS n FROM (SELECT ${cols} FROM ${x}."${spec.name}" EXCEPT ALL SELECT ${cols} FROM ${y}."${spec.name}")`,
            )
          ).getRowObjectsJS()[0]!['n'],
        );
      const d: [number, number] = [await count('a', 'b'), await count('b', 'a')];
      if (d[0] !== 0 || d[1] !== 0) out[spec.name] = d;
    }
    return out;
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/**
 * Follow the manifests of a mirrored tree as a reader does: every named file exists with the named size, hyparquet reads
 * it with the named rows, and (given a database) the rows equal the table's — count by hyparquet, content by DuckDB's
 * read_parquet EXCEPT ALL both ways. Returns the files the manifests name (relative to the tree) and the problems.
 */
export async function followManifests(
  tree: string,
  keys: readonly string[],
  db?: string,
): Promise<{ named: Set<string>; problems: string[] }> {
  const named = new Set<string>();
  const problems: string[] = [];
  const instance = db ? await DuckDBInstance.create(':memory:') : undefined;
  const conn = await instance?.connect();
  try {
    if (conn) await conn.run(`ATTACH '${db}' AS w (READ_ONLY)`);
    for (const key of keys.filter((k) => /^manifests\/[^/]+\.json$/.test(k))) {
      const manifest = JSON.parse(await readFile(join(tree, key), 'utf8')) as TableManifest;
      let rows = 0;
      for (const f of manifest.files) {
        const rel = `${manifest.table}/${f.path}`;
        named.add(rel);
        if (!keys.includes(rel)) {
          problems.push(`${key} names ${rel}, which is not in the store`);
          continue;
        }
        const read = await parquetReadObjects({ file: await asyncBufferFromFile(join(tree, rel)), compressors });
        if (read.length !== f.rows)
          problems.push(`${rel}: hyparquet reads ${read.length} rows, the manifest says ${f.rows}`);
        rows += read.length;
      }
      const spec = TABLE_SPECS.find((s) => s.name === manifest.table);
      if (!conn || !spec) continue;
      const [count] = (await conn.runAndReadAll(`SELECT count(*) AS n FROM w."${spec.name}"`)).getRowObjectsJS();
      if (Number(count!['n']) !== rows)
        problems.push(`${spec.name}: ${rows} rows in its Parquet, ${String(count!['n'])} in the table`);
      if (manifest.files.length === 0) continue;
      const files = manifest.files.map((f) => `'${join(tree, manifest.table, f.path)}'`).join(', ');
      const cols = list(dataColumns(spec.name));
      for (const [x, y] of [
        [`read_parquet([${files}], hive_partitioning = true)`, `w."${spec.name}"`],
        [`w."${spec.name}"`, `read_parquet([${files}], hive_partitioning = true)`],
      ] as const) {
        const [d] = (
          await conn.runAndReadAll(
            `SELECT count(*) AS n FROM (SELECT ${cols} FROM ${x} EXCEPT ALL SELECT ${cols} FROM ${y})`,
          )
        ).getRowObjectsJS();
        if (Number(d!['n']) !== 0)
          problems.push(`${spec.name}: ${String(d!['n'])} rows of ${x.slice(0, 12)} are not in the other`);
      }
    }
    return { named, problems };
  } finally {
    conn?.closeSync();
    instance?.closeSync();
  }
}
