// `engage-etl dbt` after a real run against the emulator: the sources file is parsed and checked against the
// database's own catalog (every table, every column with its type, every key, every view), its key tests and freshness
// are run as dbt would run them, and every external location it names is read by a DuckDB session — over the local
// Parquet tree, and over a workspace's share of a lake on s3rver.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { fromDuckDBValue } from '../../src/load/duckdb-values.js';
import { TABLE_SPECS, seriesStreamOfTable, tableSpec } from '../../src/load/table-specs.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { createS3Client } from '../../src/store/s3-client.js';
import { startS3TestServer } from '../helpers/s3-test-server.js';
import type { S3TestServer } from '../helpers/s3-test-server.js';
import type { PipelineFixture } from '../pipeline/helpers/pipeline-fixture.js';
import { mirror } from '../store/s3-fixtures.js';
import { analystWarehouse } from '../views/analyst-fixture.js';

const BIN = resolve('bin/engage-etl.js');
const SOURCES = 'models/engage_etl_sources.yml';
const MACRO = 'macros/engage_etl_unique_key.sql';

type Row = Record<string, unknown>;
interface YamlColumn { name: string; description: string; data_type: string; data_tests?: unknown[] }
interface YamlTable {
  name: string;
  description: string;
  meta?: { external_location: string };
  loaded_at_field?: string;
  freshness?: { warn_after: { count: number; period: string }; error_after: { count: number; period: string } };
  data_tests?: { engage_etl_unique_key: { columns: string[] } }[];
  columns: YamlColumn[];
}
interface YamlSource { name: string; schema?: string; database?: string; tables: YamlTable[] }

async function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

async function sourcesOf(dir: string): Promise<YamlSource[]> {
  return (parse(await readFile(join(dir, SOURCES), 'utf8')) as { sources: YamlSource[] }).sources;
}

/** A DuckDB session in memory (the database attached read-only when given), closed after `use`. */
async function withDuckDB<T>(use: (q: (sql: string) => Promise<Row[]>) => Promise<T>, attach?: string): Promise<T> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    if (attach) await conn.run(`ATTACH '${attach}' AS engage (READ_ONLY); USE engage`);
    return await use(async (sql) => (await conn.runAndReadAll(sql)).getRowObjectsJS().map((r) => fromDuckDBValue(r) as Row));
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

const dataTests = (c: YamlColumn | undefined): unknown[] => c?.data_tests ?? [];

