// The DuckDB database of engage-etl: opens it (creating tables from sql/), gives serial access and transactions,
// commits pipeline batches (packages) in one transaction, and answers queries with plain JS values. The bookkeeping
// families each have a store that owns their SQL and writes through this class (run-log.ts, settings-store.ts, …).
import { constants, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { StatementType, VARCHAR, DuckDBInstance } from '@duckdb/node-api';
import type { DuckDBConnection } from '@duckdb/node-api';
import { EngageError, FatalError } from '../errors.js';
import { crashPoint } from '../process/crash-point.js';
import { isProcessAlive } from '../process/process-alive.js';
import { appendStaged, prefill, type StagedAppend } from './append-columns.js';
import {
  MERGE_COUNTS_DDL,
  MERGE_COUNTS_TABLE,
  appendOnly,
  comparedRows,
  searchedScopes,
  prepareMerge,
  tableChanges,
  dropExtentsSql,
  stampExtentsSql,
  stampedExtents,
  tableExtents,
} from './bulk-merge.js';
import { RowPackage, type PackageTables, type StagedPackage, type StagedTable } from './row-package.js';
import type { TableChange } from './bulk-merge.js';
import { markDirtySql } from './dirty-partitions.js';
import { fromDuckDBValue, toQueryParams } from './duckdb-values.js';
import { prepareHoleUpdates, prepareSeriesState } from './series-state-commit.js';
import type { HoleUpdate, SeriesStateUpdate } from './series-state-commit.js';
import { applySqlDir } from './sql-dir.js';
import { createTableSql } from './table-definition.js';
import { HISTORY_SUFFIX, historyTableName, seedHistory } from './table-history.js';
import { isCurrentLayout, matchingUpgrade, tableColumns, upgradeTables } from './table-upgrade.js';
import { PARTITION_COLUMN, WHOLE_TABLE_PARTITION, allColumnNames, ident } from './table-definition.js';
import type { TableSpec } from './table-definition.js';
import type { WarehouseTables } from './warehouse-tables.js';

export type { HoleUpdate, SeriesStateUpdate } from './series-state-commit.js';

export interface WarehouseOptions {
  /**
   * Open without write access: no DDL is applied and DuckDB refuses writes. Several read-only openers may share the file,
   * none while a writer holds it.
   * @default false
   */
  readOnly?: boolean;
  /**
   * DuckDB's memory_limit for a writer. Commits are small batches, so a small buffer pool costs no speed and keeps the
   * process flat as the tables grow; larger work spills to disk. Read-only openers keep DuckDB's default unless given one.
   * WRITER_MEMORY_LIMIT says why it is 128 MB.
   * @default '128MB' for a writer, DuckDB's default (80 % of RAM) for a read-only opener
   */
  memoryLimit?: string;
}

/**
 * The writer's memory limit and threads for the export, once its commits are done (see `liftCommitLimits`). A partition
 * is one sorted COPY (export-parquet.ts), and DuckDB's sort fills the limit and spills the rest to the temp folder, so the
 * limit is what the export holds at any size: below it the sort spills most of its rows and takes several times the
 * CPU, above it the peak grows with the limit (`node dist/bench/export-sort.js` measures both). One thread: each thread
 * of a COPY holds a row group of every column of its own, outside the limit. The limit also caps what DuckDB caches of
 * a database far larger than it (docs/decisions.md, "Memory limits of DuckDB, by stage").
 */
const EXPORT_MEMORY_LIMIT = '192MB';
const EXPORT_THREADS = '1';

/**
 * DuckDB's memory limit for the report's queries, in the run (`liftReportLimits`) and in `report` (read-only). Their
 * window functions do not spill, but the charts filter on constants (setReportLastDays), so a large database's report
 * fits this limit, and runs faster under it than under DuckDB's default (80 % of RAM); a smaller one makes it slower
 * (docs/decisions.md, "Memory limits of DuckDB, by stage").
 */
export const REPORT_MEMORY_LIMIT = '256MB';

/** What the pipeline hands over to commit at once. */
export interface LoadBatch {
  runId: string;
  loadedAt: Date;
  /** Rows per table; a name outside the warehouse's tables is refused (a programming error). */
  upserts: { table: string; rows: Record<string, unknown>[] }[];
  /** Scopes whose stored rows NOT in this batch's upserts are deleted (e.g. canvas_steps of canvas cv_1). */
  replaces?: { table: string; columns: string[]; values: unknown[][] }[];
  state: SeriesStateUpdate[];
  /** Hole changes of the series in this batch. @default [] */
  holes?: HoleUpdate[];
  /**
   * The run's --until: when given, values of series tables that changed are audited in `_etl_restatements`, and versions
   * of definitions without an edit time start there (table-history.ts). @default undefined (the batch's loadedAt)
   */
  until?: Date;
}

export interface CommitResult {
  /**
   * Per table named in the batch: what changed; for each such table that keeps a history, also its `<table>_history`:
   * versions opened as `inserted`, versions closed as `updated`.
   */
  tables: Record<string, TableChange>;
  /** inserted + updated + deleted over the batch's tables (history tables not included). */
  rowsChanged: number;
  /** Fetched rows compared with stored ones; the others were outside their object's extent (bulk-merge.ts). */
  rowsCompared: number;
  /** Replace scopes whose stored rows were searched; the others were outside every extent of their object (bulk-merge.ts). */
  scopesSearched: number;
  /** Tables whose rows were appended without a merge: none could meet a stored key (bulk-merge.ts, PreparedMerge.probe). */
  appended: string[];
}

/** What one commit writes besides its rows: the package they were written to, the scopes they replace, the state. */
export interface PackageCommit extends Omit<LoadBatch, 'upserts' | 'replaces'> {
  /** The package's tables and scopes, as its `close()` returned them. */
  staged: StagedPackage;
}

/** A commit checked and ready to write: see Warehouse.prepareCommit. */
export interface PreparedCommit {
  runId: string;
  tables: string[];
  /** What the batch holds, for an error message. */
  what: string;
  /** The staging table's DDL and the statement that reads the package's file into it. */
  load: string[];
  appends: StagedAppend[];
  /**
   * What the commit asks before it merges (bulk-merge.ts, PreparedMerge.probe): one row per table that may only need
   * its rows appended; empty when no table may.
   */
  probe: string;
  /** Each table's comparing merge, and where it has a probe the append that replaces it when the probe allows. */
  merges: { table: string; sql: string; append?: string }[];
  /** What follows the merges: the series state, the holes, and the read of the merge counts. */
  tail: string;
  /** The tables whose extents the script relies on, with the SQL that rebuilds them (run first where this process has not). */
  extents: { table: string; rebuild: string }[];
}

interface OpenInstance {
  instance: DuckDBInstance;
  readOnly: boolean;
  refs: number;
  /** Tables whose extents this process rebuilt from their rows (bulk-merge.ts, EXTENTS_SCHEMA). */
  extentsBuilt: Set<string>;
}

// One DuckDB instance per file per process: a second instance on the same file would open it twice and corrupt it.
const OPEN = new Map<string, OpenInstance>();

function openError(path: string, err: unknown): FatalError {
  const msg = err instanceof Error ? err.message : String(err);
  if (/not a valid DuckDB database file/i.test(msg)) {
    return new FatalError(`the database file is not a DuckDB database: ${path} (move it away or pass another --db)`, {
      cause: err,
    });
  }
  const lock = /Could not set lock on file .*?: (Conflicting lock is held in .*?\(PID \d+\))/i.exec(msg);
  if (lock || /Could not set lock/i.test(msg)) {
    return new FatalError(
      `another process holds the database ${path}${lock ? ` (${lock[1]})` : ''}; wait for it to finish or stop it, or pass another --db`,
      { cause: err },
    );
  }
  if (/database does not exist/i.test(msg)) {
    return new FatalError(`no database at ${path}; run \`engage-etl run\` first or pass the --db of an existing one`, {
      cause: err,
    });
  }
  if (/Is a directory/i.test(msg)) {
    return new FatalError(
      `the database path ${path} is a folder; pass a file path with --db, e.g. --db ${join(path, 'engage.duckdb')}`,
      { cause: err },
    );
  }
  return new FatalError(
    `cannot open the database ${path}: ${msg}; check the file (permissions, disk) or pass another --db`,
    { cause: err },
  );
}

/**
 * A commit stages its batch in temporary tables that DuckDB keeps until the transaction ends, at least one 256 KiB
 * block per column once they hold a few thousand rows, and holds the rows it inserts until then too: a batch of the
 * wide campaign tables needs more than 64 MB, and a limit that a commit can run out of fails the run.
 */
const WRITER_MEMORY_LIMIT = '128MB';

/** The temp table a commit stages every table's rows in (row-package.ts). */
const STAGING_TABLE = '_etl_staging';

/** What a commit's probe found per table (bulk-merge.ts, PreparedMerge.probe), read before it merges. */
const PROBE_TABLE = '_etl_probe';
const PROBE_DDL = `CREATE OR REPLACE TEMP TABLE "${PROBE_TABLE}" ("table_name" VARCHAR, "repeated" BIGINT, "maybe" BIGINT, "scopes" BIGINT)`;

/** The stage folders of writers, in the system's temp folder: `<prefix><pid>-<random>`. */
const STAGE_PREFIX = 'engage-etl-stage-';

/**
 * Removes the stage folders of processes that no longer run (a run killed between a package and its commit): what they
 * held was never committed, and the run that resumes fetches it again.
 */
function sweepStages(): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^engage-etl-stage-(\d+)-/.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid !== process.pid && !isProcessAlive(pid))
      rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
}

