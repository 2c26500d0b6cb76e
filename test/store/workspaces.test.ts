// Many workspaces, one lake: two pipelines with `workspace:` publish into one --out prefix on s3rver, each under
// `<table>/workspace=NAME/` with its own manifests; every row read back with hive partitioning carries its workspace,
// and neither run touched the other's objects. A database that adds a workspace moves its own Parquet.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { DuckDBInstance } from '@duckdb/node-api';
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import type { TableManifest } from '../../src/export/table-manifest.js';
import type { S3TestServer } from '../helpers/s3-test-server.js';
import type { Target } from '../reliability/reliability-helpers.js';
import { PIPELINE_YAML, makeTarget, runInProcess } from '../reliability/reliability-helpers.js';
import { download, listKeys, mirror, s3Suite } from './s3-fixtures.js';

const EARLIER = '2025-05-01T00:00:00Z';
const withWorkspace = (name: string) =>
  PIPELINE_YAML.replace('name: reliability\n', `name: reliability\nworkspace: ${name}\n`);

/** Rows per workspace of a table read as any engine reads the lake: every file under the table, hive-partitioned. */
async function rowsByWorkspace(tree: string, table: string): Promise<Record<string, number>> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    const rows = (
      await conn.runAndReadAll(
        `SELECT "workspace", count(*) AS n FROM read_parquet('${tree}/${table}/**/*.parquet', hive_partitioning = true) GROUP BY 1 ORDER BY 1`,
      )
    ).getRowObjectsJS();
    return Object.fromEntries(rows.map((r) => [String(r['workspace']), Number(r['n'])]));
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

async function tableRows(db: string, table: string): Promise<number> {
  const instance = await DuckDBInstance.create(db, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  try {
    return Number((await conn.runAndReadAll(`SELECT count(*) AS n FROM "${table}"`)).getRowObjectsJS()[0]!['n']);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

describe('two workspaces publishing into one lake', () => {
  let dir: string;
  let em: Emulator;
  let store: S3TestServer;
  let s3: S3Client;
  const suite = s3Suite('engage-etl-ws-');
  beforeAll(() => ({ dir, em, store, s3 } = suite));

  it("both land under their own workspace=NAME/ folders, each row carries its workspace, and neither run removes the other's objects", async () => {
    const lake = `s3://${store.bucket}/lake`;
    const a: Target = {
      ...(await makeTarget(dir, 'a', withWorkspace('brand_a'))),
      db: `s3://${store.bucket}/state/a.duckdb`,
      out: lake,
    };
    const b: Target = {
      ...(await makeTarget(dir, 'b', withWorkspace('brand_b'))),
      db: `s3://${store.bucket}/state/b.duckdb`,
      out: lake,
    };
    expect((await runInProcess(em, a, { until: EARLIER })).status).toBe('succeeded');
    expect((await runInProcess(em, b, { until: EARLIER })).status).toBe('succeeded');

    const keys = await listKeys(s3, store.bucket, 'lake/');
    expect(keys.length).toBeGreaterThan(20);
    for (const { key } of keys) {
      const parts = key.split('/');
      expect(parts[2], key).toMatch(/^workspace=brand_[ab]$/);
      expect(
        parts.filter((p) => p.startsWith('_') || p.startsWith('.')),
        key,
      ).toEqual([]);
    }
    const bBefore = keys.filter((k) => k.key.includes('/workspace=brand_b'));

    // A's nightly run, later: it rewrites its own changed partitions only.
    expect((await runInProcess(em, a)).status).toBe('succeeded');
    const after = await listKeys(s3, store.bucket, 'lake/');
    expect(after.filter((k) => k.key.includes('/workspace=brand_b'))).toEqual(bBefore);

    const tree = join(dir, 'tree');
    const mirrored = await mirror(s3, store.bucket, 'lake', tree);
    const dbA = join(dir, 'a-published.duckdb');
    const dbB = join(dir, 'b-published.duckdb');
    await download(s3, store.bucket, 'state/a.duckdb', dbA);
    await download(s3, store.bucket, 'state/b.duckdb', dbB);
    for (const table of ['revenue', 'sessions', 'canvas_summary', 'etl_runs']) {
      const source = table === 'etl_runs' ? '_etl_runs' : table;
      expect(await rowsByWorkspace(tree, table), table).toEqual({
        brand_a: await tableRows(dbA, source),
        brand_b: await tableRows(dbB, source),
      });
    }
    // Each workspace's manifests (manifests/workspace=NAME/) name files under <table>/workspace=NAME/ that hyparquet reads
    // with the rows the manifest says, summing to the table's rows; no file of the lake is left unnamed.
    const named = new Set<string>();
    for (const [ws, db] of [
      ['brand_a', dbA],
      ['brand_b', dbB],
    ] as const) {
      for (const key of mirrored.filter((k) => k.startsWith(`manifests/workspace=${ws}/`))) {
        const manifest = JSON.parse(await readFile(join(tree, key), 'utf8')) as TableManifest;
        let rows = 0;
        for (const f of manifest.files) {
          const rel = `${manifest.table}/workspace=${ws}/${f.path}`;
          named.add(rel);
          const read = await parquetReadObjects({ file: await asyncBufferFromFile(join(tree, rel)), compressors });
          expect(read.length, rel).toBe(f.rows);
          rows += read.length;
        }
        const table = manifest.table.startsWith('etl_') ? `_${manifest.table}` : manifest.table;
        expect(rows, `${ws} ${manifest.table}`).toBe(await tableRows(db, table));
      }
    }
    expect(mirrored.filter((k) => !k.startsWith('manifests/') && !named.has(k))).toEqual([]);
  }, 300_000);

  it('a database that adds a workspace moves its own Parquet: the next run writes it under workspace=NAME/ and removes the old layout', async () => {
    const t = await makeTarget(dir, 'moving');
    expect((await runInProcess(em, t, { until: EARLIER })).status).toBe('succeeded');
    expect(await readdir(join(t.out, 'revenue'))).toEqual(['year=2025']);
    const moved: Target = { ...(await makeTarget(dir, 'moving', withWorkspace('brand_c'))), db: t.db, out: t.out };
    const summary = await runInProcess(em, moved);
    expect(summary.status).toBe('succeeded');
    expect(summary.warnings.map((w) => w.code)).toContain('workspace_moved');
    expect(await readdir(join(t.out, 'revenue'))).toEqual(['workspace=brand_c']);
    expect(await readdir(join(t.out, 'manifests'))).toEqual(['workspace=brand_c']);
    expect(await rowsByWorkspace(t.out, 'revenue')).toEqual({ brand_c: await tableRows(t.db, 'revenue') });
  }, 120_000);
});
