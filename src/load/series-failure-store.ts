// `_etl_series_failures`: the series that could not complete in the last run of their stream (stream, series, id,
// error, whether retrying can help), for `status`. The SQL that writes and reads the table lives here.
import { hasTable } from './stored-tables.js';
import type { Warehouse } from './warehouse.js';

/** A row of the table: one failed series as the run settles it (pipeline/stream-failure.ts). */
export interface FailedSeries {
  stream: string;
  series: string;
  id?: string;
  error: string;
  retriable: boolean;
}

export class SeriesFailureStore {
  readonly #wh: Warehouse;

  constructor(warehouse: Warehouse) {
    this.#wh = warehouse;
  }

  /** Replace the failures of `streams` (the streams a run ran; other streams keep theirs) with `failures`. */
  async replace(
    streams: readonly string[],
    runId: string,
    finishedAt: Date,
    failures: readonly FailedSeries[],
  ): Promise<void> {
    await this.#wh.query(`DELETE FROM "_etl_series_failures" WHERE list_contains($1, "stream")`, [[...streams]]);
    for (const f of failures) {
      await this.#wh.query(`INSERT INTO "_etl_series_failures" VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
        f.stream,
        f.series,
        f.id ?? null,
        f.error,
        f.retriable,
        runId,
        finishedAt,
      ]);
    }
  }

  /** Every recorded failure, by stream and series; none for a database written before the table existed. */
  async list(): Promise<Record<string, unknown>[]> {
    if (!(await hasTable(this.#wh, '_etl_series_failures'))) return [];
    return this.#wh.query(
      'SELECT "stream", "series_key", "object_id", "retriable", "error", "run_id" FROM "_etl_series_failures" ORDER BY "stream", "series_key"',
    );
  }
}
