// `--db s3://…` and `--out s3://…` against s3rver (in this process, port 0, real HTTP, the real SDK): a run from an
// empty working folder publishes what a local run publishes; the nightly run after it uploads only the partitions it
// changed; `query` and `status` read the published object; a second run on the same database refuses while the first
// holds its lock object; the lock's conditional write holds against a store that enforces If-None-Match.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOOKKEEPING_EXPORTS } from '../../src/export/parquet-layout.js';
import type { Emulator } from '../../src/emulator/server.js';
import { ObjectLock } from '../../src/store/object-lock.js';
import { LockedError } from '../../src/errors.js';
import { createS3Client, s3Settings } from '../../src/store/s3-client.js';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { S3Client } from '@aws-sdk/client-s3';
import { startConditionalProxy, startS3TestServer } from '../helpers/s3-test-server.js';
import type { S3TestServer } from '../helpers/s3-test-server.js';
import type { Target } from '../reliability/reliability-helpers.js';
import { SecretScan, makeTarget, runCli, runInProcess, startEmulator } from '../reliability/reliability-helpers.js';
import { download, followManifests, listKeys, mirror, s3Suite, tableDifferences } from './s3-fixtures.js';

const EARLIER = '2025-05-01T00:00:00Z';

describe('object storage: --db and --out on an S3-compatible store', () => {
  let dir: string;
  let em: Emulator;
  let store: S3TestServer;
  let s3: S3Client;
  const secrets = new SecretScan();
  const suite = s3Suite('engage-etl-s3-', async (x) =>
    expect((await secrets.find(x.em.demoApiKey)).places).toEqual([]),
  );
  beforeAll(() => ({ dir, em, store, s3 } = suite));

  /** A fresh, empty working folder: nothing of an earlier run is on this "machine". */
  async function emptyWorkDir(name: string): Promise<string> {
    const work = join(dir, `work-${name}`);
    await mkdir(work);
    return work;
  }

  async function publishedDb(key: string, name: string): Promise<string> {
    const file = join(dir, `${name}.duckdb`);
    await download(s3, store.bucket, key, file);
    return file;
  }

  it('publishes from an empty working folder what a local run publishes; the nightly run after it, from another empty folder, uploads only the partitions it changed', async () => {
    const local = await makeTarget(dir, 'local');
    const remote: Target = {
      ...(await makeTarget(dir, 'remote')),
      db: `s3://${store.bucket}/state/engage.duckdb`,
      out: `s3://${store.bucket}/warehouse`,
    };
    secrets.target(local);

    const localFirst = await runInProcess(em, local, { until: EARLIER });
    const first = await runInProcess(em, remote, { until: EARLIER, workDir: await emptyWorkDir('first') });
    expect(first.status).toBe('succeeded');
    expect(first.parquet.filesWritten).toBe(localFirst.parquet.filesWritten);
    expect(await tableDifferences(local.db, await publishedDb('state/engage.duckdb', 'first'))).toEqual({});

    const before = await listKeys(s3, store.bucket, 'warehouse/');
    // Every key part is visible to Hive, Trino, Athena, Spark and BigQuery.
    for (const { key } of before)
      expect(
        key.split('/').filter((p) => p.startsWith('_') || p.startsWith('.')),
        key,
      ).toEqual([]);
    const tree1 = join(dir, 'tree-first');
    const keys1 = await mirror(s3, store.bucket, 'warehouse', tree1);
    const read1 = await followManifests(tree1, keys1, join(dir, 'first.duckdb'));
    expect(read1.problems).toEqual([]);
    // No object that no manifest names.
    expect(keys1.filter((k) => !k.startsWith('manifests/') && !read1.named.has(k))).toEqual([]);

    const localSecond = await runInProcess(em, local);
    const second = await runInProcess(em, remote, { workDir: await emptyWorkDir('second') });
    expect(second.status).toBe('succeeded');
    expect(second.parquet).toEqual(localSecond.parquet);
    expect(await tableDifferences(local.db, await publishedDb('state/engage.duckdb', 'second'))).toEqual({});

    const after = await listKeys(s3, store.bucket, 'warehouse/');
    const old = new Set(before.map((o) => o.key));
    const uploaded = after.filter((o) => !old.has(o.key));
    const bookkeeping = BOOKKEEPING_EXPORTS.map((b) => `/${b.folder}/`);
    const dataUploaded = uploaded.filter(
      (o) => o.key.endsWith('.parquet') && !bookkeeping.some((folder) => o.key.includes(folder)),
    );
    // Only the changed partitions: as many new data objects as files written, fewer than the tree holds.
    expect(dataUploaded.length).toBe(second.parquet.filesWritten);
    expect(dataUploaded.length).toBeLessThan(after.filter((o) => o.key.endsWith('.parquet')).length);
    // Objects a run did not change keep their key (no re-upload under a new name).
    expect(after.filter((o) => old.has(o.key) && o.key.endsWith('.parquet')).length).toBeGreaterThan(0);
    const tree2 = join(dir, 'tree-second');
    const keys2 = await mirror(s3, store.bucket, 'warehouse', tree2);
    const read2 = await followManifests(tree2, keys2, join(dir, 'second.duckdb'));
    expect(read2.problems).toEqual([]);
    expect(keys2.filter((k) => !k.startsWith('manifests/') && !read2.named.has(k))).toEqual([]);
    expect((await listKeys(s3, store.bucket, 'state/')).map((o) => o.key)).toEqual([
      'state/engage.duckdb',
      'state/engage.duckdb.last-run.json',
    ]);

    // The read-only commands download the published object and open it read-only.
    const query = await runCli(
      ['query', 'SELECT count(*) AS n FROM revenue', '--db', remote.db, '--format', 'json'],
      store.env,
    );
    expect(query.code, query.stderr).toBe(0);
    expect(JSON.parse(query.stdout)).toEqual([{ n: second.tables.find((t) => t.table === 'revenue')!.rows }]);
    const status = await runCli(['status', '--db', remote.db, '--json'], store.env);
    expect(status.code, status.stderr).toBe(0);
    expect((JSON.parse(status.stdout) as { lastRun: { run_id: string } }).lastRun.run_id).toBe(second.runId);
    secrets.text(query.stdout, query.stderr, status.stdout, status.stderr);
  }, 300_000);

  it('`plan`, `report` and `export` take the same URLs: plan and report read the published object, export republishes every partition under new names and leaves no unnamed object', async () => {
    const db = `s3://${store.bucket}/state/engage.duckdb`;
    const t = await makeTarget(dir, 'commands');
    const plan = await runCli(
      ['plan', '--pipeline', t.pipeline, '--emulator', '--db', db, '--until', '2025-06-16T00:00:00Z'],
      store.env,
    );
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(`stored state: read (${db})`);
    const report = await runCli(['report', '--db', db, '--output', join(dir, 'report.html')], store.env);
    expect(report.code, report.stderr).toBe(0);
    const before = new Set((await listKeys(s3, store.bucket, 'warehouse/')).map((o) => o.key));
    const exported = await runCli(['export', '--db', db, '--out', `s3://${store.bucket}/warehouse`], store.env);
    expect(exported.code, exported.stderr).toBe(0);
    const tree = join(dir, 'tree-export');
    const keys = await mirror(s3, store.bucket, 'warehouse', tree);
    const read = await followManifests(tree, keys, await publishedDb('state/engage.duckdb', 'exported'));
    expect(read.problems).toEqual([]);
    expect(keys.filter((k) => !k.startsWith('manifests/') && !read.named.has(k))).toEqual([]);
    // Every data file was rewritten, so each has a new name and none of the previous ones is left.
    expect(keys.filter((k) => k.endsWith('.parquet') && before.has(`warehouse/${k}`))).toEqual([]);
    secrets.text(plan.stdout, plan.stderr, report.stdout, report.stderr, exported.stdout, exported.stderr);
  }, 300_000);

  it('refuses, without waiting for it and naming the holder, a run on a --db whose lock another run holds; the first run succeeds', async () => {
    const t: Target = {
      ...(await makeTarget(dir, 'locked')),
      db: `s3://${store.bucket}/locked/engage.duckdb`,
      out: `s3://${store.bucket}/locked-out`,
    };
    const slow = await startEmulator({ latencyMs: 300 });
    try {
      const first = runInProcess(slow, t, { until: EARLIER, workDir: await emptyWorkDir('locked') });
      while ((await listKeys(s3, store.bucket, 'locked/engage.duckdb.lock')).length === 0)
        await new Promise((r) => setTimeout(r, 20));
      const second = await runCli(
        ['run', '--pipeline', t.pipeline, '--base-url', slow.url, '--db', t.db, '--out', t.out, '--until', EARLIER],
        { ...store.env, ENGAGE_API_KEY: slow.demoApiKey },
      );
      secrets.text(second.stdout, second.stderr);
      expect(second.code).toBe(1);
      // Refused, not queued behind the lock: the first run still holds it when the second has ended (a wall-clock bound
      // here failed on a loaded machine at 12.5 s).
      expect(await listKeys(s3, store.bucket, 'locked/engage.duckdb.lock')).toHaveLength(1);
      expect(second.stderr).toContain(
        `another engage-etl run holds s3://${store.bucket}/locked/engage.duckdb (engage-etl run, pid ${process.pid}`,
      );
      expect((await first).status).toBe('succeeded');
      expect(await listKeys(s3, store.bucket, 'locked/engage.duckdb.lock')).toEqual([]);
    } finally {
      await slow.close();
    }
  }, 180_000);

  it('a malformed s3:// URL is a usage error (exit 2), never a folder named `s3:`', async () => {
    const t = await makeTarget(dir, 'bad-url');
    const result = await runCli(
      ['run', '--pipeline', t.pipeline, '--emulator', '--db', 's3://', '--out', t.out],
      store.env,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--db');
  });
});

describe('the lock object', () => {
  let store: S3TestServer;
  let proxy: Awaited<ReturnType<typeof startConditionalProxy>>;
  let s3: S3Client;

  beforeAll(async () => {
    store = await startS3TestServer();
    proxy = await startConditionalProxy(store.endpoint);
    s3 = createS3Client(s3Settings({ ...store.env, AWS_ENDPOINT_URL_S3: proxy.endpoint }));
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    });
  });

  afterAll(async () => {
    s3?.destroy();
    await proxy?.close();
    await store?.close();
  });

  it('is created with If-None-Match: of two runs racing for it, the store lets one create it and answers 412 to the other, which refuses', async () => {
    const tries = await Promise.allSettled(
      [0, 1, 2].map(() => ObjectLock.acquire(s3, store.bucket, 'race/engage.duckdb.lock', 'engage-etl run')),
    );
    const won = tries.filter((t) => t.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const t of tries.filter((t) => t.status === 'rejected'))
      expect((t as PromiseRejectedResult).reason).toBeInstanceOf(LockedError);
    expect(proxy.refused()).toBeGreaterThan(0);
    await (won[0] as PromiseFulfilledResult<ObjectLock>).value.release();
    expect(await ObjectLock.peek(s3, store.bucket, 'race/engage.duckdb.lock')).toBeUndefined();
  });

  it('takes over, with a warning, a lock whose process on this host is gone or whose heartbeat stopped long ago; refuses a fresh one from another host', async () => {
    const put = (key: string, holder: object) =>
      s3.send(new PutObjectCommand({ Bucket: store.bucket, Key: key, Body: JSON.stringify(holder) }));
    const now = new Date().toISOString();
    const old = new Date(Date.now() - 3_600_000).toISOString();
    const { hostname } = await import('node:os');
    await put('dead/x.lock', {
      token: 't1',
      pid: 2 ** 22 + 11,
      host: hostname(),
      startedAt: now,
      refreshedAt: now,
      command: 'engage-etl run',
    });
    const a = await ObjectLock.acquire(s3, store.bucket, 'dead/x.lock', 'engage-etl run');
    expect(a.staleNote).toContain(
      `took over a stale lock s3://${store.bucket}/dead/x.lock of a run that no longer exists (pid ${2 ** 22 + 11}`,
    );
    await a.release();
    await put('quiet/x.lock', {
      token: 't2',
      pid: 1,
      host: 'elsewhere',
      startedAt: old,
      refreshedAt: old,
      command: 'engage-etl run',
    });
    const b = await ObjectLock.acquire(s3, store.bucket, 'quiet/x.lock', 'engage-etl run');
    expect(b.staleNote).toContain('pid 1 on elsewhere');
    await b.release();
    await put('busy/x.lock', {
      token: 't3',
      pid: 1,
      host: 'elsewhere',
      startedAt: now,
      refreshedAt: now,
      command: 'engage-etl export',
    });
    await expect(ObjectLock.acquire(s3, store.bucket, 'busy/x.lock', 'engage-etl run')).rejects.toThrow(
      /another engage-etl run holds s3:\/\/lake\/busy\/x \(engage-etl export, pid 1 on host elsewhere/,
    );
  });
});
