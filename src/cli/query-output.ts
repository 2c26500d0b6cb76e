// Writes a query's result with DuckDB's own writers (COPY … TO, in CSV, JSON, NDJSON or Parquet), streamed: DuckDB
// writes into a FIFO that is piped to stdout, or straight into --output, so memory stays flat however many rows come
// and a DATE stays `2024-01-01`, an INTERVAL `1 day 02:00:00`. The table format streams too, showing the first rows.
import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DuckDBTypeId } from '@duckdb/node-api';
import type { DuckDBConnection, DuckDBResult } from '@duckdb/node-api';
import { ConfigError, FatalError } from '../errors.js';
import { sqlString } from '../load/table-definition.js';
import { renderTable } from './format-rows.js';

export type QueryFormat = 'table' | 'csv' | 'json' | 'ndjson' | 'parquet';

export const QUERY_FORMATS: readonly QueryFormat[] = ['table', 'csv', 'json', 'ndjson', 'parquet'];

export interface QueryOutputOptions {
  format: QueryFormat;
  /** Write here instead of `stdout` (replaced if it exists). */
  output?: string;
  /**
   * Rows the table format shows; the rest are counted, not kept.
   * @default 1000
   */
  maxTableRows?: number;
}

const COPY_OPTIONS: Record<Exclude<QueryFormat, 'table'>, string> = {
  csv: 'FORMAT csv, HEADER true',
  json: 'FORMAT json, ARRAY true',
  ndjson: 'FORMAT json',
  parquet: 'FORMAT parquet, COMPRESSION zstd',
};

const NUMERIC = new Set<DuckDBTypeId>([
  DuckDBTypeId.TINYINT,
  DuckDBTypeId.SMALLINT,
  DuckDBTypeId.INTEGER,
  DuckDBTypeId.BIGINT,
  DuckDBTypeId.HUGEINT,
  DuckDBTypeId.UTINYINT,
  DuckDBTypeId.USMALLINT,
  DuckDBTypeId.UINTEGER,
  DuckDBTypeId.UBIGINT,
  DuckDBTypeId.UHUGEINT,
  DuckDBTypeId.FLOAT,
  DuckDBTypeId.DOUBLE,
  DuckDBTypeId.DECIMAL,
  DuckDBTypeId.BIGNUM,
]);

/** The statement without the trailing semicolons COPY ( … ) cannot take. */
function bare(sql: string): string {
  const text = sql.trim().replace(/[;\s]+$/, '');
  if (text === '')
    throw new ConfigError(
      'query',
      'the SQL is empty; pass one statement, e.g. "SELECT * FROM analytics.purchases_daily LIMIT 5"',
    );
  return text;
}

function copyError(err: unknown, format: QueryFormat): FatalError {
  const msg = (err as Error).message;
  return new FatalError(
    `query failed: ${msg}${/COPY|syntax/i.test(msg) ? ` (--format ${format} writes the result of one SELECT-like statement through COPY)` : ''}`,
    { cause: err },
  );
}

/** Write the result of `sql` in `opts.format` to `opts.output` or, streamed, to `stdout`. */
export async function writeQueryResult(
  conn: DuckDBConnection,
  sql: string,
  opts: QueryOutputOptions,
  stdout: Writable,
): Promise<void> {
  const statement = bare(sql);
  // Lets DuckDB's writers emit rows as they come instead of holding batches back to keep a scan's order; an ORDER BY
  // is still honoured. It lowers the peak of a large result by about a third.
  await conn.run('SET preserve_insertion_order = false');
  const count = await statementCount(conn, statement, opts.format);
  if (count > 1 && opts.format !== 'table') {
    throw new ConfigError(
      'query',
      `the SQL holds ${count} statements, and --format ${opts.format} writes the result of one; run them one at a time, or use --format table to see each result in order — nothing was run`,
    );
  }
  if (opts.format === 'table') {
    const text =
      count > 1
        ? await renderEachResult(conn, statement, count, opts.maxTableRows ?? 1000)
        : await renderTableResult(() => conn.stream(statement), opts.maxTableRows ?? 1000);
    if (opts.output) await writeFile(opts.output, text);
    else stdout.write(text);
    return;
  }
  const format = opts.format;
  const copy = (target: string) =>
    conn
      .run(`COPY (${statement}) TO ${sqlString(target)} (${COPY_OPTIONS[format]}, USE_TMP_FILE false)`)
      .catch((err: unknown) => {
        throw copyError(err, format);
      });
  if (opts.output) {
    await copy(opts.output);
    return;
  }
  if (opts.format === 'parquet' && (stdout as { isTTY?: boolean }).isTTY) {
    throw new ConfigError(
      '--format parquet',
      'Parquet is binary: pass --output FILE.parquet or redirect stdout to a file',
    );
  }
  await copyThroughFifo(copy, stdout);
}

