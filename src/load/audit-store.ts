// The audit tables of sql/005-audit.sql: reconciliation results (`_etl_reconciliation`) and restated values
// (`_etl_restatements`, written by the merge) — what the run records and what `status` reads back.
import { ident } from './table-definition.js';

/** Runs SQL with parameters and returns plain rows: Warehouse.query. */
type Query = (sql: string, params?: readonly unknown[]) => Promise<Record<string, unknown>[]>;

/** 'unavailable': the checking endpoint refused or failed; the check is an audit, so the data stays and the run goes on. */
export type ReconciliationStatus = 'match' | 'mismatch' | 'incomplete' | 'unavailable';

/** One metric of one reconciled series over one window. */
export interface ReconciliationRow {
  stream: string;
  seriesKey: string;
  /** Inclusive start, exclusive end (UTC). */
  windowStart: Date;
  windowEnd: Date;
  metric: string;
  /** Null when the check was unavailable. */
  expected: number | null;
  actual: number;
  status: ReconciliationStatus;
}

export async function recordReconciliation(query: Query, runId: string, checkedAt: Date, rows: readonly ReconciliationRow[]): Promise<void> {
  // A statement per 100 rows, not per row: a run reconciles every Canvas, four metrics each.
  for (let from = 0; from < rows.length; from += 100) {
    const part = rows.slice(from, from + 100);
    const tuples = part.map((_, i) => `(${Array.from({ length: 10 }, (_v, k) => (k === 5 || k === 6 ? `CAST($${i * 10 + k + 1} AS DOUBLE)` : `$${i * 10 + k + 1}`)).join(', ')})`);
    await query(
      `INSERT INTO "_etl_reconciliation" VALUES ${tuples.join(', ')}`,
      part.flatMap((r) => [r.stream, r.seriesKey, r.windowStart, r.windowEnd, r.metric, r.expected, r.actual, r.status, runId, checkedAt]),
    );
  }
}

/** What is summed: `metrics` (metric → column) of `table` over [start, end) of `timeColumn`. */
export interface TotalsQuery {
  table: string;
  timeColumn: string;
  metrics: Readonly<Record<string, string>>;
  start: Date;
  end: Date;
}

/**
 * Sums of `metrics` over the stored rows of each series (its dimension column → value) in [start, end), and the units
 * stored: one query for all of them (a query per Canvas was most of a nightly run's reconciliation). `series` name the
 * same dimension columns, one canvas_id each say; the answer is in their order.
 */
export async function storedTotalsOf(
  query: Query,
  s: TotalsQuery,
  series: readonly Readonly<Record<string, string>>[],
): Promise<{ totals: Record<string, number>; units: number }[]> {
  const dimCols = Object.keys(series[0] ?? {});
  const keyOf = (dims: Readonly<Record<string, string>>): string => dimCols.map((col) => dims[col] ?? '').join('\u0000');
  const keySql = dimCols.length > 0 ? `concat_ws(chr(0), ${dimCols.map((col) => ident(col)).join(', ')})` : `''`;
  const where = [`CAST(${ident(s.timeColumn)} AS TIMESTAMP) >= $1`, `CAST(${ident(s.timeColumn)} AS TIMESTAMP) < $2`, `list_contains($3, ${keySql})`].join(' AND ');
  const sums = Object.entries(s.metrics).map(([metric, col]) => `CAST(coalesce(sum(${ident(col)}), 0) AS DOUBLE) AS ${ident(metric)}`);
  const rows = await query(
    `SELECT ${keySql} AS "_key", count(*) AS "_units", ${sums.join(', ')} FROM ${ident(s.table)} WHERE ${where} GROUP BY ALL`,
    [s.start, s.end, series.map(keyOf)],
  );
  const byKey = new Map(rows.map((row) => [String(row['_key']), row]));
  return series.map((dims) => {
    const row = byKey.get(keyOf(dims));
    const totals: Record<string, number> = {};
    for (const metric of Object.keys(s.metrics)) totals[metric] = Number(row?.[metric] ?? 0);
    return { totals, units: Number(row?.['_units'] ?? 0) };
  });
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
