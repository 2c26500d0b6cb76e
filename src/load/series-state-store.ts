// The incremental state of the series in DuckDB: watermarks (`_etl_series_state`) and holes (`_etl_holes`), as the
// planner, `status`, the run's metrics and the dbt catalog read them, and their reset by a full refresh. A commit writes
// them in the transaction of the rows they describe (series-state-commit.ts).
import { LIST, VARCHAR } from '@duckdb/node-api';
import { toDuckDBValue } from './duckdb-values.js';
import { behindMs } from './series-freshness.js';
import { hasTable } from './stored-tables.js';
import { ident } from './table-definition.js';
import type { Warehouse } from './warehouse.js';

/** A stored series watermark. */
export interface SeriesState {
  stream: string;
  seriesKey: string;
  unit: string;
  watermark: Date;
  /** Start of the first unit loaded (see SeriesStateUpdate.lowWatermark); null for snapshots and state older than it. */
  lowWatermark: Date | null;
  /** Total rows loaded for this series over all runs. */
  rowsLoaded: number;
  lastRunId: string | null;
  updatedAt: Date;
  /** The offset the daily points were last written with; null when never seen (hours, bare dates, an older database). */
  utcOffset: string | null;
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

/** A stored series watermark with the last run that moved it, as `status` shows it. */
export interface StatusRow extends SeriesState {
  lastRunStatus: string | null;
  lastRunFinishedAt: Date | null;
  /** How far behind the series is, in milliseconds: the last unit that could be complete now, minus the watermark (0 when current; see series-freshness.ts). */
  stalenessMs: number;
}

/** A stored series watermark with the --until of the run that last moved it (absent when that run is not logged). */
export type FetchedSeriesState = SeriesState & { fetchedUntil?: Date };

function toSeriesState(row: Record<string, unknown>): SeriesState {
  return {
    stream: row.stream as string,
    seriesKey: row.series_key as string,
    unit: row.unit as string,
    watermark: row.watermark as Date,
    lowWatermark: (row.low_watermark as Date | null | undefined) ?? null,
    rowsLoaded: Number(row.rows_loaded),
    lastRunId: (row.last_run_id as string | null) ?? null,
    updatedAt: row.updated_at as Date,
    utcOffset: (row.utc_offset as string | null | undefined) ?? null,
  };
}

function toHole(row: Record<string, unknown>): Hole {
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

// Every column: a database opened read-only before its first run of this version has no utc_offset yet.
const SERIES_STATE_SQL = `SELECT * FROM "_etl_series_state" ORDER BY "stream", "series_key", "unit"`;

const HOLES_SQL = `SELECT * FROM "_etl_holes" ORDER BY "stream", "series_key", "unit_start"`;

/** `_etl_series_state` and `_etl_holes` of one database. */
export class SeriesStateStore {
  readonly #wh: Warehouse;

  constructor(warehouse: Warehouse) {
    this.#wh = warehouse;
  }

  /** Every stored series watermark, by stream, series and unit. */
  async states(): Promise<SeriesState[]> {
    return (await this.#wh.query(SERIES_STATE_SQL)).map(toSeriesState);
  }

  /** Every stored series watermark with the --until it was fetched at: the planner's look-back starts from it. */
  async statesWithFetchedUntil(): Promise<FetchedSeriesState[]> {
    const rows = await this.#wh.query(
      `SELECT s.*, r."until" AS "_fetched_until" FROM "_etl_series_state" s LEFT JOIN "_etl_runs" r ON r."run_id" = s."last_run_id"
       ORDER BY s."stream", s."series_key", s."unit"`,
    );
    return rows.map((row) => {
      const state = toSeriesState(row);
      const fetchedUntil = row['_fetched_until'];
      return fetchedUntil instanceof Date ? { ...state, fetchedUntil } : state;
    });
  }

  /** Every stored hole (open and confirmed absent), by stream, series and start. */
  async holes(): Promise<Hole[]> {
    return (await this.#wh.query(HOLES_SQL)).map(toHole);
  }

  /**
   * Open holes per stream, counted in SQL: a long backfill's holes are many rows, and only counts are shown. None for a
   * database written before the table existed.
   */
  async openHoleCounts(): Promise<Record<string, number>> {
    if (!(await hasTable(this.#wh, '_etl_holes'))) return {};
    const rows = await this.#wh.query(
      `SELECT "stream", count(*) AS n FROM "_etl_holes" WHERE "status" = 'open' GROUP BY "stream"`,
    );
    return Object.fromEntries(rows.map((r) => [String(r['stream']), Number(r['n'])]));
  }

  /** The units (day, hour) of the series each series stream has loaded, in name order, by stream. */
  async seriesUnits(): Promise<Record<string, string[]>> {
    const rows = await this.#wh.query(
      `SELECT "stream", list(DISTINCT "unit" ORDER BY "unit") AS "units" FROM "_etl_series_state" WHERE "unit" IN ('day', 'hour') GROUP BY "stream"`,
    );
    return Object.fromEntries(rows.map((r) => [String(r['stream']), (r['units'] as unknown[]).map(String)]));
  }

  /** Per series: watermark, last run and its outcome, rows loaded, and staleness (how far behind the last completable unit). */
  async status(now: Date = new Date()): Promise<StatusRow[]> {
    const rows = await this.#wh.query(
      `SELECT s."stream", s."series_key", s."unit", s."watermark", s."rows_loaded", s."last_run_id", s."updated_at",
              r."status" AS "run_status", r."finished_at" AS "run_finished_at"
       FROM "_etl_series_state" s LEFT JOIN "_etl_runs" r ON r."run_id" = s."last_run_id"
       ORDER BY s."stream", s."series_key", s."unit"`,
    );
    return rows.map((row) => {
      const state = toSeriesState(row);
      return {
        ...state,
        lastRunStatus: (row['run_status'] as string | null) ?? null,
        lastRunFinishedAt: (row['run_finished_at'] as Date | null) ?? null,
        stalenessMs: behindMs(state.unit, state.watermark, now),
      };
    });
  }

  /**
   * Forget streams for a full refresh, in one transaction: empty `tables` (Warehouse.emptyTables: their partitions
   * marked dirty so the next export removes their files), and drop the state and holes of `streams`.
   */
  async resetStreams(streams: readonly string[], tables: readonly string[]): Promise<void> {
    await this.#wh.emptyTables(`reset of streams ${streams.join(', ')}`, tables, async (conn) => {
      for (const table of ['_etl_series_state', '_etl_holes']) {
        await conn.run(
          `DELETE FROM ${ident(table)} WHERE list_contains($1, "stream")`,
          [toDuckDBValue('VARCHAR[]', [...streams], 'streams')],
          [LIST(VARCHAR)],
        );
      }
    });
  }
}
