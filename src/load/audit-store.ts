// The audit tables of sql/005-audit.sql: reconciliation results (`_etl_reconciliation`) and restated values
// (`_etl_restatements`, written by the merge) — what the run records and what `status` reads back.
import { ident } from './table-definition.js';

/** Runs SQL with parameters and returns plain rows: Warehouse.query. */
type Query = (sql: string, params?: readonly unknown[]) => Promise<Record<string, unknown>[]>;

export type ReconciliationStatus = 'match' | 'mismatch' | 'incomplete';

/** One metric of one reconciled series over one window. */
export interface ReconciliationRow {
  stream: string;
  seriesKey: string;
  /** Inclusive start, exclusive end (UTC). */
  windowStart: Date;
  windowEnd: Date;
  metric: string;
  expected: number;
  actual: number;
  status: ReconciliationStatus;
}

export async function recordReconciliation(query: Query, runId: string, checkedAt: Date, rows: readonly ReconciliationRow[]): Promise<void> {
  for (const r of rows) {
    await query(
      `INSERT INTO "_etl_reconciliation" VALUES ($1, $2, $3, $4, $5, CAST($6 AS DOUBLE), CAST($7 AS DOUBLE), $8, $9, $10)`,
      [r.stream, r.seriesKey, r.windowStart, r.windowEnd, r.metric, r.expected, r.actual, r.status, runId, checkedAt],
    );
  }
}

/** Sums of `metrics` (metric → column) over the stored rows of one series in [start, end), and the units stored. */
export async function storedTotals(
  query: Query,
  s: { table: string; timeColumn: string; dims: Readonly<Record<string, string>>; metrics: Readonly<Record<string, string>>; start: Date; end: Date },
): Promise<{ totals: Record<string, number>; units: number }> {
  const dims = Object.entries(s.dims);
  const where = [
    `CAST(${ident(s.timeColumn)} AS TIMESTAMP) >= $1`, `CAST(${ident(s.timeColumn)} AS TIMESTAMP) < $2`,
    ...dims.map(([col], i) => `${ident(col)} = $${i + 3}`),
  ].join(' AND ');
  const sums = Object.entries(s.metrics).map(([metric, col]) => `CAST(coalesce(sum(${ident(col)}), 0) AS DOUBLE) AS ${ident(metric)}`);
  const [row] = await query(`SELECT count(*) AS "_units", ${sums.join(', ')} FROM ${ident(s.table)} WHERE ${where}`, [s.start, s.end, ...dims.map(([, v]) => v)]);
  const totals: Record<string, number> = {};
  for (const metric of Object.keys(s.metrics)) totals[metric] = Number(row?.[metric] ?? 0);
  return { totals, units: Number(row?.['_units'] ?? 0) };
}

/** The latest check of every reconciled series and metric, mismatches first. */
export async function latestReconciliation(query: Query): Promise<(ReconciliationRow & { runId: string; checkedAt: Date })[]> {
  const rows = await query(
    `SELECT * FROM "_etl_reconciliation"
     QUALIFY row_number() OVER (PARTITION BY "stream", "series_key", "metric" ORDER BY "checked_at" DESC) = 1
     ORDER BY "status" = 'match', "stream", "series_key", "metric"`,
  );
  return rows.map((r) => ({
    stream: String(r['stream']), seriesKey: String(r['series_key']), windowStart: r['window_start'] as Date, windowEnd: r['window_end'] as Date,
    metric: String(r['metric']), expected: Number(r['expected']), actual: Number(r['actual']), status: r['status'] as ReconciliationStatus,
    runId: String(r['run_id']), checkedAt: r['checked_at'] as Date,
  }));
}

/** Per stream, how many restated values were seen at each age in days. */
export async function restatementsByAge(query: Query): Promise<{ stream: string; ageDays: number; changes: number }[]> {
  const rows = await query(
    `SELECT "stream", "age_days", count(*) AS "changes" FROM "_etl_restatements" GROUP BY ALL ORDER BY "stream", "age_days"`,
  );
  return rows.map((r) => ({ stream: String(r['stream']), ageDays: Number(r['age_days']), changes: Number(r['changes']) }));
}