function checkBatch(batch: Pick<LoadBatch, 'runId' | 'loadedAt'>): void {
  if (typeof batch.runId !== 'string' || batch.runId === '') {
    throw new FatalError(
      `a batch needs a non-empty runId, got ${JSON.stringify(batch.runId)}; pass the id given to RunLog.begin`,
    );
  }
  if (!(batch.loadedAt instanceof Date) || Number.isNaN(batch.loadedAt.getTime())) {
    throw new FatalError(`batch of run ${batch.runId}: loadedAt must be a valid Date, got ${String(batch.loadedAt)}`);
  }
}

/** The spec of a table a batch names; a name outside the warehouse's tables is a programming error. */
function tableOf(tables: PackageTables, runId: string, table: string, source: string): TableSpec {
  if (!tables.has(table)) {
    throw new FatalError(
      `batch of run ${runId}: ${source} names unknown table "${table}"; use one of: ${tables.all.map((s) => s.name).join(', ')}`,
    );
  }
  return tables.spec(table);
}

/** Write a batch's upserts and replace scopes to a package, each table name checked against the package's tables. */
export function addToPackage(pkg: RowPackage, runId: string, batch: Pick<LoadBatch, 'upserts' | 'replaces'>): void {
  for (const upsert of batch.upserts) pkg.add(tableOf(pkg.tables, runId, upsert.table, 'an upsert'), upsert.rows);
  for (const replace of batch.replaces ?? [])
    pkg.addScopes(tableOf(pkg.tables, runId, replace.table, 'a replace'), replace.columns, replace.values);
}

