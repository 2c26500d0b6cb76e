// The series state and holes a commit writes, in the transaction of the rows they describe (Warehouse.prepareCommit):
// the updates a pipeline batch carries and the SQL that applies them. SeriesStateStore (series-state-store.ts) reads them.
import type { DuckDBValue } from '@duckdb/node-api';
import { FatalError } from '../errors.js';
import { stagedAppend, type StagedAppend } from './append-columns.js';
import { sqlTimestamp, toDuckDBValue } from './duckdb-values.js';
import { sqlString } from './table-definition.js';

/** Series key and unit of the state row of a stream that is read whole (a list, objects by id): one row per stream. */
export const SNAPSHOT = 'snapshot';

/** The watermark of one series after a batch. */
export interface SeriesStateUpdate {
  stream: string;
  seriesKey: string;
  unit: string;
  /** Start of the first unit not yet final: the next run fetches from here. */
  watermark: Date;
  /**
   * Start of the first unit loaded: every unit in [lowWatermark, watermark) is loaded or a recorded hole. Absent keeps the
   * stored one (never moves it later); a series whose state predates it keeps none, meaning loaded from the start_date.
   */
  lowWatermark?: Date;
  /** Rows the batch loaded for this series; added to the stored total. */
  rowsLoaded: number;
  /** The offset the series' daily points were written with (`+02:00`); absent keeps the stored one. */
  utcOffset?: string;
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

/**
 * Widen the series' loaded ranges by a batch: the high watermark never moves backwards and the low one never forwards
 * (last entry per series wins within the batch, then the stored value bounds it); rows_loaded adds up.
 */
export function prepareSeriesState(
  runId: string,
  loadedAt: Date,
  state: readonly SeriesStateUpdate[],
): { appends: StagedAppend[]; sql: string } {
  if (state.length === 0) return { appends: [], sql: '' };
  const cols: [string, 'VARCHAR' | 'TIMESTAMP' | 'BIGINT' | 'INTEGER'][] = [
    ['_seq', 'INTEGER'],
    ['stream', 'VARCHAR'],
    ['series_key', 'VARCHAR'],
    ['unit', 'VARCHAR'],
    ['watermark', 'TIMESTAMP'],
    ['rows_loaded', 'BIGINT'],
    ['utc_offset', 'VARCHAR'],
    ['low_watermark', 'TIMESTAMP'],
  ];
  const columns = cols.map(() => [] as DuckDBValue[]);
  state.forEach((s, i) => {
    const at = `state entry ${i} of run ${runId}`;
    for (const [name, value] of [
      ['stream', s.stream],
      ['seriesKey', s.seriesKey],
      ['unit', s.unit],
    ] as const) {
      if (typeof value !== 'string' || value === '')
        throw new FatalError(`${at}: ${name} must be a non-empty string, got ${JSON.stringify(value)}`);
    }
    const values = [
      i,
      s.stream,
      s.seriesKey,
      s.unit,
      s.watermark,
      s.rowsLoaded,
      s.utcOffset ?? null,
      s.lowWatermark ?? null,
    ];
    cols.forEach(([name, type], c) => columns[c]!.push(toDuckDBValue(type, values[c], `${at} field ${name}`)));
  });
  const append = stagedAppend('_stg_state', cols, columns, state.length);
  const sql = [
    `CREATE OR REPLACE TEMP TABLE "_new_state" AS
     SELECT n."stream", n."series_key", n."unit", greatest(n."watermark", o."watermark") AS "watermark",
            COALESCE(o."rows_loaded", 0) + n."rows_loaded" AS "rows_loaded",
            ${sqlString(runId)} AS "last_run_id", ${sqlTimestamp(loadedAt, 'batch loadedAt')} AS "updated_at",
            COALESCE(n."utc_offset", o."utc_offset") AS "utc_offset",
            CASE WHEN o."stream" IS NOT NULL AND o."low_watermark" IS NULL THEN NULL ELSE least(n."low_watermark", o."low_watermark") END AS "low_watermark"
     FROM (SELECT "stream", "series_key", "unit", arg_max("watermark", "_seq") AS "watermark", sum("rows_loaded")::BIGINT AS "rows_loaded",
                  arg_max("utc_offset", "_seq") FILTER (WHERE "utc_offset" IS NOT NULL) AS "utc_offset",
                  min("low_watermark") AS "low_watermark"
           FROM "_stg_state" GROUP BY "stream", "series_key", "unit") n
     LEFT JOIN "_etl_series_state" o ON o."stream" = n."stream" AND o."series_key" = n."series_key" AND o."unit" = n."unit"`,
    `DELETE FROM "_etl_series_state" o USING "_new_state" n WHERE o."stream" = n."stream" AND o."series_key" = n."series_key" AND o."unit" = n."unit"`,
    `INSERT INTO "_etl_series_state" BY NAME SELECT * FROM "_new_state"`,
    `DROP TABLE "_stg_state"`,
    `DROP TABLE "_new_state"`,
  ];
  return { appends: [append], sql: sql.join(';\n') };
}

/**
 * Apply hole changes as if one at a time, in order: the last change of a unit decides ('filled' removes it), and a stored
 * hole keeps its first run id unless an earlier change of this batch removed it.
 */
export function prepareHoleUpdates(
  runId: string,
  at: Date,
  holes: readonly HoleUpdate[],
): { appends: StagedAppend[]; sql: string } {
  if (holes.length === 0) return { appends: [], sql: '' };
  const cols: [string, 'VARCHAR' | 'TIMESTAMP' | 'INTEGER'][] = [
    ['_seq', 'INTEGER'],
    ['stream', 'VARCHAR'],
    ['series_key', 'VARCHAR'],
    ['unit', 'VARCHAR'],
    ['unit_start', 'TIMESTAMP'],
    ['status', 'VARCHAR'],
    ['attempts', 'INTEGER'],
    ['reason', 'VARCHAR'],
  ];
  const columns = cols.map(() => [] as DuckDBValue[]);
  holes.forEach((h, i) => {
    const where = `hole of ${h.stream} ${h.seriesKey}`;
    const values = [i, h.stream, h.seriesKey, h.unit, h.unitStart, h.status, h.attempts, h.reason];
    cols.forEach(([name, type], c) => columns[c]!.push(toDuckDBValue(type, values[c], `${where} field ${name}`)));
  });
  const append = stagedAppend('_stg_holes', cols, columns, holes.length);
  const key = ['stream', 'series_key', 'unit', 'unit_start'];
  const same = (a: string, b: string): string => key.map((k) => `${a}."${k}" = ${b}."${k}"`).join(' AND ');
  const sql = [
    `CREATE OR REPLACE TEMP TABLE "_new_holes" AS
     SELECT n.*, EXISTS (SELECT 1 FROM "_stg_holes" f WHERE ${same('f', 'n')} AND f."status" = 'filled' AND f."_seq" < n."_seq") AS "_reopened"
     FROM "_stg_holes" n QUALIFY row_number() OVER (PARTITION BY ${key.map((k) => `n."${k}"`).join(', ')} ORDER BY n."_seq" DESC) = 1`,
    `CREATE OR REPLACE TEMP TABLE "_new_holes_first" AS
     SELECT n.*, CASE WHEN n."_reopened" THEN NULL ELSE o."first_run_id" END AS "_first"
     FROM "_new_holes" n LEFT JOIN "_etl_holes" o ON ${same('o', 'n')}`,
    `DELETE FROM "_etl_holes" o USING "_new_holes" n WHERE ${same('o', 'n')}`,
    `INSERT INTO "_etl_holes"
     SELECT "stream", "series_key", "unit", "unit_start", "status", "attempts", "reason", COALESCE("_first", ${sqlString(runId)}),
            ${sqlString(runId)}, ${sqlTimestamp(at, 'hole update time')}
     FROM "_new_holes_first" WHERE "status" <> 'filled'`,
    `DROP TABLE "_stg_holes"`,
    `DROP TABLE "_new_holes"`,
    `DROP TABLE "_new_holes_first"`,
  ];
  return { appends: [append], sql: sql.join(';\n') };
}