/**
 * DuckDB writes into a FIFO and the FIFO is piped into `stdout`: COPY to `/dev/stdout` itself would truncate a
 * redirected file and write over anything before it. This process holds a write end of its own until COPY is done,
 * so the reader sees end-of-file only then, even when COPY fails before it opens the FIFO.
 */
async function copyThroughFifo(copy: (target: string) => Promise<unknown>, stdout: Writable): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'engage-query-'));
  const fifo = join(dir, 'result');
  try {
    try {
      execFileSync('mkfifo', [fifo]);
    } catch (err) {
      throw new FatalError(
        `cannot create a FIFO for the query output (${(err as Error).message}); pass --output FILE instead`,
        { cause: err },
      );
    }
    const readEnd = await open(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const holdEnd = await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    const reader = new Socket({ fd: readEnd.fd, readable: true, writable: false });
    // A reader of stdout that goes away (`| head -1`) must not leave DuckDB blocked on a full FIFO nobody drains: the
    // read end is closed first (before any other listener, which may exit the process), so COPY's write fails at once.
    const readerGone = (): void => void reader.destroy();
    if ('prependOnceListener' in stdout) stdout.prependOnceListener('error', readerGone);
    const piped = pipeline(reader, stdout, { end: false });
    try {
      await copy(fifo);
    } finally {
      await holdEnd.close();
      await piped.catch(() => undefined);
      await readEnd.close().catch(() => undefined);
      stdout.off('error', readerGone);
    }
    await piped;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** How many statements `sql` holds; SQL DuckDB cannot parse is told as the query's failure. */
async function statementCount(conn: DuckDBConnection, sql: string, format: QueryFormat): Promise<number> {
  try {
    return (await conn.extractStatements(sql)).count;
  } catch (err) {
    throw copyError(err, format);
  }
}

/** `A; B`: each statement run in order, each result shown under the statement's number, as a DuckDB shell shows them. */
async function renderEachResult(conn: DuckDBConnection, sql: string, count: number, maxRows: number): Promise<string> {
  const extracted = await conn.extractStatements(sql);
  const parts: string[] = [];
  for (let i = 0; i < count; i++) {
    const prepared = await extracted.prepare(i).catch((err: unknown) => {
      throw copyError(err, 'table');
    });
    try {
      parts.push(`-- statement ${i + 1} of ${count}\n${await renderTableResult(() => prepared.stream(), maxRows)}`);
    } finally {
      prepared.destroySync();
    }
  }
  return parts.join('\n');
}

async function renderTableResult(start: () => Promise<DuckDBResult>, maxRows: number): Promise<string> {
  let result;
  try {
    result = await start();
  } catch (err) {
    throw copyError(err, 'table');
  }
  const columns = result.columnNames();
  const numeric = result.columnTypes().map((t) => NUMERIC.has(t.typeId));
  const rows: string[][] = [];
  let total = 0;
  for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
    total += chunk.rowCount;
    if (rows.length >= maxRows) continue;
    for (const row of chunk.getRows()) {
      if (rows.length >= maxRows) break;
      rows.push(row.map((v) => (v === null ? 'NULL' : String(v))));
    }
  }
  const count = `${total.toLocaleString('en-US')} row${total === 1 ? '' : 's'}`;
  const footer =
    total > rows.length
      ? `(${count}, the first ${rows.length.toLocaleString('en-US')} shown; --format csv or --output FILE writes them all)`
      : `(${count})`;
  return renderTable(columns, rows, numeric, footer);
}