/** A table with no rows in the package (named by a replace scope only). */
function emptyStaged(tables: WarehouseTables, spec: TableSpec): StagedTable {
  const layout = tables.staging.table(spec);
  return { spec, index: layout.index, rows: 0, duplicates: false, select: layout.select, file: '' };
}

/**
 * DuckDB threads of a writer until liftCommitLimits: a commit's statements are small, and on the 2-core machine a
 * second DuckDB thread spends more in coordination than it saves while the fetching, parsing and the emulator need the
 * cores. The views and the report get every core back; the export keeps one (EXPORT_MEMORY_LIMIT says why).
 */
const WRITER_THREADS = '1';

/**
 * The write-ahead log a writer lets grow before DuckDB checkpoints it into the file. A checkpoint costs a large fixed
 * part whatever it writes (it re-compresses the table's open row group), so at DuckDB's 16 MB a commit of 20,000 rows
 * checkpointed every second commit and the COMMITs were most of the load's time: 40 commits of 20,000 campaign message
 * rows took 12.7 s of COMMIT at 16 MB and 1.9 s at 1 GB; 150 took 53 s at 16 MB and 18 s at 256 MB, with the same peak
 * (docs/decisions.md, "Memory limits of DuckDB, by stage"). The log is on disk beside the file; a run checkpoints before its export
 * and publish, and DuckDB replays what a killed run left at the next open.
 */
