// Reconciliation after the series of a run are loaded: per check declared by a stream (`reconcile: true` on
// canvas_summary), one request to the other endpoint over the look-back window, its totals compared with the sum of the
// stored daily rows. Every comparison is recorded; a mismatch is a warning of the run.
import type { DateTime } from 'luxon';
import type { ApiClient } from '../api/api-client.js';
import { seriesKey } from '../extract/incremental-cursor.js';
import type { ReconciliationRow } from '../load/audit-store.js';
import { recordReconciliation, storedTotals } from '../load/audit-store.js';
import type { Warehouse } from '../load/warehouse.js';
import { addUnits, floorUnit } from '../time/utc-time.js';
import type { ReconciliationPlan } from './plan.js';
import type { RunWarning } from './run-events.js';

/** Two totals are equal when they differ by less than half a cent (revenue is a float of cents). */
const TOLERANCE = 0.005;

/**
 * The window a run reconciles: the last `lookbackDays` complete days before --until (at least one, at most the `maxDays`
 * one request of the checking endpoint may span), never before the pipeline's first day. Undefined when no complete
 * day is covered.
 */
export function reconciliationWindow(until: DateTime, from: DateTime, lookbackDays: number, maxDays: number): { start: DateTime; end: DateTime } | undefined {
  const end = floorUnit(until, 'day');
  const days = Math.min(Math.max(lookbackDays, 1), maxDays);
  const earliest = floorUnit(from, 'day');
  const rewound = addUnits(end, -days, 'day');
  const start = rewound.toMillis() > earliest.toMillis() ? rewound : earliest;
  return start.toMillis() < end.toMillis() ? { start, end } : undefined;
}

export async function runReconciliations(
  plans: readonly ReconciliationPlan[],
  ctx: { client: ApiClient; wh: Warehouse; runId: string; until: DateTime; from: DateTime; lookbackDays: number; warn(w: RunWarning): void },
): Promise<ReconciliationRow[]> {
  const query = (sql: string, params?: readonly unknown[]) => ctx.wh.query(sql, params);
  const all: ReconciliationRow[] = [];
  for (const { stream, checks } of plans) {
    for (const check of checks) {
      const window = reconciliationWindow(ctx.until, ctx.from, ctx.lookbackDays, check.maxDays);
      if (!window) continue;
      const days = Math.round(window.end.diff(window.start, 'days').days);
      const expected = await check.fetch(ctx.client, window.start, window.end);
      const stored = await storedTotals(query, {
        table: check.table, timeColumn: check.timeColumn, dims: check.dims, metrics: check.metrics, start: window.start.toJSDate(), end: window.end.toJSDate(),
      });
      const key = seriesKey('day', check.dims);
      const rows: ReconciliationRow[] = Object.keys(check.metrics).map((metric) => {
        const exp = expected[metric] ?? Number.NaN;
        const act = stored.totals[metric] ?? 0;
        const status = stored.units < days ? 'incomplete' : Math.abs(exp - act) < TOLERANCE ? 'match' : 'mismatch';
        return { stream: stream.name, seriesKey: key, windowStart: window.start.toJSDate(), windowEnd: window.end.toJSDate(), metric, expected: exp, actual: act, status };
      });
      await recordReconciliation(query, ctx.runId, new Date(), rows);
      const bad = rows.filter((r) => r.status === 'mismatch');
      if (bad.length > 0) {
        ctx.warn({
          code: 'reconciliation_mismatch', stream: stream.name,
          message: `${stream.name} ${key}: ${check.endpoint.path} over ${window.start.toISODate()} to ${window.end.minus({ days: 1 }).toISODate()} disagrees with the sum of the stored days: ${bad.map((r) => `${r.metric} ${r.expected} vs ${r.actual}`).join(', ')} (recorded in _etl_reconciliation; \`engage-etl status\` lists it)`,
        });
      }
      all.push(...rows);
    }
  }
  return all;
}
