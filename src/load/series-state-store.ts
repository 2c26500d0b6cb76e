// The incremental state of the series in DuckDB: watermarks (`_etl_series_state`) and holes (`_etl_holes`). Written inside
// the commit transaction of the rows they describe; read by the planner and by `status`.
import { BIGINT, INTEGER, TIMESTAMP, VARCHAR } from '@duckdb/node-api';
import type { DuckDBConnection } from '@duckdb/node-api';
import { FatalError } from '../errors.js';
import { appendColumns } from './append-columns.js';
import { toDuckDBValue } from './duckdb-values.js';
import { ident } from './table-definition.js';

/** Series key and unit of the state row of a stream that is read whole (a list, objects by id): one row per stream. */
export const SNAPSHOT = 'snapshot';

/** The watermark of one series after a batch. */
export interface SeriesStateUpdate {
  stream: string;
  seriesKey: string;
  unit: string;
  /** Start of the first unit not yet final: the next run fetches from here. */
  watermark: Date;
  /** Rows the batch loaded for this series; added to the stored total. */
  rowsLoaded: number;
}

/** A stored series watermark. */
export interface SeriesState {
  stream: string;
  seriesKey: string;
  unit: string;
  watermark: Date;
  /** Total rows loaded for this series over all runs. */
  rowsLoaded: number;
  lastRunId: string | null;
  updatedAt: Date;
}

/** A change to one hole: 'filled' removes it, the other statuses store it. */
export interface HoleUpdate {
  stream: string;
  seriesKey: string;
  unit: string;
  /** Start of the missing unit (UTC). */
  unitStart: Date;
  status: 'open' | 'confirmed_absent' | 'filled';
  /** Runs that asked for the unit and did not get it. */
  attempts: number;
  /** Why it is missing (endpoint, series, time; or the conflicting values). */
  reason: string;
}

/** A stored hole. */
export interface Hole {
  stream: string;
  seriesKey: string;
  unit: string;
  unitStart: Date;
  status: 'open' | 'confirmed_absent';
  attempts: number;
  reason: string;
  firstRunId: string;
  lastRunId: string;
  updatedAt: Date;
}

export function toSeriesState(row: Record<string, unknown>): SeriesState {
  return {
    stream: row.stream as string,
    seriesKey: row.series_key as string,
    unit: row.unit as string,
    watermark: row.watermark as Date,
    rowsLoaded: Number(row.rows_loaded),
    lastRunId: (row.last_run_id as string | null) ?? null,
    updatedAt: row.updated_at as Date,
  };
}

export function toHole(row: Record<string, unknown>): Hole {
  return {
    stream: row.stream as string,
    seriesKey: row.series_key as string,
    unit: row.unit as string,
    unitStart: row.unit_start as Date,
    status: row.status as Hole['status'],
    attempts: Number(row.attempts),
    reason: row.reason as string,
    firstRunId: row.first_run_id as string,
    lastRunId: row.last_run_id as string,
    updatedAt: row.updated_at as Date,
  };
}

export const SERIES_STATE_SQL = `SELECT "stream", "series_key", "unit", "watermark", "rows_loaded", "last_run_id", "updated_at"
  FROM "_etl_series_state" ORDER BY "stream", "series_key", "unit"`;

export const HOLES_SQL = `SELECT * FROM "_etl_holes" ORDER BY "stream", "series_key", "unit_start"`;

