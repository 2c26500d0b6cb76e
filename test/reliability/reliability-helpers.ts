// Shared fixtures of the reliability suite: a frozen emulator, a three-and-a-half-month pipeline, runs in process and as
// a separate `engage-etl run` process, checksums of tables and Parquet over data columns only, and leftover/secret scans.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { DateTime } from 'luxon';
import { ENDPOINTS } from '../../src/api/endpoints.js';
import type { EndpointSpec } from '../../src/api/endpoints.js';
import { resolveRunOptions } from '../../src/config/run-options.js';
import type { RawRunFlags } from '../../src/config/run-options.js';
import { BOOKKEEPING_EXPORTS } from '../../src/export/parquet-layout.js';
import type { TableManifest } from '../../src/export/table-manifest.js';
import { createEmulator } from '../../src/emulator/server.js';
import type { Emulator, EmulatorOptions } from '../../src/emulator/server.js';
import { snapshotFiles } from '../../src/store/published-snapshot.js';
import { TABLE_SPECS, WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { runPipeline } from '../../src/pipeline/run-pipeline.js';
import type { PipelineDeps, RunSummary } from '../../src/pipeline/run-pipeline.js';

export const REPO = resolve(import.meta.dirname, '../..');
export const CLI = join(REPO, 'bin', 'engage-etl.js');

/** The emulator's clock stands still here, and every run's --until is fixed, so runs are comparable. */
export const FROZEN_NOW = '2025-06-15T12:00:00Z';
export const UNTIL = '2025-06-15T00:00:00Z';

/** Every stream, few series each: 106 days of backfill (hourly sessions included) in ~150 requests. */
export const PIPELINE_YAML = `name: reliability
start_date: 2025-03-01
lookback_days: 3
streams:
  purchase_quantity: { unit: day, apps: ["*", app_1], products: ["*"] }
  revenue:           { unit: day, apps: ["*"], products: ["*", gems_small] }
  sessions:          { unit: hour, apps: ["*"], segments: ["*"] }
  segment_size:      { segments: [seg_1] }
  custom_events:     {}
  # data_summary: one request per Canvas day keeps the request count (and so the kill points and fault draws) of these tests
  canvas_summary:    { canvases: [cv_1], source: data_summary, variant_breakdown: true, step_breakdown: true }
  canvas_details:    { canvases: [cv_1, cv_2] }
  email_templates:   { ids: [tpl_1] }
  content_blocks:    { ids: [cb_1], inclusion_data: true }
  data_integrations: {}
`;

export async function tempDir(prefix = 'engage-etl-rel-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** The files of one run target: pipeline file, database and Parquet folder inside `dir`. */
export interface Target {
  dir: string;
  pipeline: string;
  db: string;
  out: string;
}

export async function makeTarget(dir: string, name = 'w', yaml = PIPELINE_YAML): Promise<Target> {
  const pipeline = join(dir, `${name}.yaml`);
  await writeFile(pipeline, yaml);
  return { dir, pipeline, db: join(dir, `${name}.duckdb`), out: join(dir, `${name}-parquet`) };
}

/** The emulator of every reliability test: seed 1, frozen clock, the real (hourly) limit windows. */
export function startEmulator(opts: EmulatorOptions = {}): Promise<Emulator> {
  return createEmulator({ seed: 1, now: FROZEN_NOW, ...opts });
}

/** Retries fast in process (the bounds under test are attempts and budget, not the default half-second backoff). */
export const FAST_CLIENT: NonNullable<PipelineDeps['client']> = { backoffBaseMs: 20, backoffMaxMs: 200 };

/** Runs the pipeline in this process against `em`, with the fixed --until unless `flags` says otherwise. */
export async function runInProcess(
  em: Emulator,
  t: Target,
  flags: RawRunFlags = {},
  deps: PipelineDeps = {},
  apiKey = em.demoApiKey,
): Promise<RunSummary> {
  const opts = resolveRunOptions(
    { pipeline: t.pipeline, baseUrl: em.url, apiKey, db: t.db, out: t.out, until: UNTIL, ...flags },
    {},
    DateTime.fromISO(FROZEN_NOW, { zone: 'utc' }),
  );
  return runPipeline(opts, { client: FAST_CLIENT, ...deps });
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Starts `engage-etl run` as its own process; the key travels in ENGAGE_API_KEY, never on the command line. */
export function spawnRun(
  t: Target,
  em: { url: string },
  apiKey: string,
  extra: string[] = [],
  env: Record<string, string> = {},
): { child: ChildProcess; done: Promise<CliResult> } {
  return spawnCli(
    ['run', '--pipeline', t.pipeline, '--base-url', em.url, '--db', t.db, '--out', t.out, '--until', UNTIL, ...extra],
    { ENGAGE_API_KEY: apiKey, ...env },
  );
}

export function spawnCli(
  args: string[],
  env: Record<string, string> = {},
  cwd = REPO,
): { child: ChildProcess; done: Promise<CliResult> } {
  const started = Date.now();
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? tmpdir(), TZ: 'UTC', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<CliResult>((resolvePromise, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolvePromise({ code, signal, stdout, stderr, ms: Date.now() - started }));
  });
  return { child, done };
}

export function runCli(args: string[], env: Record<string, string> = {}, cwd = REPO): Promise<CliResult> {
  return spawnCli(args, env, cwd).done;
}

/** Columns of a table that carry data (bookkeeping `_run_id`, `_loaded_at`, `_month` excluded). */
function dataColumns(columns: string[]): string[] {
  return columns.filter((c) => !c.startsWith('_'));
}

function rowDigest(columns: string[]): string {
  const row = `CAST(ROW(${columns.map((c) => `"${c}"`).join(', ')}) AS VARCHAR)`;
  return `count(*) AS n, md5(coalesce(string_agg(${row}, chr(10) ORDER BY ${row}), '')) AS digest`;
}

/**
 * Per table: row count and an order-independent digest of its data columns; plus the series watermarks. `ignore` names
 * `table.column`s left out (history-dependent ones such as custom_events.first_seen_at).
 */
export async function tableChecksums(db: string, ignore: string[] = []): Promise<Record<string, string>> {
  const wh = await Warehouse.open(db, WAREHOUSE_TABLES, { readOnly: true });
  try {
    const out: Record<string, string> = {};
    for (const spec of TABLE_SPECS) {
      const columns = dataColumns(spec.columns.map((c) => c.name)).filter((c) => !ignore.includes(`${spec.name}.${c}`));
      const [row] = await wh.query(`SELECT ${rowDigest(columns)} FROM "${spec.name}"`);
      out[spec.name] = `${String(row?.['n'])}:${String(row?.['digest'])}`;
    }
    const [state] = await wh.query(
      `SELECT ${rowDigest(['stream', 'series_key', 'unit', 'watermark'])} FROM "_etl_series_state"`,
    );
    out['_etl_series_state'] = `${String(state?.['n'])}:${String(state?.['digest'])}`;
    return out;
  } finally {
    await wh.close();
  }
}

/** Every data row's `_run_id`, keyed by table and key columns: proves a rerun did not rewrite unchanged rows. */
export async function runIds(db: string): Promise<Map<string, string>> {
  const wh = await Warehouse.open(db, WAREHOUSE_TABLES, { readOnly: true });
  try {
    const ids = new Map<string, string>();
    for (const spec of TABLE_SPECS) {
      const key = spec.key.map((k) => `CAST("${k}" AS VARCHAR)`).join(` || '|' || `);
      for (const row of await wh.query(`SELECT ${key} AS k, "_run_id" AS r FROM "${spec.name}"`))
        ids.set(`${spec.name}/${String(row['k'])}`, String(row['r']));
    }
    return ids;
  } finally {
    await wh.close();
  }
}

export async function listFiles(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else out.push(relative(dir, p));
    }
  };
  await walk(dir);
  return out.sort();
}