const WRITER_CHECKPOINT_THRESHOLD = '256MB';

/** DuckDB's options for a writer (see WRITER_MEMORY_LIMIT, WRITER_THREADS and WRITER_CHECKPOINT_THRESHOLD). */
function writerOptions(memoryLimit = WRITER_MEMORY_LIMIT): Record<string, string> {
  return { memory_limit: memoryLimit, threads: WRITER_THREADS, checkpoint_threshold: WRITER_CHECKPOINT_THRESHOLD };
}

export class Warehouse {
  readonly path: string;
  readonly readOnly: boolean;
  /** The tables it holds, as the caller opened it with them. */
  readonly tables: WarehouseTables;
  /**
   * History tables this database lacks, opened read-only: it was written before they existed, and the next writer
   * creates them from the stored rows (table-history.ts, seedHistory). Empty for a writer and for a current database.
   */
  readonly absentHistory: readonly string[];
  #conn: DuckDBConnection | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  // The folder of this opener's packages (newPackage), and how many it made.
  #stage: string | undefined;
  #packages = 0;

  private constructor(
    path: string,
    tables: WarehouseTables,
    readOnly: boolean,
    conn: DuckDBConnection,
    absentHistory: readonly string[],
  ) {
    this.path = path;
    this.tables = tables;
    this.readOnly = readOnly;
    this.absentHistory = absentHistory;
    this.#conn = conn;
  }

  /**
   * Open (and for writers create) the database at `path`, applying sql/ and checking every table against `tables` (the
   * registry's: streams/table-specs.ts, WAREHOUSE_TABLES).
   */
  static async open(path: string, tables: WarehouseTables, opts: WarehouseOptions = {}): Promise<Warehouse> {
    const abs = resolve(path);
    const readOnly = opts.readOnly ?? false;
    if (readOnly && !existsSync(abs)) {
      throw new FatalError(`no database at ${abs}; run \`engage-etl run\` first or pass the --db of an existing one`);
    }
    if (!readOnly) {
      try {
        await mkdir(dirname(abs), { recursive: true });
      } catch (err) {
        throw new FatalError(
          `cannot create the folder of the database ${abs}: ${(err as NodeJS.ErrnoException).code ?? err}; pass another --db`,
          { cause: err },
        );
      }
    }
    let entry = OPEN.get(abs);
    if (entry?.readOnly && !readOnly) {
      throw new FatalError(`${abs} is already open read-only in this process; close it before opening it for writing`);
    }
    if (!entry) {
      try {
        const options = readOnly
          ? { access_mode: 'READ_ONLY', ...(opts.memoryLimit ? { memory_limit: opts.memoryLimit } : {}) }
          : writerOptions(opts.memoryLimit);
        const instance = await DuckDBInstance.create(abs, options);
        entry = { instance, readOnly, refs: 0, extentsBuilt: new Set() };
      } catch (err) {
        throw openError(abs, err);
      }
      OPEN.set(abs, entry);
    }
    entry.refs += 1;
    let conn: DuckDBConnection | undefined;
    try {
      conn = await entry.instance.connect();
      if (!readOnly) {
        const before = await tableColumns(conn);
        for (const spec of tables.all) await conn.run(createTableSql(spec));
        await applySqlDir(conn);
        await upgradeTables(conn, tables.all);
        // A database from before a table kept its history gains it now, starting from the rows it holds.
        for (const spec of tables.fetched) {
          if (spec.history && before.has(spec.name) && !before.has(historyTableName(spec.name)))
            await seedHistory(conn, spec);
        }
      }
      const absentHistory = await checkSchema(conn, abs, tables, readOnly);
      return new Warehouse(abs, tables, readOnly, conn, absentHistory);
    } catch (err) {
      conn?.closeSync();
      release(abs);
      throw err instanceof EngageError ? err : openError(abs, err);
    }
  }

