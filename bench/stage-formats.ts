// `node dist/bench/stage-formats.js [--rows N] [--repeats R] [--variants a,b] [--json <file>] [--edge-only]`: how a
// commit's rows reach DuckDB. The shipped path (row-package.ts) writes each fetched page, as it arrives, to the CSV file
// of a load package (values in their staged form, a sequence number first) and commits the package with
// Warehouse.prepareCommit + commitPrepared, which read_csv's it into the slot-typed staging table before the merge
// (bulk-merge.ts). Against it: each page written as NDJSON (JSON.stringify per row, a sequence number first) to files
// of one page (100 rows) or of about 5,000 rows, loaded with read_json and the table's own column types into a staging
// table of the table's columns, then the same merge SQL (de-duplicating by key, as the shipped path does). Every variant
// commits every MIN_COMMIT_ROWS rows, one commit after the other (the Committer overlaps the next package's
// writing with a commit; the bench does not, alike for every variant). For a wide table (campaign_message_series, 43
// columns) and a narrow one (sessions, 5), each variant in a child process of its own, with the writer's DuckDB
// settings (128 MB, one thread) and DuckDB's defaults, each `--repeats` times: CPU of the whole process (DuckDB's
// threads included), of the main thread alone, wall time, peak RSS. Then whether every variant stored the same values
// as the shipped path (a fingerprint per column of the stored rows, and awkward values loaded one by one; `--edge-only`
// runs only the latter). Not part of `npm run bench`: at 1M rows it takes several minutes.
import { execFile } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { DuckDBConnection } from '@duckdb/node-api';
import { MERGE_COUNTS_DDL, prepareMerge, tableExtents } from '../src/load/bulk-merge.js';
import type { RowPackage, StagedTable } from '../src/load/row-package.js';
import { MONEY, ident, sqlString, type ColumnType, type TableSpec } from '../src/load/table-definition.js';
import { tableSpec, WAREHOUSE_TABLES } from '../src/streams/table-specs.js';
import { Warehouse, addToPackage } from '../src/load/warehouse.js';
import { MIN_COMMIT_ROWS } from '../src/pipeline/committer.js';
import { machine, n } from './bench-table.js';
import { AWKWARD_STRINGS, campaignMessageRow, tablePages, type BenchTable } from './stage-rows.js';
import { flag as arg } from './argv-flag.js';

const run = promisify(execFile);
const here = import.meta.dirname;

/** Rows per fetched page: one series window. */
const PAGE_ROWS = 100;
/** Rows per file in the `-5000` variants (a page is never split: files hold 5,000 rows or the commit's rest). */
const FILE_ROWS = 5_000;

const VARIANTS = ['generate', 'shipped-csv', 'ndjson-100', 'ndjson-5000'] as const;
type Variant = (typeof VARIANTS)[number];
const SETTINGS = ['writer', 'default'] as const;
type Settings = (typeof SETTINGS)[number];
const TABLES: readonly BenchTable[] = ['campaign_message_series', 'sessions'];

const STAGING = '_etl_staging';

/** The variant every other is compared with: the load package the run writes (row-package.ts). */
const SHIPPED: Variant = 'shipped-csv';

/** Rows per commit: the Committer commits its open package once it holds MIN_COMMIT_ROWS rows (committer.ts). */
const COMMIT_ROWS = MIN_COMMIT_ROWS;

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
// Writer: a page of rows as NDJSON text.

/**
 * NDJSON of a page: JSON.stringify per row (Dates become ISO strings, the JSON column a nested value), a `_seq` first
 * (numbered from `seq`) so the merge keeps the last of rows sharing a key, as the package's sequence number does.
 */
function ndjsonPage(rows: readonly Record<string, unknown>[], seq: number): string {
  let text = '';
  for (let i = 0; i < rows.length; i++) {
    const rest = JSON.stringify(rows[i]).slice(1);
    text += `{"_seq":${seq + i}${rest === '}' ? '' : ','}${rest}\n`;
  }
  return text;
}

/** The explicit column types of read_json: `_seq`, then the table's own (money DECIMAL, JSON as JSON). */
function columnsStruct(spec: TableSpec): string {
  const sqlType = (type: ColumnType) => (type === MONEY ? MONEY : type);
  return `{'_seq': 'BIGINT', ${spec.columns.map((col) => `${sqlString(col.name)}: ${sqlString(sqlType(col.type))}`).join(', ')}}`;
}

