// Stores that misbehave the way real ones do, through a twisting proxy in front of s3rver: a LIST that
// lags behind the writes must not make the export "repair" tables it published correctly nor leave files no manifest
// names; a store that hangs up mid-publish fails the export with the hint that the endpoint does not answer, and the
// lake readers follow stays whole.
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import type { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import type { Emulator } from '../../src/emulator/server.js';
import { exportParquet } from '../../src/export/export-parquet.js';
import type { TableManifest } from '../../src/export/table-manifest.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import { createS3Client, s3Settings } from '../../src/store/s3-client.js';
import { S3Place } from '../../src/store/s3-place.js';
import { placeOfWorkspace } from '../../src/store/workspace-place.js';
import type { S3TestServer } from '../helpers/s3-test-server.js';
import { startS3TwistingProxy } from '../helpers/s3-twisting-proxy.js';
import type { S3TwistingProxy } from '../helpers/s3-twisting-proxy.js';
import type { Target } from '../reliability/reliability-helpers.js';
import { makeTarget, runCli, runInProcess } from '../reliability/reliability-helpers.js';
import { LAKE_YAML } from './lake-fixtures.js';
import { listKeys, s3Suite } from './s3-fixtures.js';

describe('stores that lag and hang up', () => {
  let dir: string;
  let em: Emulator;
  let store: S3TestServer;
  let s3: S3Client;
  let proxy: S3TwistingProxy;
  let t: Target;
  const suite = s3Suite('engage-etl-store-faults-');
  beforeAll(async () => {
    ({ dir, em, store, s3 } = suite);
    proxy = await startS3TwistingProxy(store.endpoint);
    t = await makeTarget(dir, 'faults', LAKE_YAML);
    expect((await runInProcess(em, t)).status).toBe('succeeded');
  }, 120_000);
  afterAll(async () => proxy?.close());

  /** Every manifest under `prefix` names objects that exist; returns the data objects no manifest names. */
  async function unnamedObjects(prefix: string): Promise<string[]> {
    const keys = new Set((await listKeys(s3, store.bucket, `${prefix}/`)).map((o) => o.key.slice(prefix.length + 1)));
    const named = new Set<string>();
    for (const key of [...keys].filter((k) => k.startsWith('manifests/'))) {
      const answer = await s3.send(new GetObjectCommand({ Bucket: store.bucket, Key: `${prefix}/${key}` }));
      const manifest = JSON.parse(await answer.Body!.transformToString()) as TableManifest;
      for (const f of manifest.files) {
        const file = `${manifest.table}/${f.path}`;
        expect(keys.has(file), `${key} names ${file}`).toBe(true);
        named.add(file);
      }
    }
    return [...keys].filter((k) => !k.startsWith('manifests/') && !named.has(k));
  }

  it('a LIST that answers what the store held one publish ago: no table "repaired", and the files it did not list but replaced are deleted by name', async () => {
    const scratch = join(dir, 'scratch-lag');
    await mkdir(scratch);
    const client = createS3Client(s3Settings({ ...store.env, AWS_ENDPOINT_URL_S3: proxy.endpoint }));
    const place = placeOfWorkspace(
      new S3Place({ client, bucket: store.bucket, prefix: 'lagging', scratchDir: scratch }),
      undefined,
    );
    const wh = await Warehouse.open(t.db, WAREHOUSE_TABLES);
    try {
      await exportParquet(wh, place, { scope: 'all' });
      // The second publish replaces every file; the listings it gets (the store before it) are what the lagging LIST answers next.
      proxy.lists = 'record';
      await exportParquet(wh, place, { scope: 'all' });
      proxy.lists = 'replay';
      const quiet = await exportParquet(wh, place, { scope: 'dirty' });
      expect(proxy.counts.replayed).toBeGreaterThan(0);
      expect(quiet.repaired).toEqual([]);
      expect(quiet.filesWritten).toBe(0);
      // A publish that replaces every file while the LIST still shows the store of two publishes ago.
      const replaced = await exportParquet(wh, place, { scope: 'all' });
      expect(replaced.repaired).toEqual([]);
      expect(replaced.filesWritten).toBeGreaterThan(0);
    } finally {
      proxy.lists = 'pass';
      await wh.close();
      client.destroy();
    }
    expect(await unnamedObjects('lagging')).toEqual([]);
  }, 180_000);

  it('a store that hangs up mid-publish: exit 1 with "the endpoint does not answer", and every manifest still names whole files', async () => {
    const db = join(dir, 'hangup.duckdb');
    await copyFile(t.db, db);
    const env = { ...store.env, AWS_ENDPOINT_URL_S3: proxy.endpoint };
    const out = `s3://${store.bucket}/hangup`;
    const first = await runCli(['export', '--db', db, '--out', out], env);
    expect(first.code, first.stderr).toBe(EXIT.done);
    proxy.putsBeforeHangUp = proxy.counts.puts + 3;
    try {
      const cut = await runCli(['export', '--db', db, '--out', out], env);
      expect(cut.code, cut.stderr).toBe(EXIT.failed);
      expect(proxy.counts.dropped).toBeGreaterThan(0);
      expect(cut.stderr).toMatch(
        /cannot upload s3:\/\/lake\/hangup\/.*the endpoint does not answer: it dropped the connection mid-request/,
      );
    } finally {
      proxy.putsBeforeHangUp = Infinity;
    }
    await unnamedObjects('hangup');
  }, 180_000);
});