  /** Close the connection and, with the last user in this process, the file (releasing DuckDB's lock). */
  async close(): Promise<void> {
    await this.#queue.catch(() => undefined);
    const conn = this.#conn;
    if (!conn) return;
    this.#conn = undefined;
    conn.closeSync();
    release(this.path);
    if (this.#stage) rmSync(this.#stage, { recursive: true, force: true });
    this.#stage = undefined;
  }

  /** Run `fn` alone on the connection: a transaction must not interleave with another call's statements. */
  #serial<T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
    const run = this.#queue
      .catch(() => undefined)
      .then(() => {
        const conn = this.#conn;
        if (!conn) throw new FatalError(`the warehouse ${this.path} is closed; open it again`);
        return fn(conn);
      });
    this.#queue = run;
    return run;
  }

  /**
   * Run `fn` alone on the connection inside one transaction: committed when it returns, rolled back when it throws (an
   * error not of engage-etl's own becomes a FatalError naming `what`). The stores (run-log.ts, settings-store.ts, …) write
   * through it.
   */
  async transaction<T>(what: string, fn: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
    return this.#serial(async (conn) => {
      await conn.run('BEGIN TRANSACTION');
      try {
        const result = await fn(conn);
        await conn.run('COMMIT');
        return result;
      } catch (err) {
        await conn.run('ROLLBACK').catch(() => undefined);
        if (err instanceof EngageError) throw err;
        throw new FatalError(`${what} failed and was rolled back (nothing was written): ${(err as Error).message}`, {
          cause: err,
        });
      }
    });
  }

  /** Commit one batch in ONE transaction: every table merged, scopes replaced, series state advanced — or nothing. */
  async commit(batch: LoadBatch): Promise<CommitResult> {
    checkBatch(batch);
    const pkg = this.newPackage();
    try {
      addToPackage(pkg, batch.runId, batch);
      return await this.commitPrepared(this.prepareCommit({ ...batch, staged: pkg.close() }));
    } finally {
      pkg.close();
      rmSync(pkg.folder, { recursive: true, force: true });
    }
  }

  /**
   * A new, empty package in this warehouse's stage folder (created with the first one, removed by `close`): rows
   * are written to it as they come, and `commitPrepared` reads them set-wise. Its folder is the caller's to delete.
   */
  newPackage(): RowPackage {
    if (this.#stage === undefined) {
      sweepStages();
      this.#stage = mkdtempSync(join(tmpdir(), `${STAGE_PREFIX}${process.pid}-`));
    }
    const folder = join(this.#stage, `package-${++this.#packages}`);
    mkdirSync(folder);
    return new RowPackage(folder, this.tables);
  }

  /**
   * The SQL of a commit of a closed package: each table's merge, the replaced scopes, the series state and holes. A
   * caller that prepares the next commit while this connection writes the previous one (the Committer) keeps this work
   * off the path of the commits.
   */
  prepareCommit(commit: PackageCommit): PreparedCommit {
    checkBatch(commit);
    const scopes = new Map(commit.staged.scopes.map((scope) => [scope.spec.name, scope]));
    // A table named only by a replace scope merges no rows: its stored rows in the scope are deleted.
    const staged = [...commit.staged.tables];
    for (const table of scopes.keys()) {
      if (!staged.some((t) => t.spec.name === table)) staged.push(emptyStaged(this.tables, this.tables.spec(table)));
    }
    const merges = staged.map((t) => {
      const table = t.spec.name;
      const stream = commit.until ? this.tables.seriesStreamOf(table) : undefined;
      const audit = stream && commit.until ? { audit: { stream, until: commit.until } } : {};
      return prepareMerge(t, STAGING_TABLE, scopes.get(table), {
        runId: commit.runId,
        loadedAt: commit.loadedAt,
        ...audit,
        ...(commit.until ? { until: commit.until } : {}),
      });
    });
    const state = prepareSeriesState(commit.runId, commit.loadedAt, commit.state);
    const holes = prepareHoleUpdates(commit.runId, commit.loadedAt, commit.holes ?? []);
    const appends = [...state.appends, ...holes.appends];
    const tail = [
      `DROP TABLE IF EXISTS "${STAGING_TABLE}"`,
      `DROP TABLE IF EXISTS "${PROBE_TABLE}"`,
      state.sql,
      holes.sql,
      ...staged.flatMap((t) => {
        const extents = tableExtents(t.spec);
        return extents ? [stampExtentsSql(extents)] : [];
      }),
      `SELECT * FROM "${MERGE_COUNTS_TABLE}"`,
    ].filter((sql) => sql !== '');
    const probes = merges.flatMap((m) => (m.probe ? [m.probe] : []));
    return {
      runId: commit.runId,
      tables: merges.map((m) => m.table),
      what: merges.map((m) => `${m.rows} rows into ${m.table}`).join(', '),
      load: [
        this.tables.staging.ddl(STAGING_TABLE),
        ...staged.filter((t) => t.rows > 0).map((t) => this.tables.staging.load(STAGING_TABLE, t)),
        ...merges.flatMap((m) => m.load),
      ],
      appends: appends.map(prefill),
      probe:
        probes.length === 0
          ? ''
          : [
              ...probes.flatMap((p) => p.before),
              PROBE_DDL,
              // A statement per table: one UNION ALL of them all held every table's hash tables at once, and a commit
              // of 15 tables ran out of the writer's memory.
              ...probes.map((p) => `INSERT INTO "${PROBE_TABLE}" ${p.select}`),
              `SELECT * FROM "${PROBE_TABLE}"`,
            ].join(';\n'),
      merges: merges.map((m) => ({ table: m.table, sql: m.sql, ...(m.probe ? { append: m.probe.append } : {}) })),
      tail: tail.join(';\n'),
      extents: staged.flatMap((t) => {
        const extents = tableExtents(t.spec);
        return extents ? [{ table: t.spec.name, rebuild: extents.rebuild }] : [];
      }),
    };
  }

  /** Write a commit made ready by {@link prepareCommit}, in ONE transaction. */
  async commitPrepared(prepared: PreparedCommit): Promise<CommitResult> {
    const { appends, what } = prepared;
    // Decided here, not when prepared: a commit prepared while the previous one ran would otherwise trust extents that
    // commit was to rebuild, and it may roll back.
    const built = OPEN.get(this.path)?.extentsBuilt;
    let unchecked: PreparedCommit['extents'] = [];
    const result = await this.transaction(`commit of run ${prepared.runId}`, async (conn) => {
      unchecked = prepared.extents.filter((e) => !built?.has(e.table));
      const stamped = await stampedExtents(
        async (sql) => (await conn.runAndReadAll(sql)).getRows(),
        unchecked.map((e) => e.table),
      );
      const rebuilds = unchecked.filter((e) => !stamped.has(e.table));
      await conn.run([MERGE_COUNTS_DDL, ...prepared.load, ...appends.map((a) => a.ddl)].join(';\n'));
      for (const staged of appends) await appendStaged(conn, staged);
      let counts;
      let rowsCompared;
      let scopesSearched;
      let appended = new Set<string>();
      try {
        // First what the rows may meet (after the extents it reads are rebuilt): a table whose rows can meet no stored
        // row is appended, not merged.
        const rebuild = rebuilds.map((e) => e.rebuild);
        if (prepared.probe !== '') {
          const asked = (await conn.runAndReadAll([...rebuild, prepared.probe].join(';\n'))).getRows();
          appended = new Set(asked.filter(appendOnly).map((row) => String(row[0])));
        }
        const script = [
          ...(prepared.probe === '' ? rebuild : []),
          ...prepared.merges.map((m) => (m.append && appended.has(m.table) ? m.append : m.sql)),
          prepared.tail,
        ];
        const rows = (await conn.runAndReadAll(script.join(';\n'))).getRows();
        counts = tableChanges(rows);
        rowsCompared = comparedRows(rows);
        scopesSearched = searchedScopes(rows);
      } catch (err) {
        throw new Error(`merging ${what || 'series state'}: ${(err as Error).message}`, { cause: err });
      }
      const tables: Record<string, TableChange> = {};
      let rowsChanged = 0;
      for (const table of prepared.tables) {
        const change = counts.get(table) ?? { inserted: 0, updated: 0, unchanged: 0, deleted: 0 };
        tables[table] = change;
        rowsChanged += change.inserted + change.updated + change.deleted;
        // A history table's versions opened (inserted) and closed (updated): reported, not counted as rows changed.
        if (this.tables.spec(table).history) {
          const history = historyTableName(table);
          tables[history] = counts.get(history) ?? { inserted: 0, updated: 0, unchanged: 0, deleted: 0 };
        }
      }
      crashPoint('commit-merged');
      return { tables, rowsChanged, rowsCompared, scopesSearched, appended: [...appended] };
    });
    for (const e of unchecked) built?.add(e.table);
    crashPoint('commit-done');
    return result;
  }

  /**
   * Empty `tables` in one transaction with `forget` (what a store drops with them, e.g. the series state of their
   * streams): every partition they held is marked dirty so the next export removes its files, and their extents are
   * dropped so the next merge builds them again.
   */
  async emptyTables(
    what: string,
    tables: readonly string[],
    forget: (conn: DuckDBConnection) => Promise<void>,
  ): Promise<void> {
    for (const table of tables) this.tables.spec(table);
    await this.transaction(what, async (conn) => {
      for (const table of tables) {
        const spec = this.tables.spec(table);
        const month = spec.partitionSource ? ident(PARTITION_COLUMN) : `'${WHOLE_TABLE_PARTITION}'`;
        await conn.run(markDirtySql('$1', `SELECT ${month} AS "partition" FROM ${ident(table)}`), [table], [VARCHAR]);
        await conn.run(`DELETE FROM ${ident(table)}`);
        const extents = tableExtents(spec);
        if (extents) await conn.run(dropExtentsSql(extents));
      }
      await forget(conn);
    });
    // Their next merge builds their extents again (from no rows).
    for (const table of tables) OPEN.get(this.path)?.extentsBuilt.delete(table);
  }

  /**
   * Set the writer's memory limit and thread count for the export of a run or of `export`: a sorted COPY of a whole
   * year needs more than the writer's limit that keeps the commit path flat. One
   * thread, because each thread of a COPY holds a row group of its own (EXPORT_MEMORY_LIMIT says what that cost). The
   * report lifts both further (`liftReportLimits`).
   */
  async liftCommitLimits(): Promise<void> {
    await this.query(`SET memory_limit = '${EXPORT_MEMORY_LIMIT}'`);
    await this.query(`SET threads = ${EXPORT_THREADS}`);
  }

  /** The report's queries get REPORT_MEMORY_LIMIT and every core: they do not spill as a sorted COPY does. */
  async liftReportLimits(): Promise<void> {
    await this.query(`SET memory_limit = '${REPORT_MEMORY_LIMIT}'`);
    await this.query('RESET threads');
  }

  /** Run SQL and return its rows as plain JS objects (bigint → number when safe, TIMESTAMP/DATE → Date, JSON → its text). */
  async query(sql: string, params: readonly unknown[] = []): Promise<Record<string, unknown>[]> {
    const { values, types } = toQueryParams(params);
    return this.#serial(async (conn) => {
      let reader;
      try {
        reader = params.length > 0 ? await conn.runAndReadAll(sql, values, types) : await conn.runAndReadAll(sql);
      } catch (err) {
        throw new FatalError(`query on ${this.path} failed: ${(err as Error).message}`, { cause: err });
      }
      return reader.getRowObjectsJS().map((row) => fromDuckDBValue(row) as Record<string, unknown>);
    });
  }

  /**
   * Run ONE read-only query — a single SELECT (WITH … SELECT, FROM …) statement — exactly once, and return its columns and
   * rows. A second statement, or a statement of another kind (DROP, INSERT, COPY, PRAGMA…), is refused before anything runs.
   */
  async readQuery(sql: string): Promise<{ columns: string[]; rows: Record<string, unknown>[] }> {
    return this.#serial(async (conn) => {
      let extracted;
      try {
        extracted = await conn.extractStatements(sql);
      } catch (err) {
        throw new FatalError(
          `cannot be read: ${(err as Error).message.replace(/^Failed to extract statements: /, '').replace(/\s*\n[\s\S]*$/, '')}`,
          { cause: err },
        );
      }
      if (extracted.count !== 1) {
        throw new FatalError(
          `holds ${extracted.count} statements; give exactly one SELECT (or WITH … SELECT) — nothing was run`,
        );
      }
      let prepared;
      try {
        prepared = await extracted.prepare(0);
        if (prepared.statementType !== StatementType.SELECT) {
          const kind = StatementType[prepared.statementType] ?? String(prepared.statementType);
          throw new FatalError(
            `is a ${kind} statement; only a read-only SELECT (or WITH … SELECT) is accepted — nothing was run`,
          );
        }
      } catch (err) {
        if (err instanceof EngageError) throw err;
        throw new FatalError(`cannot be read: ${(err as Error).message}`, { cause: err });
      } finally {
        // Preparing only binds (nothing runs); the statement is dropped before the run, as a prepared CSV reader holds a
        // buffer of tens of MB that, with the run's own, would not fit the writer's memory limit.
        prepared?.destroySync();
      }
      let reader;
      try {
        reader = await conn.runAndReadAll(sql);
      } catch (err) {
        throw new FatalError(`cannot be read: ${(err as Error).message}`, { cause: err });
      }
      return {
        columns: reader.columnNames(),
        rows: reader.getRowObjectsJS().map((row) => fromDuckDBValue(row) as Record<string, unknown>),
      };
    });
  }

  /** Write what this connection changed to the file (a CHECKPOINT): before a COPY of a whole year, a publish or an upload. */
  async checkpoint(): Promise<void> {
    await this.query('CHECKPOINT');
  }

  /**
   * Copy the database file to `file` after a CHECKPOINT, with no statement in between: a consistent copy of everything
   * committed. Returns when the copy was taken (it holds what was committed before then).
   */
  async copyTo(file: string): Promise<Date> {
    return this.#serial(async (conn) => {
      const takenAt = new Date();
      await conn.run('CHECKPOINT');
      await copyFile(this.path, file, constants.COPYFILE_FICLONE);
      return takenAt;
    });
  }

  /** Run `fn` alone on the connection, for what query() cannot do: stream a result, COPY it to a file or pipe. */
  withConnection<T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
    return this.#serial(fn);
  }
}

