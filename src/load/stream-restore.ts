// Streams fail alone: a stream the run could not complete gets back, in the working copy, the rows and state the last
// published snapshot held for it, so the publish that follows shows it exactly as before and the next run resumes it
// from its own watermark. Its outcome, and every other stream's, is recorded in `_etl_stream_outcomes`.
import { existsSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import { LIST, TIMESTAMP, VARCHAR } from '@duckdb/node-api';
import { markDirtySql } from './dirty-partitions.js';
import { toDuckDBValue } from './duckdb-values.js';
import { PARTITION_COLUMN, WHOLE_TABLE_PARTITION, ident, sqlString, tableSpec } from './table-specs.js';
import type { TableName } from './table-specs.js';

const PREVIOUS = 'engage_previous_snapshot';

/** Bookkeeping rows kept per stream: restored with its tables. */
const STATE_TABLES = ['_etl_series_state', '_etl_holes'] as const;
/** Audit rows a failed stream's run wrote: removed with its rows. */
const RUN_AUDIT_TABLES = ['_etl_restatements', '_etl_reconciliation'] as const;

async function columnsOf(conn: DuckDBConnection, catalog: string, table: string): Promise<string[]> {
  const reader = await conn.runAndReadAll(
    `SELECT "column_name" FROM information_schema.columns WHERE "table_catalog" = $1 AND "table_schema" = 'main' AND "table_name" = $2 ORDER BY "ordinal_position"`,
    [catalog, table],
  );
  return reader.getRowObjectsJS().map((r) => String(r['column_name']));
}

/** Replace `table`'s rows chosen by `where` with those of the previous snapshot (the columns both have). */
async function restoreRows(conn: DuckDBConnection, table: string, where: string, params: unknown[], types: unknown[], hasPrevious: boolean): Promise<void> {
  const prevColumns = hasPrevious ? await columnsOf(conn, PREVIOUS, table) : [];
  await conn.run(`DELETE FROM ${ident(table)} WHERE ${where}`, params as never, types as never);
  if (prevColumns.length === 0) return;
  // The virtual partition column is computed, never inserted.
  const current = new Set((await columnsOf(conn, await currentCatalog(conn), table)).filter((c) => c !== PARTITION_COLUMN));
  const shared = prevColumns.filter((c) => current.has(c)).map(ident).join(', ');
  await conn.run(`INSERT INTO ${ident(table)} (${shared}) SELECT ${shared} FROM ${PREVIOUS}.main.${ident(table)} WHERE ${where}`, params as never, types as never);
}

async function currentCatalog(conn: DuckDBConnection): Promise<string> {
  const reader = await conn.runAndReadAll('SELECT current_database() AS db');
  return String(reader.getRowObjectsJS()[0]?.['db']);
}

/** Attach the previous snapshot read-only (outside a transaction); false when there is none to attach. */
export async function attachPrevious(conn: DuckDBConnection, previous: string | undefined): Promise<boolean> {
  if (previous === undefined || !existsSync(previous)) return false;
  await conn.run(`ATTACH ${sqlString(previous)} AS ${PREVIOUS} (READ_ONLY)`);
  return true;
}

export async function detachPrevious(conn: DuckDBConnection): Promise<void> {
  await conn.run(`DETACH ${PREVIOUS}`);
}

/**
 * Inside the caller's transaction: give `streams` (and their `tables`) back the rows and state of the attached previous
 * snapshot (`hasPrevious` false: they are emptied, as before their first run), drop the audit rows run `runId` wrote for
 * them, and mark every partition either version holds dirty so the export rewrites their files from the restored rows.
 */
export async function restoreStreams(conn: DuckDBConnection, streams: readonly string[], tables: readonly TableName[], hasPrevious: boolean, runId: string): Promise<void> {
  for (const table of tables) {
    const spec = tableSpec(table);
    const partition = spec.partitionSource ? ident(PARTITION_COLUMN) : `'${WHOLE_TABLE_PARTITION}'`;
    const markDirty = () => conn.run(markDirtySql('$1', `SELECT ${partition} AS "partition" FROM ${ident(table)}`), [table], [VARCHAR]);
    await markDirty();
    await restoreRows(conn, table, 'true', [], [], hasPrevious);
    await markDirty();
  }
  const names = toDuckDBValue('VARCHAR[]', [...streams], 'streams');
  for (const table of STATE_TABLES) await restoreRows(conn, table, 'list_contains($1, "stream")', [names], [LIST(VARCHAR)], hasPrevious);
  for (const table of RUN_AUDIT_TABLES) {
    await conn.run(`DELETE FROM ${ident(table)} WHERE "run_id" = $1 AND list_contains($2, "stream")`, [runId, names], [VARCHAR, LIST(VARCHAR)]);
  }
}

/** One stream's outcome in a run. */
export interface StreamOutcome {
  stream: string;
  status: 'succeeded' | 'failed';
  error: string | null;
}

/** Inside the caller's transaction: record each stream's outcome of run `runId`, keeping its last success. */
export async function recordStreamOutcomes(conn: DuckDBConnection, runId: string, finishedAt: Date, outcomes: readonly StreamOutcome[]): Promise<void> {
  for (const o of outcomes) {
    const ok = o.status === 'succeeded';
    await conn.run(
      `INSERT INTO "_etl_stream_outcomes"
       SELECT $1, $2, $3, $4, $5,
              ${ok ? '$4' : `(SELECT "last_success_run_id" FROM "_etl_stream_outcomes" WHERE "stream" = $1)`},
              ${ok ? '$5' : `(SELECT "last_success_at" FROM "_etl_stream_outcomes" WHERE "stream" = $1)`}`,
      [o.stream, o.status, o.error, runId, toDuckDBValue('TIMESTAMP', finishedAt, 'finished_at')],
      [VARCHAR, VARCHAR, VARCHAR, VARCHAR, TIMESTAMP],
    );
    // The row just inserted is the newest; the older one of the stream goes.
    await conn.run(`DELETE FROM "_etl_stream_outcomes" WHERE "stream" = $1 AND "run_id" IS DISTINCT FROM $2`, [o.stream, runId], [VARCHAR, VARCHAR]);
  }
}
