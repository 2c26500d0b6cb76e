// Nothing a command did not write is deleted. `export`, `query`, `status` and `report` refuse a --db
// that names no engage-etl database — no file, no object, someone else's DuckDB, a text file — with exit 2 before anything
// is created or deleted, locally and in a bucket (where the error names the s3:// URL, never the temp file it was
// downloaded to); a database publishes only into a layout whose manifests it wrote; and a lake emptied behind the
// database's back is republished whole by the next run.
import { existsSync } from 'node:fs';
import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { S3Client } from '@aws-sdk/client-s3';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { ConfigError } from '../../src/errors.js';
import type { TableManifest } from '../../src/export/table-manifest.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import type { S3TestServer } from '../helpers/s3-test-server.js';
import type { Target } from '../reliability/reliability-helpers.js';
import {
  listFiles,
  makeTarget,
  removeDir,
  runCli,
  runInProcess,
  startEmulator,
  tempDir,
} from '../reliability/reliability-helpers.js';
import { LAKE_YAML } from './lake-fixtures.js';
import { listKeys, s3Suite } from './s3-fixtures.js';

/** Size and mtime of every file under `dir`, bookkeeping included: any write shows. */
async function stamps(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of await listFiles(dir)) {
    const s = await stat(join(dir, f));
    out[f] = `${s.size}:${s.mtimeMs}`;
  }
  return out;
}