function release(path: string): void {
  const entry = OPEN.get(path);
  if (!entry) return;
  entry.refs -= 1;
  if (entry.refs <= 0) {
    OPEN.delete(path);
    entry.instance.closeSync();
  }
}

/**
 * Refuses a database whose tables are not `tables` (naming how to fix it). Read-only, a database written before the
 * history tables existed is read as it is: their names are returned, and the next run creates them.
 */
async function checkSchema(
  conn: DuckDBConnection,
  path: string,
  tables: WarehouseTables,
  readOnly: boolean,
): Promise<string[]> {
  const actual = await tableColumns(conn);
  const absentHistory: string[] = [];
  for (const spec of tables.all) {
    const expected = allColumnNames(spec).join(', ');
    const columns = actual.get(spec.name);
    const versioned = spec.name.endsWith(HISTORY_SUFFIX) ? spec.name.slice(0, -HISTORY_SUFFIX.length) : undefined;
    if (columns === undefined && readOnly && versioned !== undefined && actual.has(versioned)) {
      absentHistory.push(spec.name);
      continue;
    }
    if (columns === undefined) {
      throw new FatalError(
        `${path} has no table "${spec.name}"; it was not created by engage-etl: run \`engage-etl run\` on it first or pass another --db`,
      );
    }
    if (!isCurrentLayout(spec, columns)) {
      const found = columns.map((c) => c.name).join(', ');
      if (matchingUpgrade(spec, columns)) {
        throw new FatalError(
          `table "${spec.name}" of ${path} was written by an earlier version of engage-etl; the next \`engage-etl run\` on it upgrades it (keeping its rows); read it after that run`,
        );
      }
      throw new FatalError(
        `table "${spec.name}" of ${path} has columns (${found}) but this version expects (${expected}); move the database away and load again with --full-refresh`,
      );
    }
  }
  return absentHistory;
}