function readFilesSql(files: readonly string[], spec: TableSpec): string {
  return `read_json([${files.map(sqlString).join(', ')}], format = 'newline_delimited', columns = ${columnsStruct(spec)})`;
}

// ---------------------------------------------------------------------------------------------------------------------
// Commits from NDJSON files: a staging table of the table's columns filled by read_json, then the warehouse's merge.

/**
 * Stage `files` in a staging table and merge them into `spec`'s table in one transaction, as Warehouse.commitPrepared
 * does for a package (the same merge SQL, de-duplicating by key on `_seq` as for a package's rows).
 */
async function commitFiles(
  conn: DuckDBConnection,
  spec: TableSpec,
  files: readonly string[],
  rows: number,
  first: boolean,
): Promise<void> {
  const staged: StagedTable = {
    spec,
    index: 0,
    rows,
    duplicates: true,
    select: spec.columns.map((col) => ident(col.name)),
    file: files[0] ?? '',
  };
  const merge = prepareMerge(staged, STAGING, undefined, { runId: 'bench', loadedAt: new Date() });
  const extents = tableExtents(spec);
  const ddl = `CREATE OR REPLACE TEMP TABLE ${ident(STAGING)} ("_tbl" INTEGER, "_seq" BIGINT, ${spec.columns.map((col) => `${ident(col.name)} ${col.type}`).join(', ')})`;
  await conn.run('BEGIN TRANSACTION');
  try {
    await conn.run(
      [
        MERGE_COUNTS_DDL,
        ddl,
        `INSERT INTO ${ident(STAGING)} SELECT 0, * FROM ${readFilesSql(files, spec)}`,
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

  constructor(
    private readonly dir: string,
    private readonly ext: string,
    private readonly fileRows: number,
  ) {}

  /** Appends a page's text (one write, as RowPackage.add does); returns its bytes. */
  write(text: string, rows: number): number {
    if (this.#fd === undefined) {
      const file = join(this.dir, `${this.#count++}.${this.ext}`);
      this.#fd = openSync(file, 'w');
      this.#files.push(file);
    }
    const bytes = Buffer.from(text);
    for (let at = 0; at < bytes.length; ) at += writeSync(this.#fd, bytes, at);
    this.#inFile += rows;
    if (this.#inFile >= this.fileRows) this.#close();
    return bytes.length;
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

async function child(
  variant: Variant,
  table: BenchTable,
  settings: Settings,
  rows: number,
  fingerprint: boolean,
): Promise<ChildResult> {
  const dir = await mkdtemp(join(tmpdir(), 'engage-bench-stage-'));
  const filesDir = join(dir, 'files');
  mkdirSync(filesDir);
  const spec = tableSpec(table);
  const wh = await Warehouse.open(join(dir, 'stage.duckdb'), WAREHOUSE_TABLES);
  try {
    // RESET would return to the instance's startup values (the writer's); DuckDB's defaults are 80 % of RAM, every core.
    if (settings === 'default') {
      await wh.query(`SET memory_limit = '${Math.floor((totalmem() * 0.8) / 2 ** 20)}MB'`);
      await wh.query(`SET threads = ${cpus().length}`);
    }
    const sink = variant.startsWith('ndjson-')
      ? new FileSink(filesDir, 'ndjson', variant.endsWith('-100') ? PAGE_ROWS : FILE_ROWS)
      : undefined;
    let fileBytes = 0;
    let commitWaitMs = 0;
    let first = true;

    const threads0 = threadCpu();
    const cpu0 = process.cpuUsage();
    const started = performance.now();
    // The shipped path: one package per commit, each page written to it as it comes (as Committer.add does).
    let pkg: RowPackage | undefined;
    let inBatch = 0;
    const commit = async (): Promise<void> => {
      if (inBatch === 0) return;
      if (pkg) {
        const open = pkg;
        pkg = undefined;
        try {
          const prepared = wh.prepareCommit({ runId: 'bench', loadedAt: new Date(), staged: open.close(), state: [] });
          fileBytes += open.bytes;
          const waitStarted = performance.now();
          await wh.commitPrepared(prepared);
          commitWaitMs += performance.now() - waitStarted;
        } finally {
          rmSync(open.folder, { recursive: true, force: true });
        }
      } else if (sink) {
        const files = sink.take();
        const waitStarted = performance.now();
        await wh.withConnection((conn) => commitFiles(conn, spec, files, inBatch, first));
        commitWaitMs += performance.now() - waitStarted;
        for (const file of files) rmSync(file);
      }
      first = false;
      inBatch = 0;
    };
    let seq = 0;
    for (const page of tablePages(table, rows, PAGE_ROWS)) {
      if (variant === SHIPPED) {
        pkg ??= wh.newPackage();
        addToPackage(pkg, 'bench', { upserts: [{ table, rows: page }] });
      } else if (sink) {
        fileBytes += sink.write(ndjsonPage(page, seq), page.length);
        seq += page.length;
      }
      inBatch += page.length;
      if (inBatch >= COMMIT_ROWS) await commit();
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
      variant,
      table,
      settings,
      rows,
      wallMs,
      cpuMs: (cpu.user + cpu.system) / 1000,
      mainMs,
      threadsMs,
      commitWaitMs,
      peakRssMb: peak,
      fileBytes,
      tableRows: Number(count?.['n'] ?? 0),
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
  const parts = spec.columns.map(
    (col) => `CAST(bit_xor(hash(${key}, ${ident(col.name)})) AS VARCHAR) AS ${ident(col.name)}`,
  );
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
    cases.push({
      what: `string ${JSON.stringify(s.length > 40 ? `${s.slice(0, 10)}… (${s.length} chars)` : s)}`,
      column: 'variation_name',
      value: s,
    });
  }
  cases.push({ what: 'NULL string', column: 'variation_name', value: null });
  // Numbers past a double's precision come from JSON text, as the API's bodies carry them.
  for (const money of [
    0.1 + 0.2,
    3531.0199999999995,
    0.125,
    0.375,
    2.675,
    1.005,
    -0.005,
    -0,
    12_345_678_901_234.56,
    JSON.parse('99999999999999.99') as number,
    1e-7,
  ]) {
    cases.push({
      what: `money ${money === 0 && Object.is(money, -0) ? '-0' : String(money)}`,
      column: 'revenue',
      value: money,
    });
  }
  for (const count of [0, 2 ** 53 - 1, 2 ** 53, 2 ** 53 + 2, 2 ** 60, 12.5, 1e21]) {
    cases.push({ what: `count ${count} (number)`, column: 'sent', value: count });
  }
  cases.push({ what: 'count 9223372036854775807 (bigint)', column: 'sent', value: 9_223_372_036_854_775_807n });
  cases.push({ what: 'count 9007199254740993 (bigint)', column: 'sent', value: 9_007_199_254_740_993n });
  for (const at of ['2023-05-06T07:08:09.123Z', '1969-12-31T23:59:59.999Z', '2262-04-11T00:00:00.000Z']) {
    cases.push({ what: `time ${at}`, column: 'time', value: new Date(at) });
  }
  for (const extra of [
    { notif_button_1_open_click: 3 },
    { nested: { a: [1, 'x', null] } },
    { s: 'quote " and\nnewline' },
    {},
    'a JSON string',
    1.5,
    JSON.parse('{"big":12345678901234567890}') as object,
  ]) {
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
    const paths = [SHIPPED, 'ndjson'] as const;
    const whs = await Promise.all(paths.map((p) => Warehouse.open(join(dir, `${p}.duckdb`), WAREHOUSE_TABLES)));
    try {
      for (const [i, c] of cases.entries()) {
        const row = { ...campaignMessageRow(i * 4), [c.column]: c.value };
        const stored: Record<string, string> = {};
        for (const [p, path] of paths.entries()) {
          const wh = whs[p]!;
          try {
            if (path === SHIPPED) {
              // Warehouse.commit writes the row to a package and commits it, as the run's Committer does.
              await wh.commit({
                runId: 'edge',
                loadedAt: new Date(),
                upserts: [{ table: spec.name, rows: [row] }],
                state: [],
              });
            } else {
              const file = join(dir, `edge-${i}.ndjson`);
              await writeFile(file, ndjsonPage([row], 0));
              await wh.withConnection((conn) => commitFiles(conn, spec, [file], 1, i === 0));
            }
            const [back] = await wh.query(
              `SELECT CAST(${ident(c.column)} AS VARCHAR) AS v FROM ${ident(spec.name)} WHERE "campaign_id" = $1 AND "time" = $2 AND "channel" = $3 AND "variation_key" = $4`,
              [row['campaign_id'], row['time'], row['channel'], row['variation_key']],
            );
            stored[path] = back === undefined ? '(no row)' : back['v'] === null ? 'NULL' : JSON.stringify(back['v']);
            await wh.query(`DELETE FROM ${ident(spec.name)}`);
          } catch (err) {
            stored[path] = `refused: ${String((err as Error).message)
              .split('\n')[0]!
              .slice(0, 110)}`;
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

async function runChild(
  variant: Variant,
  table: BenchTable,
  settings: Settings,
  rows: number,
  fingerprint: boolean,
): Promise<ChildResult> {
  const args = [
    join(here, 'stage-formats.js'),
    '--child',
    variant,
    table,
    settings,
    String(rows),
    fingerprint ? 'fingerprint' : '',
  ];
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
      const all = (v: Variant) =>
        results.filter((r) => r.table === table && r.settings === settings && r.variant === v);
      const of = (v: Variant) => all(v).filter((r) => r.failed === undefined);
      const base = of(SHIPPED);
      if (base.length === 0) continue;
      const baseCpu = mean(base.map((r) => r.cpuMs));
      const gen = results.filter((r) => r.table === table && r.variant === 'generate' && r.failed === undefined);
      const genMain = gen.length > 0 ? mean(gen.map((r) => r.mainMs)) : 0;
      lines.push(
        '',
        `${table}, ${n(base[0]!.rows)} rows, DuckDB ${settings === 'writer' ? "writer's settings (128 MB, 1 thread)" : 'defaults (80 % of RAM, all cores)'}:`,
      );
      lines.push(
        '| variant | CPU s (runs) | CPU vs shipped | main thread s | main minus rows | other threads s | wall s | wall vs shipped | commit wait s | peak RSS MB | file MB |',
      );
      lines.push('|---|---|---|---|---|---|---|---|---|---|---|');
      for (const v of VARIANTS) {
        const rs =
          v === 'generate'
            ? results.filter((r) => r.table === table && r.variant === v && r.failed === undefined)
            : of(v);
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
    const base = printed.find((r) => r.variant === SHIPPED);
    if (!base) continue;
    for (const r of printed) {
      if (r === base) continue;
      const differ = Object.keys(base.fingerprint!).filter((col) => base.fingerprint![col] !== r.fingerprint![col]);
      const rowsNote =
        r.tableRows === base.tableRows ? '' : ` (${n(r.tableRows)} rows stored against ${n(base.tableRows)})`;
      lines.push(
        `${table} ${r.variant} (${r.settings}): ${differ.length === 0 ? `every column equal to ${SHIPPED}'s` : `columns that differ from ${SHIPPED}'s: ${differ.join(', ')}`}${rowsNote}`,
      );
    }
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  if (process.argv[2] === '--child') {
    const [variant, table, settings, rows, fp] = process.argv.slice(3);
    const result = await child(
      variant as Variant,
      table as BenchTable,
      settings as Settings,
      Number(rows),
      fp === 'fingerprint',
    );
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
          process.stderr.write(
            `stage-formats: round ${round + 1}/${repeats} ${table} ${settings} ${variant} (${((performance.now() - started) / 1000).toFixed(0)} s so far)\n`,
          );
          results.push(await runChild(variant, table, settings, rows, round === 0 && settings === 'writer'));
        }
      }
    }
  }
  const edges = await edgeRun();
  const edgeLines = edges.map((e) => {
    const values = Object.values(e.stored);
    const same = values.every((v) => v === values[0]);
    const show = (v: string | undefined) =>
      v !== undefined && v.length > 60 ? `${v.slice(0, 24)}… (${v.length} chars)` : v;
    return `| ${e.what} | ${show(e.stored[SHIPPED])} | ${show(e.stored['ndjson'])} | ${same ? 'same' : 'DIFFER'} |`;
  });
  const out = [
    `Staging formats, ${machine()}; ${repeats} run(s) of each, in child processes; ${PAGE_ROWS}-row pages; commits of ${n(COMMIT_ROWS)} rows (MIN_COMMIT_ROWS).`,
    '"generate" only makes the row objects (the extractors\' share, in every variant); "main minus rows" subtracts it.',
    report(results),
    '',
    `Stored values of the ${n(rows)}-row runs (per-column fingerprint of key and value, first round, writer's settings):`,
    exactness(results),
    '',
    'Awkward values, each loaded alone into campaign_message_series (stored value cast to VARCHAR, JSON-quoted):',
    `| value | ${SHIPPED} | ndjson | |`,
    '|---|---|---|---|',
    ...edgeLines,
  ].join('\n');
  process.stdout.write(`${out}\n`);
  if (jsonFile) await writeFile(jsonFile, `${JSON.stringify({ results, edges }, null, 2)}\n`);
}

await main();
