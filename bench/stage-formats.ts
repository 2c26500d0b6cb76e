// `node dist/bench/stage-formats.js [--rows N] [--repeats R] [--json <file>]`: how a commit's rows should reach DuckDB.
// Today's path (rows kept as JS objects until the commit, then checked and written value by value into DataChunks and
// appended: Warehouse.prepareCommit + commitPrepared) against writing each fetched page at once to bounded files on disk,
// NDJSON (JSON.stringify per row) or CSV (a hand-rolled writer), that the commit loads set-wise with read_json /
// read_csv and explicit column types into its staging table before the same merge (bulk-merge.ts). Files of one page
// (100 rows) and of about 5,000 rows. For a wide table (campaign_message_series, 43 columns) and a narrow one (sessions,
// 5), each variant in a child process of its own, with the writer's DuckDB settings (128 MB, one thread) and DuckDB's
// defaults, each at least twice: CPU of the whole process (DuckDB's threads included), of the main thread alone, wall
// time, peak RSS. Then whether every variant stored the same values (a fingerprint per column of the 1M rows, and
// awkward values loaded one by one). Not part of `npm run bench`: it takes several minutes.
import { execFile } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { DuckDBConnection } from '@duckdb/node-api';
import { MERGE_COUNTS_DDL, prepareMerge, tableExtents } from '../src/load/bulk-merge.js';
import type { StagedTable } from '../src/load/row-staging.js';
import { MONEY, ident, sqlString, type ColumnType, type TableSpec } from '../src/load/table-definition.js';
import { tableSpec } from '../src/load/table-specs.js';
import { Warehouse } from '../src/load/warehouse.js';
import { MAX_PENDING_ROWS, ROW_WIDTH } from '../src/pipeline/committer.js';
import { machine, n } from './bench-table.js';
import { AWKWARD_STRINGS, campaignMessageRow, tablePages, type BenchTable } from './stage-rows.js';

const run = promisify(execFile);
const here = import.meta.dirname;

/** Rows per fetched page: one series window. */
const PAGE_ROWS = 100;
/** Rows per file in the `-5000` variants (a page is never split: files hold 5,000 rows or the commit's rest). */
const FILE_ROWS = 5_000;

const VARIANTS = ['generate', 'today', 'ndjson-100', 'ndjson-5000', 'csv-100', 'csv-5000'] as const;
type Variant = (typeof VARIANTS)[number];
const SETTINGS = ['writer', 'default'] as const;
type Settings = (typeof SETTINGS)[number];
const TABLES: readonly BenchTable[] = ['campaign_message_series', 'sessions'];

const STAGING = '_etl_staging';

/** Rows per commit: the Committer's bound, a wide row counting as its columns over ROW_WIDTH (committer.ts). */
function commitRows(spec: TableSpec): number {
  const cols = spec.columns.length;
  return cols > ROW_WIDTH ? Math.floor((MAX_PENDING_ROWS * ROW_WIDTH) / cols) : MAX_PENDING_ROWS;
}

// ---------------------------------------------------------------------------------------------------------------------
// CPU by thread, from /proc (Linux): the main thread's share of process.cpuUsage().

const CLK_TCK = 100;

interface ThreadCpu {
  name: string;
  ms: number;
}