/** Advance the series watermarks of a batch: last entry per series wins, never backwards; rows_loaded adds up. */
export async function upsertSeriesState(conn: DuckDBConnection, runId: string, loadedAt: Date, state: readonly SeriesStateUpdate[]): Promise<void> {
  if (state.length === 0) return;
  const cols: [string, 'VARCHAR' | 'TIMESTAMP' | 'BIGINT' | 'INTEGER'][] = [
    ['_seq', 'INTEGER'], ['stream', 'VARCHAR'], ['series_key', 'VARCHAR'], ['unit', 'VARCHAR'], ['watermark', 'TIMESTAMP'], ['rows_loaded', 'BIGINT'],
  ];
  const columns = cols.map(() => [] as ReturnType<typeof toDuckDBValue>[]);
  state.forEach((s, i) => {
    const at = `state entry ${i} of run ${runId}`;
    for (const [name, value] of [['stream', s.stream], ['seriesKey', s.seriesKey], ['unit', s.unit]] as const) {
      if (typeof value !== 'string' || value === '') throw new FatalError(`${at}: ${name} must be a non-empty string, got ${JSON.stringify(value)}`);
    }
    const values = [i, s.stream, s.seriesKey, s.unit, s.watermark, s.rowsLoaded];
    cols.forEach(([name, type], c) => columns[c]!.push(toDuckDBValue(type, values[c], `${at} field ${name}`)));
  });
  await conn.run(`CREATE OR REPLACE TEMP TABLE "_stg_state" (${cols.map(([n, t]) => `${ident(n)} ${t}`).join(', ')})`);
  await appendColumns(conn, '_stg_state', cols.map(([, t]) => (t === 'VARCHAR' ? VARCHAR : t === 'TIMESTAMP' ? TIMESTAMP : t === 'BIGINT' ? BIGINT : INTEGER)), columns, state.length);
  await conn.run(
    `CREATE OR REPLACE TEMP TABLE "_new_state" AS
     SELECT n."stream", n."series_key", n."unit", greatest(n."watermark", o."watermark") AS "watermark",
            COALESCE(o."rows_loaded", 0) + n."rows_loaded" AS "rows_loaded",
            $1 AS "last_run_id", $2 AS "updated_at"
     FROM (SELECT "stream", "series_key", "unit", arg_max("watermark", "_seq") AS "watermark", sum("rows_loaded")::BIGINT AS "rows_loaded"
           FROM "_stg_state" GROUP BY ALL) n
     LEFT JOIN "_etl_series_state" o ON o."stream" = n."stream" AND o."series_key" = n."series_key" AND o."unit" = n."unit"`,
    [runId, toDuckDBValue('TIMESTAMP', loadedAt, 'batch loadedAt')],
    [VARCHAR, TIMESTAMP],
  );
  await conn.run(
    `DELETE FROM "_etl_series_state" o USING "_new_state" n WHERE o."stream" = n."stream" AND o."series_key" = n."series_key" AND o."unit" = n."unit"`,
  );
  await conn.run(`INSERT INTO "_etl_series_state" SELECT * FROM "_new_state"`);
  await conn.run(`DROP TABLE "_stg_state"; DROP TABLE "_new_state"`);
}

/** Apply hole changes in order: a later change of the same unit wins; a stored hole keeps its first run id. */
export async function applyHoleUpdates(conn: DuckDBConnection, runId: string, at: Date, holes: readonly HoleUpdate[]): Promise<void> {
  const when = toDuckDBValue('TIMESTAMP', at, 'hole update time');
  for (const h of holes) {
    const key = [h.stream, h.seriesKey, h.unit, toDuckDBValue('TIMESTAMP', h.unitStart, `hole of ${h.stream} ${h.seriesKey}`)];
    const keyTypes = [VARCHAR, VARCHAR, VARCHAR, TIMESTAMP];
    const where = `"stream" = $1 AND "series_key" = $2 AND "unit" = $3 AND "unit_start" = $4`;
    const previous = (await conn.runAndReadAll(`SELECT "first_run_id" FROM "_etl_holes" WHERE ${where}`, key, keyTypes)).getRows();
    await conn.run(`DELETE FROM "_etl_holes" WHERE ${where}`, key, keyTypes);
    if (h.status === 'filled') continue;
    await conn.run(
      `INSERT INTO "_etl_holes" VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [...key, h.status, h.attempts, h.reason, (previous[0]?.[0] as string | undefined) ?? runId, runId, when],
      [...keyTypes, VARCHAR, INTEGER, VARCHAR, VARCHAR, VARCHAR, TIMESTAMP],
    );
  }
}