describe('engage-etl dbt over a demo warehouse', () => {
  let f: PipelineFixture;
  let dir: string;
  let catalogTables: Row[];
  let catalogColumns: Row[];

  beforeAll(async () => {
    f = await analystWarehouse();
    dir = await mkdtemp(join(tmpdir(), 'engage-dbt-'));
    catalogTables = await f.query(`SELECT table_name, comment FROM duckdb_tables() WHERE schema_name = 'main' AND NOT starts_with(table_name, '_') ORDER BY table_name`);
    catalogColumns = await f.query(`SELECT schema_name, table_name, column_name, data_type, comment FROM duckdb_columns() WHERE schema_name IN ('main', 'analytics') ORDER BY schema_name, table_name, column_index`);
  });
  afterAll(async () => {
    await f?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the package: sources.yml, the key test and a dbt_project.yml, telling each file', async () => {
    const out = join(dir, 'pkg');
    const res = await cli(['dbt', '--db', f.db, '--output', out]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout.split('\n').filter(Boolean).sort()).toEqual([`wrote ${out}/dbt_project.yml`, `wrote ${out}/${MACRO}`, `wrote ${out}/${SOURCES}`].sort());
    const macro = await readFile(join(out, MACRO), 'utf8');
    expect(macro).toContain('{% test engage_etl_unique_key(model, columns) %}');
    expect(macro).toContain('having count(*) > 1');
    const project = parse(await readFile(join(out, 'dbt_project.yml'), 'utf8')) as Record<string, unknown>;
    expect(project).toMatchObject({ name: 'engage_etl', profile: 'engage_etl', 'config-version': 2, 'macro-paths': ['macros'] });
  });

  it('names every data table of the catalog, with its comment and every column in the catalog\'s order and type, each described', async () => {
    const [tables] = await sourcesOf(join(dir, 'pkg'));
    expect(tables!.name).toBe('engage_etl');
    expect(tables!.schema).toBe('main');
    expect(tables!.tables.map((t) => t.name)).toEqual(catalogTables.map((t) => t['table_name']));
    expect(tables!.tables.map((t) => t.name).sort()).toEqual(TABLE_SPECS.map((s) => s.name).sort());
    for (const t of tables!.tables) {
      expect(t.description).toBe(catalogTables.find((c) => c['table_name'] === t.name)!['comment']);
      const columns = catalogColumns.filter((c) => c['schema_name'] === 'main' && c['table_name'] === t.name);
      expect(t.columns.map((c) => [c.name, c.data_type]), t.name).toEqual(columns.map((c) => [c['column_name'], c['data_type']]));
      for (const c of t.columns) expect(c.description.length, `${t.name}.${c.name}`).toBeGreaterThan(8);
    }
  });

  it('tests each table\'s key as its catalog comment states it (unique, not null), and the loaded data passes those tests', async () => {
    const [tables] = await sourcesOf(join(dir, 'pkg'));
    for (const t of tables!.tables) {
      const comment = String(catalogTables.find((c) => c['table_name'] === t.name)!['comment']);
      const key = /Key: (.+)\.$/.exec(comment)![1]!.split(', ');
      expect(key, t.name).toEqual(tableSpec(t.name).key);
      for (const k of key) expect(dataTests(t.columns.find((c) => c.name === k)), `${t.name}.${k}`).toContain('not_null');
      if (key.length === 1) {
        expect(dataTests(t.columns.find((c) => c.name === key[0]))).toContain('unique');
        expect(t.data_tests).toBeUndefined();
      } else {
        expect(t.data_tests).toEqual([{ engage_etl_unique_key: { columns: key } }]);
      }
      // What dbt runs for those tests (its not_null, and the macro's SQL with the names quoted): no failing row.
      const cols = key.map((k) => `"${k}"`).join(', ');
      const [dup] = await f.query(`SELECT count(*) AS n FROM (SELECT ${cols} FROM "${t.name}" GROUP BY ${cols} HAVING count(*) > 1)`);
      const [nulls] = await f.query(`SELECT count(*) AS n FROM "${t.name}" WHERE ${key.map((k) => `"${k}" IS NULL`).join(' OR ')}`);
      expect([Number(dup!['n']), Number(nulls!['n'])], t.name).toEqual([0, 0]);
    }
    const sessions = tables!.tables.find((t) => t.name === 'sessions')!;
    expect(dataTests(sessions.columns.find((c) => c.name === 'unit'))).toContainEqual({ accepted_values: { values: ['day', 'hour'] } });
  });

  it('gives every loaded series table the freshness `status` applies: its newest unit start is the stream\'s watermark, allowed one schedule plus one unit', async () => {
    const [tables] = await sourcesOf(join(dir, 'pkg'));
    const watermarks = await f.query(`SELECT stream, max(watermark) AS watermark, list(DISTINCT unit) AS units FROM _etl_series_state GROUP BY stream`);
    const fresh = tables!.tables.filter((t) => t.freshness !== undefined);
    expect(fresh.map((t) => t.name)).toEqual(expect.arrayContaining(['revenue', 'sessions', 'kpi_series', 'campaign_series', 'canvas_summary', 'event_counts']));
    for (const t of tables!.tables) {
      const stream = seriesStreamOfTable(t.name);
      const state = watermarks.find((w) => w['stream'] === stream);
      if (stream === undefined || state === undefined) {
        expect(t.freshness, `${t.name} is not a loaded series`).toBeUndefined();
        continue;
      }
      const [max] = await f.query(`SELECT max(${t.loaded_at_field}) AS loaded FROM "${t.name}"`);
      expect(max!['loaded'], t.name).toEqual(state['watermark']);
      const hourly = (state['units'] as string[]).every((u) => u === 'hour');
      expect(t.freshness, t.name).toEqual(hourly
        ? { warn_after: { count: 25, period: 'hour' }, error_after: { count: 49, period: 'hour' } }
        : { warn_after: { count: 48, period: 'hour' }, error_after: { count: 72, period: 'hour' } });
    }
    expect(tables!.tables.find((t) => t.name === 'sessions')!.freshness!.warn_after.count).toBe(25);
  });

  it('lists every analyst view as a second source, every column with the comment and type of the catalog', async () => {
    const [, views] = await sourcesOf(join(dir, 'pkg'));
    expect(views).toMatchObject({ name: 'engage_etl_analytics', schema: 'analytics' });
    const catalogViews = await f.query(`SELECT view_name, comment FROM duckdb_views() WHERE schema_name = 'analytics' ORDER BY view_name`);
    expect(views!.tables.map((v) => [v.name, v.description])).toEqual(catalogViews.map((v) => [v['view_name'], v['comment']]));
    for (const v of views!.tables) {
      const columns = catalogColumns.filter((c) => c['schema_name'] === 'analytics' && c['table_name'] === v.name);
      expect(v.columns.map((c) => [c.name, c.data_type, c.description]), v.name).toEqual(columns.map((c) => [c['column_name'], c['data_type'], c['comment']]));
    }
  });

  it('reruns byte for byte without touching a file, keeps the user\'s dbt_project.yml and own models, and refuses to overwrite a file it did not write', async () => {
    const out = join(dir, 'pkg');
    const before = await readFile(join(out, SOURCES));
    const mtime = (await stat(join(out, SOURCES))).mtimeMs;
    await writeFile(join(out, 'dbt_project.yml'), 'name: my_project\nprofile: mine\nconfig-version: 2\n');
    await writeFile(join(out, 'models', 'revenue_daily.sql'), "select * from {{ source('engage_etl', 'revenue') }}\n");
    const res = await cli(['dbt', '--db', f.db, '--output', out]);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe(`unchanged ${out}/${SOURCES}\nunchanged ${out}/${MACRO}\n`);
    expect((await readFile(join(out, SOURCES))).equals(before)).toBe(true);
    expect((await stat(join(out, SOURCES))).mtimeMs).toBe(mtime);
    expect(await readFile(join(out, 'dbt_project.yml'), 'utf8')).toBe('name: my_project\nprofile: mine\nconfig-version: 2\n');
    expect(await readFile(join(out, 'models', 'revenue_daily.sql'), 'utf8')).toContain("source('engage_etl', 'revenue')");

    const foreign = join(dir, 'foreign');
    await mkdir(join(foreign, 'macros'), { recursive: true });
    await writeFile(join(foreign, MACRO), '{% test engage_etl_unique_key(model, columns) %}select 1{% endtest %}\n');
    const refused = await cli(['dbt', '--db', f.db, '--output', foreign]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${join(foreign, MACRO)} exists and was not written by engage-etl dbt`);
    await expect(stat(join(foreign, SOURCES))).rejects.toThrow();
    await expect(stat(join(foreign, 'dbt_project.yml'))).rejects.toThrow();
  });

  it('over the local Parquet tree: every external location reads, with the columns and types the file names and every row of the table', async () => {
    const out = join(dir, 'parquet-pkg');
    const res = await cli(['dbt', '--db', f.db, '--output', out, '--parquet', f.out]);
    expect(res.code).toBe(0);
    const sources = await sourcesOf(out);
    expect(sources.map((s) => s.name)).toEqual(['engage_etl']);
    await expectLocationsRead(sources[0]!, f, (location) => location, undefined);
  });

  it('over a workspace\'s share of a lake in object storage: the locations name s3://…/<table>/workspace=NAME/ and read every row, workspace included', async () => {
    const store: S3TestServer = await startS3TestServer();
    const saved = { ...process.env };
    try {
      const db = join(dir, 'brand.duckdb');
      await copyFile(f.db, db);
      const wh = await Warehouse.open(db);
      await wh.setWorkspace('brand_eu');
      await wh.close();
      const lake = `s3://${store.bucket}/warehouse`;
      const exported = await cli(['export', '--db', db, '--out', lake], store.env);
      expect(exported.code, exported.stderr).toBe(0);
      const out = join(dir, 's3-pkg');
      const res = await cli(['dbt', '--db', db, '--output', out, '--parquet', `${lake}/`], store.env);
      expect(res.code, res.stderr).toBe(0);
      const [source] = await sourcesOf(out);
      Object.assign(process.env, store.env);
      const copy = join(dir, 'lake-copy');
      await mirror(createS3Client(), store.bucket, 'warehouse', copy);
      // DuckDB here cannot load httpfs (no download at run time): the objects are read from a copy at the same keys.
      await expectLocationsRead(source!, f, (location) => location.replace(`'${lake}/`, `'${copy}/`), 'brand_eu');
    } finally {
      process.env = saved;
      await store.close();
    }
  });
});