async function rowsOf(db: string, table: string): Promise<number> {
  const instance = await DuckDBInstance.create(db, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  try {
    return Number((await conn.runAndReadAll(`SELECT count(*) AS n FROM "${table}"`)).getRowObjectsJS()[0]!['n']);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

async function foreignDuckDb(path: string): Promise<void> {
  const instance = await DuckDBInstance.create(path);
  const conn = await instance.connect();
  await conn.run("CREATE TABLE my_notes (note VARCHAR); INSERT INTO my_notes VALUES ('mine')");
  conn.closeSync();
  instance.closeSync();
}

describe('a --db that names no engage-etl database, locally', () => {
  let dir: string;
  let em: Emulator;
  let t: Target;
  beforeAll(async () => {
    dir = await tempDir('engage-etl-owner-');
    em = await startEmulator();
    t = await makeTarget(dir, 'lake', LAKE_YAML);
    expect((await runInProcess(em, t)).status).toBe('succeeded');
  }, 120_000);
  afterAll(async () => {
    await em?.close();
    await removeDir(dir);
  });

  it('export, query, status and report refuse a --db that does not exist: exit 2, the path named, nothing created or deleted', async () => {
    const typo = join(dir, 'typo.duckdb');
    const newOut = join(dir, 'new-out');
    const before = await stamps(dir);
    for (const args of [
      ['export', '--db', typo, '--out', t.out],
      ['export', '--db', typo, '--out', newOut],
      ['query', 'SELECT 1', '--db', typo],
      ['status', '--db', typo],
      ['report', '--db', typo, '--output', join(dir, 'report.html')],
    ]) {
      const r = await runCli(args);
      expect(r.code, `${args[0]}: ${r.stderr}`).toBe(EXIT.usage);
      expect(r.stderr).toContain(`no database at ${typo}; check --db`);
    }
    // No empty database, no working copy, no lock, no output folder, no report; the lake exactly as it was.
    expect(await stamps(dir)).toEqual(before);
    expect(existsSync(newOut)).toBe(false);
  }, 120_000);

  it('refuses a DuckDB database engage-etl did not write, and a file that is no database, leaving both and the lake as they were', async () => {
    const other = join(dir, 'notes.duckdb');
    await foreignDuckDb(other);
    const text = join(dir, 'notes.txt');
    await writeFile(text, 'my notes, not a database\n'.repeat(100));
    const before = await stamps(dir);
    for (const args of [
      ['export', '--db', other, '--out', t.out],
      ['query', 'SELECT 1', '--db', other],
      ['status', '--db', other],
      ['report', '--db', other, '--output', join(dir, 'r.html')],
    ]) {
      const r = await runCli(args);
      expect(r.code, `${args[0]}: ${r.stderr}`).toBe(EXIT.usage);
      expect(r.stderr).toContain(`${other} is a DuckDB database but holds no engage-etl table`);
    }
    for (const args of [
      ['export', '--db', text, '--out', t.out],
      ['query', 'SELECT 1', '--db', text],
    ]) {
      const r = await runCli(args);
      expect(r.code, `${args[0]}: ${r.stderr}`).toBe(EXIT.usage);
      expect(r.stderr).toContain(`not a DuckDB database: ${text}`);
    }
    expect(await stamps(dir)).toEqual(before);
  }, 120_000);

  it('a database does not publish into a lake another database published: run and export are refused before anything is fetched or touched', async () => {
    const before = await stamps(t.out);
    const other: Target = { ...(await makeTarget(dir, 'other', LAKE_YAML)), out: t.out };
    const requests = em.stats.requests;
    await expect(runInProcess(em, other)).rejects.toThrow(ConfigError);
    await expect(runInProcess(em, other)).rejects.toThrow(
      /holds tables another engage-etl database published — manifests\/[a-z_]+\.json \(database [0-9a-f-]{36}\)/,
    );
    expect(em.stats.requests).toBe(requests);
    // The same database with its own --out publishes; its export into the first lake is refused like its run.
    expect((await runInProcess(em, { ...other, out: join(dir, 'other-parquet') })).status).toBe('succeeded');
    const r = await runCli(['export', '--db', other.db, '--out', t.out]);
    expect(r.code, r.stderr).toBe(EXIT.usage);
    expect(r.stderr).toMatch(
      /Pass the --db that published them, another --out, or give each pipeline its own workspace:/,
    );
    expect(await stamps(t.out)).toEqual(before);
  }, 180_000);

  it("a lake emptied behind the database's back (manifests listing no file, files gone) is republished whole by the next run", async () => {
    // What `export --db <typo>` of earlier versions left: every manifest rewritten with `files: []`, every data file deleted.
    const manifests = join(t.out, 'manifests');
    for (const name of await readdir(manifests)) {
      const manifest = JSON.parse(await readFile(join(manifests, name), 'utf8')) as TableManifest;
      const { database: _, ...emptied } = { ...manifest, files: [] };
      await writeFile(join(manifests, name), `${JSON.stringify(emptied, null, 2)}\n`);
      await rm(join(t.out, manifest.table), { recursive: true, force: true });
    }
    const summary = await runInProcess(em, t);
    expect(summary.status).toBe('succeeded');
    expect(
      summary.warnings
        .filter((w) => w.code === 'parquet_repaired')
        .map((w) => w.message)
        .join('\n'),
    ).toMatch(/manifests\/revenue\.json counts 0 rows in year=2025, the database holds \d+/);
    let republished = 0;
    for (const name of await readdir(manifests)) {
      const manifest = JSON.parse(await readFile(join(manifests, name), 'utf8')) as TableManifest;
      const table = manifest.table.startsWith('etl_') ? `_${manifest.table}` : manifest.table;
      expect(
        manifest.files.reduce((n, f) => n + f.rows, 0),
        table,
      ).toBe(await rowsOf(t.db, table));
      for (const f of manifest.files)
        expect(existsSync(join(t.out, manifest.table, f.path)), `${manifest.table}/${f.path}`).toBe(true);
      if (manifest.files.length > 0 && !manifest.table.startsWith('etl_')) republished += 1;
    }
    expect(republished).toBeGreaterThanOrEqual(4);
  }, 180_000);
});

describe('a --db that names no engage-etl database, in a bucket', () => {
  let dir: string;
  let em: Emulator;
  let store: S3TestServer;
  let s3: S3Client;
  const suite = s3Suite('engage-etl-owner-s3-');
  beforeAll(async () => {
    ({ dir, em, store, s3 } = suite);
    const t: Target = {
      ...(await makeTarget(dir, 'remote', LAKE_YAML)),
      db: `s3://${store.bucket}/state/engage.duckdb`,
      out: `s3://${store.bucket}/warehouse`,
    };
    expect((await runInProcess(em, t)).status).toBe('succeeded');
  }, 120_000);

  it('export, query, status and report refuse an object that does not exist: exit 2, its URL named, no object created or deleted', async () => {
    const typo = `s3://${store.bucket}/state/typo.duckdb`;
    const before = await listKeys(s3, store.bucket, '');
    for (const args of [
      ['export', '--db', typo, '--out', `s3://${store.bucket}/warehouse`],
      ['query', 'SELECT 1', '--db', typo],
      ['status', '--db', typo],
      ['report', '--db', typo, '--output', join(dir, 'report.html')],
    ]) {
      const r = await runCli(args, store.env);
      expect(r.code, `${args[0]}: ${r.stderr}`).toBe(EXIT.usage);
      expect(r.stderr).toContain(`no database at ${typo}`);
    }
    expect(await listKeys(s3, store.bucket, '')).toEqual(before);
  }, 120_000);

  it('an object that is no DuckDB database is reported under its s3:// URL, not the temp file it was downloaded to', async () => {
    const key = 'state/notes.duckdb';
    await s3.send(
      new PutObjectCommand({ Bucket: store.bucket, Key: key, Body: 'my notes, not a database\n'.repeat(100) }),
    );
    const before = await listKeys(s3, store.bucket, '');
    for (const args of [
      ['query', 'SELECT 1', '--db', `s3://${store.bucket}/${key}`],
      ['export', '--db', `s3://${store.bucket}/${key}`, '--out', `s3://${store.bucket}/warehouse`],
    ]) {
      const r = await runCli(args, store.env);
      expect(r.code, `${args[0]}: ${r.stderr}`).toBe(EXIT.usage);
      expect(r.stderr).toContain(`not a DuckDB database: s3://${store.bucket}/${key}`);
      expect(r.stderr).not.toMatch(/engage-etl-db-|published-\d+-/);
    }
    expect(await listKeys(s3, store.bucket, '')).toEqual(before);
  }, 120_000);
});
