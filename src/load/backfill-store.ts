// `_etl_backfill`: how far a backfill that spans nights has come, per series stream (pipeline/backfill-progress.ts
// computes it), for `status` and the report. The SQL that writes and reads the table lives here.
import { hasTable } from './stored-tables.js';
import type { Warehouse } from './warehouse.js';

export interface BackfillProgress {
  stream: string;
  series: number;
  /** Series whose watermark reached the last complete unit before --until. */
  seriesComplete: number;
  /** Days from the first day asked to the last complete day. */
  daysAsked: number;
  /** Days loaded, averaged over the stream's series (a series without a watermark counts 0). */
  daysCovered: number;
}

export class BackfillStore {
  readonly #wh: Warehouse;

  constructor(warehouse: Warehouse) {
    this.#wh = warehouse;
  }

  /** Replaces the recorded progress of these streams. */
  async replace(runId: string, progress: readonly BackfillProgress[]): Promise<void> {
    if (progress.length === 0) return;
    await this.#wh.query(`DELETE FROM "_etl_backfill" WHERE list_contains($1, "stream")`, [progress.map((p) => p.stream)]);
    const at = new Date();
    for (const p of progress) {
      await this.#wh.query(`INSERT INTO "_etl_backfill" VALUES ($1, $2, $3, $4, $5, $6, $7)`, [p.stream, p.series, p.seriesComplete, p.daysAsked, p.daysCovered, runId, at]);
    }
  }

  /** The streams some of whose series have not reached the last complete unit; none for a database written before the table existed. */
  async unfinished(): Promise<Record<string, unknown>[]> {
    if (!(await hasTable(this.#wh, '_etl_backfill'))) return [];
    return this.#wh.query('SELECT "stream", "series", "series_complete", "days_asked", "days_covered" FROM "_etl_backfill" WHERE "series_complete" < "series" ORDER BY "stream"');
  }
}