/** Every table's location: it names the table's folder (and workspace), and reads all its rows with the listed columns. */
async function expectLocationsRead(source: YamlSource, f: PipelineFixture, local: (location: string) => string, workspace: string | undefined): Promise<void> {
  let read = 0;
  await withDuckDB(async (q) => {
    for (const t of source.tables) {
      const location = t.meta!.external_location;
      expect(location).toMatch(new RegExp(`/${t.name}/${workspace === undefined ? '' : `workspace=${workspace}/`}\\*\\*/\\*\\.parquet', hive_partitioning = true\\)$`));
      const [rows] = await f.query(`SELECT count(*) AS n FROM "${t.name}"`);
      if (Number(rows!['n']) === 0) continue;
      const described = await q(`DESCRIBE SELECT * FROM ${local(location)}`);
      expect(described.map((c) => [c['column_name'], c['column_type']]), t.name).toEqual(t.columns.map((c) => [c.name, c.data_type]));
      const [got] = await q(`SELECT count(*) AS n, ${workspace === undefined ? 'NULL' : 'list(DISTINCT "workspace")'} AS workspaces FROM ${local(location)}`);
      expect(Number(got!['n']), t.name).toBe(Number(rows!['n']));
      expect(got!['workspaces'], t.name).toEqual(workspace === undefined ? null : [workspace]);
      read += 1;
    }
  });
  // The demo loads every stream: all but a few tables hold rows, so nearly every location was read.
  expect(read).toBeGreaterThan(source.tables.length - 3);
}
