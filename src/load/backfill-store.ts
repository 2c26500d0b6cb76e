// `_etl_backfill`: how far a backfill that spans nights has come, per series stream (pipeline/backfill-progress.ts
// computes it), for `status` and the report. The SQL that writes and reads the table lives here.
import type { BackfillOrder } from '../config/pipeline-definition.js';
import { hasTable } from './stored-tables.js';
import type { Warehouse } from './warehouse.js';

export interface BackfillProgress {
  stream: string;
  series: number;
  /** Series whose loaded range reaches from the first day asked to the last complete unit before --until. */
  seriesComplete: number;
  /** Series with a loaded range (rows, or units recorded missing). */
  seriesStarted: number;
  /** Days from the first day asked to the last complete day. */
  daysAsked: number;
  /** Days loaded, averaged over the stream's series (a series without a watermark counts 0). */
  daysCovered: number;
  /**
   * The range every started series holds, as of now: from the latest of their low watermarks to the earliest of their
   * high ones (a backfill newest first reads "loaded back to `loadedFrom`"); null when no series has started.
   */
  loadedFrom: Date | null;
  loadedTo: Date | null;
  /** The order the backfill loads in (the pipeline's backfill_order). */
  order: BackfillOrder;
}

/**
 * A `_etl_backfill` row (SELECT *) as progress: a database written before the range columns existed reads as oldest
 * first with no range known.
 */
export function backfillFromRow(row: Record<string, unknown>): BackfillProgress {
  const date = (v: unknown): Date | null => (v instanceof Date ? v : null);
  return {
    stream: String(row['stream']),
    series: Number(row['series']),
    seriesComplete: Number(row['series_complete']),
    seriesStarted:
      row['series_started'] === null || row['series_started'] === undefined
        ? Number(row['series'])
        : Number(row['series_started']),
    daysAsked: Number(row['days_asked']),
    daysCovered: Number(row['days_covered']),
    loadedFrom: date(row['loaded_from']),
    loadedTo: date(row['loaded_to']),
    order: row['backfill_order'] === 'newest_first' ? 'newest_first' : 'oldest_first',
  };
}

export class BackfillStore {
  readonly #wh: Warehouse;

  constructor(warehouse: Warehouse) {
    this.#wh = warehouse;
  }

  /** Replaces the recorded progress of these streams. */
  async replace(runId: string, progress: readonly BackfillProgress[]): Promise<void> {
    if (progress.length === 0) return;
    await this.#wh.query(`DELETE FROM "_etl_backfill" WHERE list_contains($1, "stream")`, [
      progress.map((p) => p.stream),
    ]);
    const at = new Date();
    for (const p of progress) {
      await this.#wh.query(
        `INSERT INTO "_etl_backfill" ("stream", "series", "series_complete", "days_asked", "days_covered", "run_id", "updated_at", "series_started", "loaded_from", "loaded_to", "backfill_order")
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [
          p.stream,
          p.series,
          p.seriesComplete,
          p.daysAsked,
          p.daysCovered,
          runId,
          at,
          p.seriesStarted,
          p.loadedFrom,
          p.loadedTo,
          p.order,
        ],
      );
    }
  }

  /** The streams some of whose series have not reached the last complete unit; none for a database written before the table existed. */
  async unfinished(): Promise<Record<string, unknown>[]> {
    if (!(await hasTable(this.#wh, '_etl_backfill'))) return [];
    return this.#wh.query('SELECT * FROM "_etl_backfill" WHERE "series_complete" < "series" ORDER BY "stream"');
  }
}
