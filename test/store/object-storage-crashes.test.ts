// A run publishing to s3:// killed with SIGKILL at each publish step (a partition staged, a file uploaded, a manifest
// uploaded, the Parquet done, the database about to be uploaded): after each kill a reader following the manifests
// finds every named object whole, and the next run converges — tables equal to a clean run's, no object that no
// manifest names, no lock left.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { S3Client } from '@aws-sdk/client-s3';
import type { Emulator } from '../../src/emulator/server.js';
import { CRASH_AT_ENV } from '../../src/process/crash-point.js';
import { createS3Client, s3Settings } from '../../src/store/s3-client.js';
import { startS3TestServer } from '../helpers/s3-test-server.js';
import type { S3TestServer } from '../helpers/s3-test-server.js';
import {
  SecretScan,
  UNTIL,
  makeTarget,
  removeDir,
  runCli,
  runInProcess,
  startEmulator,
  tempDir,
} from '../reliability/reliability-helpers.js';
import { download, followManifests, listKeys, mirror, tableDifferences } from './s3-fixtures.js';

const EARLIER = '2025-05-01T00:00:00Z';
const KILLS = ['parquet-staged:3', 'parquet-placed:2', 'manifest-written:2', 'export-done:1', 'snapshot-copied:1'];

describe('a run publishing to s3:// killed at each publish step', () => {
  let dir: string;
  let em: Emulator;
  let store: S3TestServer;
  let s3: S3Client;
  const secrets = new SecretScan();

  beforeAll(async () => {
    dir = await tempDir('engage-etl-s3-crash-');
    em = await startEmulator();
    store = await startS3TestServer();
    s3 = createS3Client(s3Settings(store.env));
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' });
  });

  afterAll(async () => {
    s3?.destroy();
    await store?.close();
    await em?.close();
    const found = await secrets.find(em.demoApiKey);
    await removeDir(dir);
    expect(found.places).toEqual([]);
  });

  it(`leaves the previous or the new snapshot after each of ${KILLS.join(', ')}, and the next run converges with no orphan object`, async () => {
    const t = await makeTarget(dir, 'crash');
    const db = `s3://${store.bucket}/state/engage.duckdb`;
    const out = `s3://${store.bucket}/warehouse`;
    const run = (until: string, env: Record<string, string> = {}) =>
      runCli(['run', '--pipeline', t.pipeline, '--base-url', em.url, '--db', db, '--out', out, '--until', until], {
        ...store.env,
        ENGAGE_API_KEY: em.demoApiKey,
        ...env,
      });
    const first = await run(EARLIER);
    secrets.text(first.stdout, first.stderr);
    expect(first.code, first.stderr.slice(-500)).toBe(0);

    let unnamedAfterKills = 0;
    for (const [i, kill] of KILLS.entries()) {
      const killed = await run(UNTIL, { [CRASH_AT_ENV]: kill });
      secrets.text(killed.stdout, killed.stderr);
      expect(killed.signal, `${kill} was not reached: ${killed.stderr.slice(-500)}`).toBe('SIGKILL');
      const tree = join(dir, `tree-${i}`);
      const keys = await mirror(s3, store.bucket, 'warehouse', tree);
      const read = await followManifests(tree, keys);
      expect(read.problems, kill).toEqual([]);
      unnamedAfterKills += keys.filter((k) => !k.startsWith('manifests/') && !read.named.has(k)).length;
    }
    // The kills did leave objects no manifest names (uploaded before their manifest, or replaced before their delete).
    expect(unnamedAfterKills).toBeGreaterThan(0);
    const rerun = await run(UNTIL);
    secrets.text(rerun.stdout, rerun.stderr);
    expect(rerun.code, rerun.stderr.slice(-1000)).toBe(0);
    expect(rerun.stderr).toContain('took over a stale lock');

    const clean = await makeTarget(dir, 'clean');
    await runInProcess(em, clean, { until: EARLIER });
    await runInProcess(em, clean);
    const published = join(dir, 'published.duckdb');
    await download(s3, store.bucket, 'state/engage.duckdb', published);
    expect(await tableDifferences(clean.db, published)).toEqual({});
    const tree = join(dir, 'tree-final');
    const keys = await mirror(s3, store.bucket, 'warehouse', tree);
    const read = await followManifests(tree, keys, published);
    expect(read.problems).toEqual([]);
    expect(keys.filter((k) => !k.startsWith('manifests/') && !read.named.has(k))).toEqual([]);
    expect((await listKeys(s3, store.bucket, 'state/')).map((o) => o.key)).toEqual([
      'state/engage.duckdb',
      'state/engage.duckdb.last-run.json',
    ]);
  }, 600_000);
});