/** Per Parquet table folder: the file list and a digest of its data columns read back through DuckDB. */
export async function parquetChecksums(out: string, ignore: string[] = []): Promise<Record<string, string>> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    const result: Record<string, string> = {};
    // The run log and watermarks differ from run to run by nature (ids, times): only the data tables are compared.
    const skip = new Set(BOOKKEEPING_EXPORTS.map((t) => t.folder));
    for (const table of existsSync(out) ? (await readdir(out)).sort() : []) {
      if (skip.has(table)) continue;
      const files = (await listFiles(join(out, table))).filter((f) => f.endsWith('.parquet'));
      if (files.length === 0) continue;
      const glob = `'${join(out, table).replaceAll("'", "''")}/**/*.parquet'`;
      const cols = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${glob}, hive_partitioning = true)`))
        .getRowObjectsJS()
        .map((r) => String(r['column_name']));
      const columns = dataColumns(cols).filter((c) => !ignore.includes(`${table}.${c}`));
      const [row] = (
        await conn.runAndReadAll(`SELECT ${rowDigest(columns)} FROM read_parquet(${glob}, hive_partitioning = true)`)
      ).getRowObjectsJS();
      result[table] = `${files.join(',')}|${String(row?.['n'])}:${String(row?.['digest'])}`;
    }
    return result;
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/**
 * Size, mtime and inode of every file under `dir`: any rewrite changes at least one of them. The exported run log and
 * watermarks (and their manifests) are left out: every run rewrites them, since every run adds itself to the log.
 */
export async function fileStamps(dir: string): Promise<Record<string, string>> {
  const stamps: Record<string, string> = {};
  const bookkeeping = new Set(BOOKKEEPING_EXPORTS.flatMap((t) => [t.folder, `manifests/${t.folder}.json`]));
  for (const f of await listFiles(dir)) {
    if (bookkeeping.has(f.split('/')[0]!) || bookkeeping.has(f)) continue;
    const s = await stat(join(dir, f));
    stamps[f] = `${s.size}:${s.mtimeMs}:${s.ino}`;
  }
  return stamps;
}

/**
 * What a reader may see at any moment: every `*.parquet` file reads to the end with the row count its footer promises,
 * and every manifest names only files that exist. Returns how many files were read; throws on the first violation.
 */
export async function assertReadersSeeWholeFiles(out: string): Promise<number> {
  let files = 0;
  for (const f of await listFiles(out)) {
    const path = join(out, f);
    if (f.endsWith('.parquet')) {
      const rows = await parquetReadObjects({ file: await asyncBufferFromFile(path), compressors });
      if (!Array.isArray(rows)) throw new Error(`${f} did not read as rows`);
      files += 1;
    } else if (/^manifests\/[^/]+\.json$/.test(f)) {
      const manifest = JSON.parse(await readFile(path, 'utf8')) as TableManifest;
      for (const entry of manifest.files) {
        const named = join(out, manifest.table, entry.path);
        if (!existsSync(named)) throw new Error(`${f} names ${entry.path}, which does not exist`);
      }
    }
  }
  return files;
}

/** Temp and lock files a finished run must not leave: staging folders, `.part`, `.tmp`, locks, stale locks, WAL. */
export async function leftovers(dir: string): Promise<string[]> {
  return (await listFiles(dir)).filter((f) =>
    /(^|\/)\.staging-|\.part$|\.tmp$|\.lock$|\.stale-|\.wal$|\.engage-etl-write-test/.test(f),
  );
}

/** Collects everything a test's runs produced, to be searched for secrets. */
export class SecretScan {
  readonly #texts: string[] = [];
  readonly #targets: Target[] = [];

  text(...texts: (string | undefined)[]): void {
    for (const t of texts) if (t) this.#texts.push(t);
  }

  target(t: Target): void {
    this.#targets.push(t);
  }

  /**
   * Where `secret` appears: in collected logs and messages, in any table's text (every column cast to VARCHAR), in the
   * raw bytes of any file of the targets' folders, or in any Parquet row. Returns the places; empty means clean.
   */
  async find(
    secret: string,
  ): Promise<{ places: string[]; searched: { texts: number; tables: number; files: number } }> {
    const places: string[] = [];
    let tables = 0;
    let files = 0;
    this.#texts.forEach((t, i) => {
      if (t.includes(secret)) places.push(`text #${i}: ${t.slice(0, 80)}`);
    });
    for (const t of this.#targets) {
      for (const f of await listFiles(t.dir)) {
        const path = join(t.dir, f);
        files += 1;
        if ((await readFile(path)).includes(secret)) places.push(`bytes of ${f}`);
        if (f.endsWith('.parquet')) {
          const rows = await parquetReadObjects({ file: await asyncBufferFromFile(path), compressors });
          if (JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)).includes(secret))
            places.push(`rows of ${f}`);
        }
      }
      // The published file and the working copy beside it (which alone holds failed runs' messages).
      for (const db of [t.db, snapshotFiles(t.db).working]) {
        if (!existsSync(db)) continue;
        const wh = await Warehouse.open(db, WAREHOUSE_TABLES, { readOnly: true });
        try {
          const all = await wh.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'`);
          for (const { table_name } of all) {
            tables += 1;
            const [hit] = await wh.query(
              `SELECT count(*) AS n FROM "${String(table_name)}" t WHERE contains(CAST(t AS VARCHAR), $1)`,
              [secret],
            );
            if (Number(hit?.['n']) > 0) places.push(`table ${String(table_name)} of ${db}`);
          }
        } finally {
          await wh.close();
        }
      }
    }
    return { places, searched: { texts: this.#texts.length, tables, files } };
  }
}

/** A local port nothing listens on (opened, then closed): a base URL there refuses connections. */
export function closedPort(): Promise<number> {
  return new Promise<number>((resolvePort) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolvePort(p));
    });
  });
}

/** Every permission an endpoint of the platform needs, but these: for keys that lack one on purpose. */
export function permissionsExcept(...left: string[]): string[] {
  return [...new Set(Object.values(ENDPOINTS as Record<string, EndpointSpec>).map((e) => e.permission))].filter(
    (p): p is string => p !== undefined && !left.includes(p),
  );
}