function threadCpu(): Map<string, ThreadCpu> {
  const threads = new Map<string, ThreadCpu>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const name = stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' ');
      // Fields 14 and 15 of stat (utime, stime), counted from the state field (3).
      threads.set(tid, { name, ms: ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return threads;
}

function peakRssMb(): number {
  const status = readFileSync('/proc/self/status', 'utf8');
  const kb = /VmHWM:\s+(\d+) kB/.exec(status);
  return kb ? Number(kb[1]) / 1024 : process.resourceUsage().maxRSS / 1024;
}

// ---------------------------------------------------------------------------------------------------------------------
// Writers: a page of rows as NDJSON or CSV text.

/** NDJSON of a page: JSON.stringify per row (Dates become ISO strings, the JSON column a nested value). */
function ndjsonPage(rows: readonly Record<string, unknown>[]): string {
  let text = '';
  for (let i = 0; i < rows.length; i++) text += `${JSON.stringify(rows[i])}\n`;
  return text;
}

const NEEDS_QUOTES = /[",\n\r]|^$|^\s|\s$/;

function csvString(value: string): string {
  return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** One CSV field writer per column, in table order: NULL is an empty field, the empty string `""`. */
function csvWriters(spec: TableSpec): ((value: unknown) => string)[] {
  return spec.columns.map((col) => {
    const orNull = (write: (v: never) => string) => (v: unknown) => (v === null || v === undefined ? '' : write(v as never));
    switch (col.type) {
      case 'VARCHAR':
        return orNull((v: string) => csvString(v));
      case 'JSON':
      case 'VARCHAR[]':
        return orNull((v: unknown) => csvString(JSON.stringify(v)));
      case 'TIMESTAMP':
        return orNull((v: Date) => v.toISOString());
      case 'DATE':
        return orNull((v: Date) => v.toISOString().slice(0, 10));
      case 'BOOLEAN':
        return orNull((v: boolean) => (v ? 'true' : 'false'));
      default:
        return orNull((v: number | bigint) => String(v));
    }
  });
}

function csvPage(rows: readonly Record<string, unknown>[], spec: TableSpec, writers: readonly ((value: unknown) => string)[]): string {
  const names = spec.columns.map((col) => col.name);
  let text = '';
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    for (let c = 0; c < names.length; c++) {
      if (c > 0) text += ',';
      text += writers[c]!(row[names[c]!]);
    }
    text += '\n';
  }
  return text;
}

/** The explicit column types of read_json / read_csv: the table's own (money DECIMAL, JSON as JSON). */
function columnsStruct(spec: TableSpec): string {
  const sqlType = (type: ColumnType) => (type === MONEY ? MONEY : type);
  return `{${spec.columns.map((col) => `${sqlString(col.name)}: ${sqlString(sqlType(col.type))}`).join(', ')}}`;
}

function readFilesSql(format: 'ndjson' | 'csv', files: readonly string[], spec: TableSpec): string {
  const list = `[${files.map(sqlString).join(', ')}]`;
  return format === 'ndjson'
    ? `read_json(${list}, format = 'newline_delimited', columns = ${columnsStruct(spec)})`
    : `read_csv(${list}, header = false, auto_detect = false, delim = ',', quote = '"', escape = '"', new_line = '\\n',
         allow_quoted_nulls = false, columns = ${columnsStruct(spec)})`;
}

// ---------------------------------------------------------------------------------------------------------------------
// Commits from files: the staging table filled by read_json / read_csv, then the merge the warehouse runs.

/**
 * Stage `files` in the staging table and merge them into `spec`'s table in one transaction, as Warehouse.commitPrepared
 * does for today's staging (same merge SQL). `_seq` is 0: the bench's rows never share a key, so the merge takes the
 * view without de-duplication (a real file path would number rows, or de-duplicate in SQL).
 */
async function commitFiles(conn: DuckDBConnection, spec: TableSpec, format: 'ndjson' | 'csv', files: readonly string[], rows: number, first: boolean): Promise<void> {
  const staged: StagedTable = { spec, index: 0, rows, duplicates: false, select: spec.columns.map((col) => ident(col.name)) };
  const merge = prepareMerge(staged, STAGING, [], { runId: 'bench', loadedAt: new Date() });
  const extents = tableExtents(spec);
  const ddl = `CREATE OR REPLACE TEMP TABLE ${ident(STAGING)} ("_tbl" INTEGER, "_seq" INTEGER, ${spec.columns.map((col) => `${ident(col.name)} ${col.type}`).join(', ')})`;
  await conn.run('BEGIN TRANSACTION');
  try {
    await conn.run(
      [
        MERGE_COUNTS_DDL,
        ddl,
        `INSERT INTO ${ident(STAGING)} SELECT 0, 0, * FROM ${readFilesSql(format, files, spec)}`,
        ...(first && extents ? [extents.rebuild] : []),
        merge.sql,
        `DROP TABLE IF EXISTS ${ident(STAGING)}`,
      ].join(';\n'),
    );
    await conn.run('COMMIT');
  } catch (err) {
    await conn.run('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/** Writes pages to files of at most `fileRows` rows (a page is never split), and hands them over at a commit. */
class FileSink {
  #fd: number | undefined;
  #inFile = 0;
  #files: string[] = [];
  #count = 0;

  constructor(private readonly dir: string, private readonly ext: string, private readonly fileRows: number) {}

  write(text: string, rows: number): void {
    if (this.#fd === undefined) {
      const file = join(this.dir, `${this.#count++}.${this.ext}`);
      this.#fd = openSync(file, 'w');
      this.#files.push(file);
    }
    writeSync(this.#fd, text);
    this.#inFile += rows;
    if (this.#inFile >= this.fileRows) this.#close();
  }

  #close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
    this.#inFile = 0;
  }

  /** The files written since the last take, closed. */
  take(): string[] {
    this.#close();
    const files = this.#files;
    this.#files = [];
    return files;
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Child: one variant, one table, one setting.

interface ChildResult {
  variant: Variant;
  table: BenchTable;
  settings: Settings;
  rows: number;
  wallMs: number;
  /** process.cpuUsage() user + system over the measured part: every thread, DuckDB's included. */
  cpuMs: number;
  /** The main thread's CPU (/proc/self/task/<pid>/stat). */
  mainMs: number;
  /** CPU of the other threads by name (DuckDB runs a query on a libuv worker, GC helpers are V8 workers). */
  threadsMs: Record<string, number>;
  /** Wall time the main thread waited on DuckDB (the commits' awaits). */
  commitWaitMs: number;
  /** VmHWM at the end of the measured part. */
  peakRssMb: number;
  fileBytes: number;
  tableRows: number;
  /** Per column: XOR of hash(key, value) over the stored rows, order-independent (first round only). */
  fingerprint?: Record<string, string>;
  /** The child's error, when it failed (then no figures). */
  failed?: string;
}

async function child(variant: Variant, table: BenchTable, settings: Settings, rows: number, fingerprint: boolean): Promise<ChildResult> {
  const dir = await mkdtemp(join(tmpdir(), 'engage-bench-stage-'));
  const filesDir = join(dir, 'files');
  mkdirSync(filesDir);
  const spec = tableSpec(table);
  const wh = await Warehouse.open(join(dir, 'stage.duckdb'));
  try {
    // RESET would return to the instance's startup values (the writer's); DuckDB's defaults are 80 % of RAM, every core.
    if (settings === 'default') {
      await wh.query(`SET memory_limit = '${Math.floor((totalmem() * 0.8) / 2 ** 20)}MB'`);
      await wh.query(`SET threads = ${cpus().length}`);
    }
    const batchRows = commitRows(spec);
    const format = variant.startsWith('ndjson') ? 'ndjson' : 'csv';
    const sink = variant.includes('-') ? new FileSink(filesDir, format, variant.endsWith('-100') ? PAGE_ROWS : FILE_ROWS) : undefined;
    const writers = csvWriters(spec);
    let fileBytes = 0;
    let commitWaitMs = 0;
    let first = true;

    const threads0 = threadCpu();
    const cpu0 = process.cpuUsage();
    const started = performance.now();
    let batch: Record<string, unknown>[] = [];
    let inBatch = 0;
    const commit = async (): Promise<void> => {
      if (inBatch === 0) return;
      if (variant === 'today') {
        const prepared = wh.prepareCommit({ runId: 'bench', loadedAt: new Date(), upserts: [{ table, rows: batch }], state: [] });
        batch = [];
        const waitStarted = performance.now();
        await wh.commitPrepared(prepared);
        commitWaitMs += performance.now() - waitStarted;
      } else if (sink) {
        const files = sink.take();
        const waitStarted = performance.now();
        await wh.withConnection((conn) => commitFiles(conn, spec, format, files, inBatch, first));
        commitWaitMs += performance.now() - waitStarted;
        for (const file of files) rmSync(file);
      }
      first = false;
      inBatch = 0;
    };
    for (const page of tablePages(table, rows, PAGE_ROWS)) {
      if (variant === 'today') for (const row of page) batch.push(row);
      else if (sink) {
        const text = format === 'ndjson' ? ndjsonPage(page) : csvPage(page, spec, writers);
        fileBytes += Buffer.byteLength(text);
        sink.write(text, page.length);
      }
      inBatch += page.length;
      if (inBatch >= batchRows) await commit();
    }
    await commit();
    const wallMs = performance.now() - started;
    const cpu = process.cpuUsage(cpu0);
    const threads1 = threadCpu();
    const peak = peakRssMb();

    const threadsMs: Record<string, number> = {};
    let mainMs = 0;
    for (const [tid, t] of threads1) {
      const delta = t.ms - (threads0.get(tid)?.ms ?? 0);
      if (tid === String(process.pid)) mainMs = delta;
      else threadsMs[t.name] = (threadsMs[t.name] ?? 0) + delta;
    }
    const [count] = await wh.query(`SELECT count(*) AS n FROM ${ident(table)}`);
    const result: ChildResult = {
      variant, table, settings, rows, wallMs, cpuMs: (cpu.user + cpu.system) / 1000, mainMs, threadsMs, commitWaitMs,
      peakRssMb: peak, fileBytes, tableRows: Number(count?.['n'] ?? 0),
    };
    if (fingerprint && variant !== 'generate') result.fingerprint = await columnFingerprint(wh, spec);
    return result;
  } finally {
    await wh.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Per column, an order-independent digest of (key, value) over the table's rows. */
async function columnFingerprint(wh: Warehouse, spec: TableSpec): Promise<Record<string, string>> {
  const key = spec.key.map(ident).join(', ');
  const parts = spec.columns.map((col) => `CAST(bit_xor(hash(${key}, ${ident(col.name)})) AS VARCHAR) AS ${ident(col.name)}`);
  const [row] = await wh.query(`SELECT ${parts.join(', ')} FROM ${ident(spec.name)}`);
  return Object.fromEntries(Object.entries(row ?? {}).map(([k, v]) => [k, String(v)]));
}

// ---------------------------------------------------------------------------------------------------------------------
// Exactness of awkward values: each loaded alone by every staging path, read back as text.

interface EdgeCase {
  what: string;
  column: string;
  value: unknown;
}

function edgeCases(): EdgeCase[] {
  const cases: EdgeCase[] = [];
  for (const s of [...AWKWARD_STRINGS, 'nul\u0000inside', 'lone surrogate \ud800', 'x'.repeat(5000)]) {
    cases.push({ what: `string ${JSON.stringify(s.length > 40 ? `${s.slice(0, 10)}… (${s.length} chars)` : s)}`, column: 'variation_name', value: s });
  }
  cases.push({ what: 'NULL string', column: 'variation_name', value: null });
  for (const money of [0.1 + 0.2, 3531.0199999999995, 0.125, 0.375, 2.675, 1.005, -0.005, -0, 12_345_678_901_234.56, 99_999_999_999_999.99, 1e-7]) {
    cases.push({ what: `money ${money === 0 && Object.is(money, -0) ? '-0' : String(money)}`, column: 'revenue', value: money });
  }
  for (const count of [0, 2 ** 53 - 1, 2 ** 53, 2 ** 53 + 2, 2 ** 60, 12.5, 1e21]) {
    cases.push({ what: `count ${count} (number)`, column: 'sent', value: count });
  }
  cases.push({ what: 'count 9223372036854775807 (bigint)', column: 'sent', value: 9_223_372_036_854_775_807n });
  cases.push({ what: 'count 9007199254740993 (bigint)', column: 'sent', value: 9_007_199_254_740_993n });
  for (const at of ['2023-05-06T07:08:09.123Z', '1969-12-31T23:59:59.999Z', '2262-04-11T00:00:00.000Z']) {
    cases.push({ what: `time ${at}`, column: 'time', value: new Date(at) });
  }
  for (const extra of [{ notif_button_1_open_click: 3 }, { nested: { a: [1, 'x', null] } }, { s: 'quote " and\nnewline' }, {}, 'a JSON string', 1.5, { big: 12345678901234567890 }]) {
    cases.push({ what: `extra_stats ${JSON.stringify(extra)}`, column: 'extra_stats', value: extra });
  }
  return cases;
}

/** Load each edge case (a campaign_message_series row with one value replaced) by every path; the text each stored. */
async function edgeRun(): Promise<{ what: string; stored: Record<string, string> }[]> {
  const spec = tableSpec('campaign_message_series');
  const dir = await mkdtemp(join(tmpdir(), 'engage-bench-edge-'));
  const out: { what: string; stored: Record<string, string> }[] = [];
  try {
    const cases = edgeCases();
    const paths = ['today', 'ndjson', 'csv'] as const;
    const whs = await Promise.all(paths.map((p) => Warehouse.open(join(dir, `${p}.duckdb`))));
    try {
      for (const [i, c] of cases.entries()) {
        const row = { ...campaignMessageRow(i * 4), [c.column]: c.value };
        const stored: Record<string, string> = {};
        for (const [p, path] of paths.entries()) {
          const wh = whs[p]!;
          try {
            if (path === 'today') {
              await wh.commit({ runId: 'edge', loadedAt: new Date(), upserts: [{ table: spec.name, rows: [row] }], state: [] });
            } else {
              const file = join(dir, `edge-${i}.${path}`);
              await writeFile(file, path === 'ndjson' ? ndjsonPage([row]) : csvPage([row], spec, csvWriters(spec)));
              await wh.withConnection((conn) => commitFiles(conn, spec, path, [file], 1, i === 0));
            }
            const [back] = await wh.query(
              `SELECT CAST(${ident(c.column)} AS VARCHAR) AS v FROM ${ident(spec.name)} WHERE "campaign_id" = $1 AND "time" = $2 AND "channel" = $3 AND "variation_key" = $4`,
              [row['campaign_id'], row['time'], row['channel'], row['variation_key']],
            );
            stored[path] = back === undefined ? '(no row)' : back['v'] === null ? 'NULL' : JSON.stringify(back['v']);
            await wh.query(`DELETE FROM ${ident(spec.name)}`);
          } catch (err) {
            stored[path] = `refused: ${String((err as Error).message).split('\n')[0]!.slice(0, 110)}`;
          }
        }
        out.push({ what: c.what, stored });
      }
    } finally {
      for (const wh of whs) await wh.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------------
// Parent: every variant × table × setting, `repeats` rounds, each in a child process; a table of the figures.

function arg(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

async function runChild(variant: Variant, table: BenchTable, settings: Settings, rows: number, fingerprint: boolean): Promise<ChildResult> {
  const args = [join(here, 'stage-formats.js'), '--child', variant, table, settings, String(rows), fingerprint ? 'fingerprint' : ''];
  try {
    const { stdout } = await run(process.execPath, args, { maxBuffer: 1 << 24 });
    return JSON.parse(stdout.trim().split('\n').at(-1)!) as ChildResult;
  } catch (err) {
    const stderr = String((err as { stderr?: string }).stderr ?? err);
    const line = stderr.split('\n').find((l) => /Error/.test(l)) ?? stderr.split('\n')[0]!;
    return { variant, table, settings, rows, failed: line.trim().slice(0, 200) } as ChildResult;
  }
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

function report(results: readonly ChildResult[]): string {
  const lines: string[] = [];
  const s = (ms: number) => (ms / 1000).toFixed(1);
  for (const table of TABLES) {
    for (const settings of SETTINGS) {
      const all = (v: Variant) => results.filter((r) => r.table === table && r.settings === settings && r.variant === v);
      const of = (v: Variant) => all(v).filter((r) => r.failed === undefined);
      const base = of('today');
      if (base.length === 0) continue;
      const baseCpu = mean(base.map((r) => r.cpuMs));
      const gen = results.filter((r) => r.table === table && r.variant === 'generate' && r.failed === undefined);
      const genMain = gen.length > 0 ? mean(gen.map((r) => r.mainMs)) : 0;
      lines.push('', `${table}, ${n(base[0]!.rows)} rows, DuckDB ${settings === 'writer' ? "writer's settings (128 MB, 1 thread)" : 'defaults (80 % of RAM, all cores)'}:`);
      lines.push('| variant | CPU s (runs) | CPU vs today | main thread s | main minus rows | other threads s | wall s | wall vs today | commit wait s | peak RSS MB | file MB |');
      lines.push('|---|---|---|---|---|---|---|---|---|---|---|');
      for (const v of VARIANTS) {
        const rs = v === 'generate' ? results.filter((r) => r.table === table && r.variant === v && r.failed === undefined) : of(v);
        for (const f of all(v).filter((r) => r.failed !== undefined)) lines.push(`| ${v} | FAILED: ${f.failed} |`);
        if (rs.length === 0) continue;
        const cpu = mean(rs.map((r) => r.cpuMs));
        const main = mean(rs.map((r) => r.mainMs));
        const wall = mean(rs.map((r) => r.wallMs));
        // Node 20 names every thread "node": the others are DuckDB's query (a libuv worker), its own threads, V8's GC helpers.
        const others = s(mean(rs.map((r) => Object.values(r.threadsMs).reduce((a, b) => a + b, 0))));
        lines.push(
          `| ${v} | ${s(cpu)} (${rs.map((r) => s(r.cpuMs)).join(' / ')}) | ${(cpu / baseCpu).toFixed(2)} | ${s(main)} | ${v === 'generate' ? '–' : s(main - genMain)} | ${others} | ${s(wall)} (${rs.map((r) => s(r.wallMs)).join(' / ')}) | ${(wall / mean(base.map((r) => r.wallMs))).toFixed(2)} | ${s(mean(rs.map((r) => r.commitWaitMs)))} | ${rs.map((r) => r.peakRssMb.toFixed(0)).join(' / ')} | ${(mean(rs.map((r) => r.fileBytes)) / 2 ** 20).toFixed(0)} |`,
        );
      }
    }
  }
  return lines.join('\n');
}

function exactness(results: readonly ChildResult[]): string {
  const lines: string[] = [];
  for (const table of TABLES) {
    const printed = results.filter((r) => r.table === table && r.fingerprint);
    const base = printed.find((r) => r.variant === 'today');
    if (!base) continue;
    for (const r of printed) {
      if (r === base) continue;
      const differ = Object.keys(base.fingerprint!).filter((col) => base.fingerprint![col] !== r.fingerprint![col]);
      const rowsNote = r.tableRows === base.tableRows ? '' : ` (${n(r.tableRows)} rows stored against ${n(base.tableRows)})`;
      lines.push(`${table} ${r.variant} (${r.settings}): ${differ.length === 0 ? 'every column equal to today\'s' : `columns that differ from today's: ${differ.join(', ')}`}${rowsNote}`);
    }
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  if (process.argv[2] === '--child') {
    const [variant, table, settings, rows, fp] = process.argv.slice(3);
    const result = await child(variant as Variant, table as BenchTable, settings as Settings, Number(rows), fp === 'fingerprint');
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  if (process.argv.includes('--edge-only')) {
    for (const e of await edgeRun()) process.stdout.write(`${e.what}: ${JSON.stringify(e.stored).slice(0, 400)}\n`);
    return;
  }
  const rows = Number(arg('--rows') ?? 1_000_000);
  const repeats = Number(arg('--repeats') ?? 2);
  const only = arg('--variants')?.split(',') as Variant[] | undefined;
  const jsonFile = arg('--json');
  const variants = only ?? [...VARIANTS];
  const started = performance.now();
  const results: ChildResult[] = [];
  // Rounds interleave the variants, so a slow spell of the shared machine falls on all of them alike.
  for (let round = 0; round < repeats; round++) {
    for (const table of TABLES) {
      for (const settings of SETTINGS) {
        for (const variant of variants) {
          // Making the rows does not touch DuckDB: measured with the writer's settings only.
          if (variant === 'generate' && settings !== 'writer') continue;
          process.stderr.write(`stage-formats: round ${round + 1}/${repeats} ${table} ${settings} ${variant} (${((performance.now() - started) / 1000).toFixed(0)} s so far)\n`);
          results.push(await runChild(variant, table, settings, rows, round === 0 && settings === 'writer'));
        }
      }
    }
  }
  const edges = await edgeRun();
  const edgeLines = edges.map((e) => {
    const values = Object.values(e.stored);
    const same = values.every((v) => v === values[0]);
    const show = (v: string | undefined) => (v !== undefined && v.length > 60 ? `${v.slice(0, 24)}… (${v.length} chars)` : v);
    return `| ${e.what} | ${show(e.stored['today'])} | ${show(e.stored['ndjson'])} | ${show(e.stored['csv'])} | ${same ? 'same' : 'DIFFER'} |`;
  });
  const out = [
    `Staging formats, ${machine()}; ${repeats} runs of each, in child processes; ${PAGE_ROWS}-row pages; commits of the Committer's size.`,
    '"generate" only makes the row objects (the extractors\' share, in every variant); "main minus rows" subtracts it.',
    report(results),
    '',
    'Stored values of the 1M-row runs (per-column fingerprint of key and value):',
    exactness(results),
    '',
    'Awkward values, each loaded alone into campaign_message_series (stored value cast to VARCHAR, JSON-quoted):',
    '| value | today | ndjson | csv | |',
    '|---|---|---|---|---|',
    ...edgeLines,
  ].join('\n');
  process.stdout.write(`${out}\n`);
  if (jsonFile) await writeFile(jsonFile, `${JSON.stringify({ results, edges }, null, 2)}\n`);
}

await main();
