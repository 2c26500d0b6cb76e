// Synthetic purchase-quantity rows for the load benchmarks, made page by page as the pipeline receives them (one
// window of 100 hourly units of one series at a time), so nothing but the page in hand is ever held.

/** Units per page: one series window. */
export const PAGE_ROWS = 100;
const HOUR_MS = 3_600_000;
const START_MS = Date.UTC(2020, 0, 1);
/** Series are `app_a × product_p`; each series holds this many hours before the next series starts. */
const HOURS_PER_SERIES = 20_000;

export type PurchaseRow = { app_id: string; product: string; unit: string; time: Date; purchase_quantity: number };

/** Row `i` of the synthetic table: unique keys, deterministic values. */
export function syntheticRow(i: number): PurchaseRow {
  const series = Math.floor(i / HOURS_PER_SERIES);
  const hour = i % HOURS_PER_SERIES;
  return {
    app_id: `app_${series % 97}`,
    product: `product_${Math.floor(series / 97)}`,
    unit: 'hour',
    time: new Date(START_MS + hour * HOUR_MS),
    purchase_quantity: (i * 7919) % 1000,
  };
}

/** Pages of `PAGE_ROWS` rows covering rows [0, total). */
export function* syntheticPages(total: number): Generator<PurchaseRow[]> {
  for (let start = 0; start < total; start += PAGE_ROWS) {
    const end = Math.min(total, start + PAGE_ROWS);
    const page: PurchaseRow[] = [];
    for (let i = start; i < end; i++) page.push(syntheticRow(i));
    yield page;
  }
}

/** The same row as one NDJSON line (what DuckDB's read_json reads). */
export function ndjsonLine(row: PurchaseRow): string {
  return `{"app_id":"${row.app_id}","product":"${row.product}","unit":"${row.unit}","time":"${row.time.toISOString()}","purchase_quantity":${row.purchase_quantity}}\n`;
}
