// `engage-etl dbt` after a real run against the emulator: the sources file is parsed and checked against the
// database's own catalog (every table, every column with its type, every key, every view), its key tests and freshness
// are run as dbt would run them, and every external location it names is read by a DuckDB session — over the local
// Parquet tree, over a workspace's share of a lake on s3rver, and over the lake of a pipeline that leaves most tables
// empty (another seed, UUID ids), where the sources list only what the lake holds files of.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { fromDuckDBValue } from '../../src/load/duckdb-values.js';
import { TABLE_SPECS, seriesStreamOfTable, tableSpec, WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import { SettingsStore } from '../../src/load/settings-store.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { createS3Client } from '../../src/store/s3-client.js';
import { startS3TestServer } from '../helpers/s3-test-server.js';
import type { S3TestServer } from '../helpers/s3-test-server.js';
import { PipelineFixture } from '../pipeline/helpers/pipeline-fixture.js';
import { mirror } from '../store/s3-fixtures.js';
import { analystWarehouse } from '../views/analyst-fixture.js';

const BIN = resolve('bin/engage-etl.js');
const SOURCES = 'models/engage_etl_sources.yml';
const MACRO = 'macros/engage_etl_unique_key.sql';

type Row = Record<string, unknown>;
interface YamlColumn {
  name: string;
  description: string;
  data_type: string;
  data_tests?: unknown[];
}
interface YamlTable {
  name: string;
  description: string;
  meta?: { external_location: string };
  loaded_at_field?: string;
  freshness?: { warn_after: { count: number; period: string }; error_after: { count: number; period: string } };
  data_tests?: { engage_etl_unique_key: { columns: string[] } }[];
  columns: YamlColumn[];
}
interface YamlSource {
  name: string;
  description: string;
  schema?: string;
  database?: string;
  tables: YamlTable[];
}

async function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...env },
    });
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
    return await use(async (sql) =>
      (await conn.runAndReadAll(sql)).getRowObjectsJS().map((r) => fromDuckDBValue(r) as Row),
    );
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
    catalogTables = await f.query(
      `SELECT table_name, comment FROM duckdb_tables() WHERE schema_name = 'main' AND NOT starts_with(table_name, '_') ORDER BY table_name`,
    );
    catalogColumns = await f.query(
      `SELECT schema_name, table_name, column_name, data_type, comment FROM duckdb_columns() WHERE schema_name IN ('main', 'analytics') ORDER BY schema_name, table_name, column_index`,
    );
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
    expect(res.stdout.split('\n').filter(Boolean).sort()).toEqual(
      [`wrote ${out}/dbt_project.yml`, `wrote ${out}/${MACRO}`, `wrote ${out}/${SOURCES}`].sort(),
    );
    const macro = await readFile(join(out, MACRO), 'utf8');
    expect(macro).toContain('{% test engage_etl_unique_key(model, columns) %}');
    expect(macro).toContain('having count(*) > 1');
    const project = parse(await readFile(join(out, 'dbt_project.yml'), 'utf8')) as Record<string, unknown>;
    expect(project).toMatchObject({
      name: 'engage_etl',
      profile: 'engage_etl',
      'config-version': 2,
      'macro-paths': ['macros'],
    });
  });

  it("names every data table of the catalog, with its comment and every column in the catalog's order and type, each described", async () => {
    const [tables] = await sourcesOf(join(dir, 'pkg'));
    expect(tables!.name).toBe('engage_etl');
    expect(tables!.schema).toBe('main');
    expect(tables!.tables.map((t) => t.name)).toEqual(catalogTables.map((t) => t['table_name']));
    expect(tables!.tables.map((t) => t.name).sort()).toEqual(TABLE_SPECS.map((s) => s.name).sort());
    for (const t of tables!.tables) {
      expect(t.description).toBe(catalogTables.find((c) => c['table_name'] === t.name)!['comment']);
      const columns = catalogColumns.filter((c) => c['schema_name'] === 'main' && c['table_name'] === t.name);
      expect(
        t.columns.map((c) => [c.name, c.data_type]),
        t.name,
      ).toEqual(columns.map((c) => [c['column_name'], c['data_type']]));
      for (const c of t.columns) expect(c.description.length, `${t.name}.${c.name}`).toBeGreaterThan(8);
    }
  });

  it("tests each table's key as its catalog comment states it (unique, not null), and the loaded data passes those tests", async () => {
    const [tables] = await sourcesOf(join(dir, 'pkg'));
    for (const t of tables!.tables) {
      const comment = String(catalogTables.find((c) => c['table_name'] === t.name)!['comment']);
      const key = /Key: (.+)\.$/.exec(comment)![1]!.split(', ');
      expect(key, t.name).toEqual(tableSpec(t.name).key);
      for (const k of key)
        expect(dataTests(t.columns.find((c) => c.name === k)), `${t.name}.${k}`).toContain('not_null');
      if (key.length === 1) {
        expect(dataTests(t.columns.find((c) => c.name === key[0]))).toContain('unique');
        expect(t.data_tests).toBeUndefined();
      } else {
        expect(t.data_tests).toEqual([{ engage_etl_unique_key: { columns: key } }]);
      }
      // What dbt runs for those tests (its not_null, and the macro's SQL with the names quoted): no failing row.
      const cols = key.map((k) => `"${k}"`).join(', ');
      const [dup] = await f.query(
        `SELECT count(*) AS n FROM (SELECT ${cols} FROM "${t.name}" GROUP BY ${cols} HAVING count(*) > 1)`,
      );
      const [nulls] = await f.query(
        `SELECT count(*) AS n FROM "${t.name}" WHERE ${key.map((k) => `"${k}" IS NULL`).join(' OR ')}`,
      );
      expect([Number(dup!['n']), Number(nulls!['n'])], t.name).toEqual([0, 0]);
    }
    const sessions = tables!.tables.find((t) => t.name === 'sessions')!;
    expect(dataTests(sessions.columns.find((c) => c.name === 'unit'))).toContainEqual({
      accepted_values: { values: ['day', 'hour'] },
    });
  });

  it("gives every loaded series table the freshness `status` applies: its newest unit start is the stream's watermark, allowed one schedule plus one unit", async () => {
    const [tables] = await sourcesOf(join(dir, 'pkg'));
    const watermarks = await f.query(
      `SELECT stream, max(watermark) AS watermark, list(DISTINCT unit) AS units FROM _etl_series_state GROUP BY stream`,
    );
    const fresh = tables!.tables.filter((t) => t.freshness !== undefined);
    expect(fresh.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        'revenue',
        'sessions',
        'kpi_series',
        'campaign_series',
        'canvas_summary',
        'event_counts',
      ]),
    );
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
      expect(t.freshness, t.name).toEqual(
        hourly
          ? { warn_after: { count: 25, period: 'hour' }, error_after: { count: 49, period: 'hour' } }
          : { warn_after: { count: 48, period: 'hour' }, error_after: { count: 72, period: 'hour' } },
      );
    }
    expect(tables!.tables.find((t) => t.name === 'sessions')!.freshness!.warn_after.count).toBe(25);
  });

  it('lists every analyst view as a second source, every column with the comment and type of the catalog', async () => {
    const [, views] = await sourcesOf(join(dir, 'pkg'));
    expect(views).toMatchObject({ name: 'engage_etl_analytics', schema: 'analytics' });
    const catalogViews = await f.query(
      `SELECT view_name, comment FROM duckdb_views() WHERE schema_name = 'analytics' ORDER BY view_name`,
    );
    expect(views!.tables.map((v) => [v.name, v.description])).toEqual(
      catalogViews.map((v) => [v['view_name'], v['comment']]),
    );
    for (const v of views!.tables) {
      const columns = catalogColumns.filter((c) => c['schema_name'] === 'analytics' && c['table_name'] === v.name);
      expect(
        v.columns.map((c) => [c.name, c.data_type, c.description]),
        v.name,
      ).toEqual(columns.map((c) => [c['column_name'], c['data_type'], c['comment']]));
    }
  });

  it("reruns byte for byte without touching a file, keeps the user's dbt_project.yml and own models, and refuses to overwrite a file it did not write", async () => {
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
    expect(await readFile(join(out, 'dbt_project.yml'), 'utf8')).toBe(
      'name: my_project\nprofile: mine\nconfig-version: 2\n',
    );
    expect(await readFile(join(out, 'models', 'revenue_daily.sql'), 'utf8')).toContain(
      "source('engage_etl', 'revenue')",
    );

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
    // The demo loads every stream: all but a few tables hold rows (segments and its history among the empty ones), so
    // nearly every table is a source.
    expect(sources[0]!.tables.length).toBeGreaterThan(TABLE_SPECS.length - 4);
  });

  it("over a workspace's share of a lake in object storage: the locations name s3://…/<table>/workspace=NAME/ and read every row, workspace included", async () => {
    const store: S3TestServer = await startS3TestServer();
    const saved = { ...process.env };
    try {
      const db = join(dir, 'brand.duckdb');
      await copyFile(f.db, db);
      const wh = await Warehouse.open(db, WAREHOUSE_TABLES);
      await new SettingsStore(wh).setWorkspace('brand_eu');
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

// Sessions, revenue, KPIs and Canvases only, over the turn of a year, on a workspace that is not the demo: every campaign
// table, the event and purchase series and the lists of templates, content blocks and integrations stay empty.
const PARTIAL_NOW = '2025-01-08T06:00:00Z';
const PARTIAL_PIPELINE = `
name: partial
start_date: 2024-12-20
lookback_days: 3
streams:
  sessions:       { unit: hour, apps: ["*"], segments: ["*"] }
  revenue:        { unit: day, apps: ["*"], products: ["*", all] }
  kpis:           { metrics: [dau, mau], apps: ["*"] }
  canvas_summary: { canvases: all, source: data_series, variant_breakdown: true, step_breakdown: true }
  canvas_details: { canvases: all }
`;
const PARTIAL_EMULATOR = {
  seed: 23,
  size: { apps: 2, products: 4, segments: 6, events: 10, canvases: 6, campaigns: 5 },
  idStyle: 'uuid' as const,
  rateLimits: false,
};

/** The tables of a local tree with at least one file `<table>/**\/*.parquet` matches, in name order. */
async function tablesWithFiles(tree: string): Promise<string[]> {
  const held: string[] = [];
  for (const spec of TABLE_SPECS) {
    const files = await readdir(join(tree, spec.name), { recursive: true }).catch(() => [] as string[]);
    if (files.some((path) => path.endsWith('.parquet'))) held.push(spec.name);
  }
  return held.sort();
}

/** The `#   table: reason` lines of the sources file's opening comment. */
async function leftOutOf(dir: string): Promise<Map<string, string>> {
  const text = await readFile(join(dir, SOURCES), 'utf8');
  return new Map([...text.matchAll(/^# {3}(\w+): (.+)$/gm)].map((m) => [m[1]!, m[2]!]));
}

describe('engage-etl dbt over the lake of a pipeline that leaves most tables empty', () => {
  let f: PipelineFixture;
  let dir: string;
  let res: { code: number; stdout: string; stderr: string };
  let source: YamlSource;

  beforeAll(async () => {
    f = await PipelineFixture.create({ now: PARTIAL_NOW, pipeline: PARTIAL_PIPELINE, emulator: PARTIAL_EMULATOR });
    expect((await f.run()).status).toBe('succeeded');
    dir = await mkdtemp(join(tmpdir(), 'engage-dbt-partial-'));
    res = await cli(['dbt', '--db', f.db, '--output', join(dir, 'pkg'), '--parquet', f.out]);
    source = (await sourcesOf(join(dir, 'pkg')))[0]!;
  }, 120_000);
  afterAll(async () => {
    await f?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('lists exactly the tables the tree holds Parquet files of, and every location reads every row with the listed columns', async () => {
    expect(res.code, res.stderr).toBe(0);
    const [canvas] = await f.query(`SELECT canvas_id FROM canvases LIMIT 1`);
    expect(String(canvas!['canvas_id'])).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4/);
    const held = await tablesWithFiles(f.out);
    expect(source.tables.map((t) => t.name)).toEqual(held);
    expect(held).toEqual(expect.arrayContaining(['sessions', 'revenue', 'kpi_series', 'canvas_summary', 'canvases']));
    expect(TABLE_SPECS.length - held.length).toBeGreaterThan(8);
    await expectLocationsRead(source, f, (location) => location, undefined);
  });

  it("names each table it leaves out with its reason, in the file's opening comment, in the source's description and on stderr", async () => {
    const held = await tablesWithFiles(f.out);
    const absent = TABLE_SPECS.map((s) => s.name)
      .filter((t) => !held.includes(t))
      .sort();
    expect(absent).toEqual(
      expect.arrayContaining([
        'campaigns',
        'campaign_series',
        'campaign_message_series',
        'event_counts',
        'email_templates',
      ]),
    );
    const leftOut = await leftOutOf(join(dir, 'pkg'));
    expect([...leftOut.keys()]).toEqual(absent);
    for (const reason of leftOut.values()) expect(reason).toBe('no rows loaded yet, so never exported');
    expect(await readFile(join(dir, 'pkg', SOURCES), 'utf8')).toContain(
      '# Source engage_etl lists the tables the lake holds Parquet files of: dbt-duckdb fails reading a location that',
    );
    expect(source.description).toContain(
      `Left out, having no Parquet file in the lake yet (the comment atop this file says why): ${absent.join(', ')}.`,
    );
    expect(res.stderr).toContain(
      `engage-etl: ${absent.length} table(s) have no Parquet file in ${f.out}, so the sources leave them out`,
    );
    for (const table of absent) expect(res.stderr).toContain(`\n  ${table}: no rows loaded yet, so never exported\n`);
  });

  it("runs what `dbt test` and `dbt source freshness` run on every source without an error: the key tests pass over the files, the newest loaded_at_field is the database's", async () => {
    const fresh: string[] = [];
    await withDuckDB(async (q) => {
      for (const t of source.tables) {
        const location = t.meta!.external_location;
        const key = tableSpec(t.name).key.map((k) => `"${k}"`);
        const [dup] = await q(
          `SELECT count(*) AS n FROM (SELECT ${key.join(', ')} FROM ${location} GROUP BY ALL HAVING count(*) > 1)`,
        );
        const [nulls] = await q(
          `SELECT count(*) AS n FROM ${location} WHERE ${key.map((k) => `${k} IS NULL`).join(' OR ')}`,
        );
        expect([Number(dup!['n']), Number(nulls!['n'])], t.name).toEqual([0, 0]);
        if (t.loaded_at_field === undefined) continue;
        const [lake] = await q(`SELECT max(${t.loaded_at_field}) AS loaded FROM ${location}`);
        const [db] = await f.query(`SELECT max(${t.loaded_at_field}) AS loaded FROM "${t.name}"`);
        expect(lake!['loaded'], t.name).toEqual(db!['loaded']);
        fresh.push(t.name);
      }
    });
    expect(fresh).toEqual(expect.arrayContaining(['sessions', 'revenue', 'kpi_series', 'canvas_summary']));
  });

  it('leaves out a table an export emptied and a table whose manifest is damaged, each with its reason, and refuses a tree of none of the tables', async () => {
    const db = join(dir, 'emptied.duckdb');
    const tree = join(dir, 'tree');
    await copyFile(f.db, db);
    await mkdir(tree);
    expect((await cli(['export', '--db', db, '--out', tree])).code).toBe(0);
    const wh = await Warehouse.open(db, WAREHOUSE_TABLES);
    await wh.query('DELETE FROM "canvas_steps"');
    await wh.close();
    const exported = await cli(['export', '--db', db, '--out', tree]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(
      (JSON.parse(await readFile(join(tree, 'manifests', 'canvas_steps.json'), 'utf8')) as { files: unknown[] }).files,
    ).toEqual([]);
    await writeFile(join(tree, 'manifests', 'kpi_series.json'), '{"table": "kpi_series", "files": ');
    const out = join(dir, 'emptied-pkg');
    const again = await cli(['dbt', '--db', db, '--output', out, '--parquet', tree]);
    expect(again.code, again.stderr).toBe(0);
    const leftOut = await leftOutOf(out);
    expect(leftOut.get('canvas_steps')).toBe('its last export found no rows');
    expect(leftOut.get('kpi_series')).toBe('manifests/kpi_series.json is not JSON; `engage-etl export` rewrites it');
    const [emptied] = await sourcesOf(out);
    expect(emptied!.tables.map((t) => t.name)).toEqual(
      source.tables.map((t) => t.name).filter((t) => t !== 'canvas_steps' && t !== 'kpi_series'),
    );
    await withDuckDB(async (q) => {
      for (const t of emptied!.tables)
        expect(
          Number((await q(`SELECT count(*) AS n FROM ${t.meta!.external_location}`))[0]!['n']),
          t.name,
        ).toBeGreaterThan(0);
    });

    const bare = join(dir, 'bare');
    await mkdir(bare);
    const refused = await cli(['dbt', '--db', db, '--output', join(dir, 'bare-pkg'), '--parquet', bare]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`--parquet: ${bare} holds no Parquet file of any table of this database`);
    await expect(stat(join(dir, 'bare-pkg'))).rejects.toThrow();
  });
});

/**
 * Every table's location: it names the table's folder (and workspace), and reads all its rows with the listed columns;
 * the tables left out are exactly those without rows (a run exports every table that holds any).
 */
async function expectLocationsRead(
  source: YamlSource,
  f: PipelineFixture,
  local: (location: string) => string,
  workspace: string | undefined,
): Promise<void> {
  expect(source.tables.map((t) => t.name)).toEqual(await tablesWithRows(f));
  await withDuckDB(async (q) => {
    for (const t of source.tables) {
      const location = t.meta!.external_location;
      expect(location).toMatch(
        new RegExp(
          `/${t.name}/${workspace === undefined ? '' : `workspace=${workspace}/`}\\*\\*/\\*\\.parquet', hive_partitioning = true\\)$`,
        ),
      );
      const [rows] = await f.query(`SELECT count(*) AS n FROM "${t.name}"`);
      const described = await q(`DESCRIBE SELECT * FROM ${local(location)}`);
      expect(
        described.map((c) => [c['column_name'], c['column_type']]),
        t.name,
      ).toEqual(t.columns.map((c) => [c.name, c.data_type]));
      const [got] = await q(
        `SELECT count(*) AS n, ${workspace === undefined ? 'NULL' : 'list(DISTINCT "workspace")'} AS workspaces FROM ${local(location)}`,
      );
      expect(Number(got!['n']), t.name).toBe(Number(rows!['n']));
      expect(got!['workspaces'], t.name).toEqual(workspace === undefined ? null : [workspace]);
    }
  });
}

/** The data tables holding rows, in name order (the order of the sources). */
async function tablesWithRows(f: PipelineFixture): Promise<string[]> {
  const withRows: string[] = [];
  for (const t of await f.query(
    `SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' AND NOT starts_with(table_name, '_') ORDER BY table_name`,
  )) {
    const [rows] = await f.query(`SELECT count(*) AS n FROM "${String(t['table_name'])}"`);
    if (Number(rows!['n']) > 0) withRows.push(String(t['table_name']));
  }
  return withRows;
}
