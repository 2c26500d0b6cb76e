// Reconciliation after the series of a run are loaded: per check declared by a stream (`reconcile: true` on
// canvas_summary), one request to the other endpoint over the look-back window, its totals compared with the sum of the
// stored daily rows. Every comparison is recorded; a mismatch is a warning of the run.
import type { DateTime } from 'luxon';
import type { ApiClient } from '../api/api-client.js';
import { seriesKey } from '../extract/incremental-cursor.js';
import type { ReconciliationRow } from '../load/audit-store.js';
import { recordReconciliation, storedTotalsOf } from '../load/audit-store.js';
import { MONEY, MONEY_SCALE } from '../load/table-definition.js';
import { tableSpec } from '../load/table-specs.js';
import type { Warehouse } from '../load/warehouse.js';
import { addUnits, floorUnit } from '../time/utc-time.js';
import type { Reconciliation } from '../streams/stream-declaration.js';
import type { ReconciliationPlan } from './plan.js';
import type { RunWarning } from './run-events.js';

/**
 * Whether two totals of `column` of `table` are the same amount: money to the cent (the platform's float of cents is
 * rounded to its cent exactly as the load rounds it, and the stored sum is an exact DECIMAL), a count exactly.
 */
export function sameTotal(table: string, column: string, expected: number, actual: number): boolean {
  const type = tableSpec(table).columns.find((c) => c.name === column)?.type;
  const factor = type === MONEY ? 10 ** MONEY_SCALE : 1;
  return Math.round(expected * factor) === Math.round(actual * factor);
}

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
    const todo = checks.flatMap((check) => {
      const window = reconciliationWindow(ctx.until, ctx.from, ctx.lookbackDays, check.maxDays);
      return window ? [{ check, window, days: Math.round(window.end.diff(window.start, 'days').days) }] : [];
    });
    // Every check's request at once, paced by the client like any other (one after another, a nightly run waited on 137
    // round trips); a failure is the first failed check's, once all have answered.
    const answers = await Promise.allSettled(todo.map(({ check, window }) => check.fetch(ctx.client, window.start, window.end)));
    const failed = answers.find((a): a is PromiseRejectedResult => a.status === 'rejected');
    if (failed) throw failed.reason;
    const stored = await storedTotalsByGroup(query, todo.map(({ check, window }) => ({ check, start: window.start.toJSDate(), end: window.end.toJSDate() })));
    const rows: ReconciliationRow[] = [];
    todo.forEach(({ check, window, days }, i) => {
      const expected = (answers[i] as PromiseFulfilledResult<Record<string, number>>).value;
      const { totals, units } = stored[i]!;
      const key = seriesKey('day', check.dims);
      const checkRows: ReconciliationRow[] = Object.entries(check.metrics).map(([metric, column]) => {
        const exp = expected[metric] ?? Number.NaN;
        const act = totals[metric] ?? 0;
        const status = units < days ? 'incomplete' : sameTotal(check.table, column, exp, act) ? 'match' : 'mismatch';
        return { stream: stream.name, seriesKey: key, windowStart: window.start.toJSDate(), windowEnd: window.end.toJSDate(), metric, expected: exp, actual: act, status };
      });
      const bad = checkRows.filter((r) => r.status === 'mismatch');
      if (bad.length > 0) {
        ctx.warn({
          code: 'reconciliation_mismatch', stream: stream.name,
          message: `${stream.name} ${key}: ${check.endpoint.path} over ${window.start.toISODate()} to ${window.end.minus({ days: 1 }).toISODate()} disagrees with the sum of the stored days: ${bad.map((r) => `${r.metric} ${r.expected} vs ${r.actual}`).join(', ')} (recorded in _etl_reconciliation; \`engage-etl status\` lists it)`,
        });
      }
      rows.push(...checkRows);
    });
    await recordReconciliation(query, ctx.runId, new Date(), rows);
    all.push(...rows);
  }
  return all;
}

/** The stored totals of each check, one query per group of checks that sum the same columns over the same window. */
async function storedTotalsByGroup(
  query: (sql: string, params?: readonly unknown[]) => Promise<Record<string, unknown>[]>,
  items: readonly { check: Reconciliation; start: Date; end: Date }[],
): Promise<{ totals: Record<string, number>; units: number }[]> {
  const out: { totals: Record<string, number>; units: number }[] = new Array(items.length);
  const groups = new Map<string, number[]>();
  items.forEach(({ check, start, end }, i) => {
    const group = JSON.stringify([check.table, check.timeColumn, Object.keys(check.dims), check.metrics, start.getTime(), end.getTime()]);
    groups.set(group, [...(groups.get(group) ?? []), i]);
  });
  for (const indexes of groups.values()) {
    const first = items[indexes[0]!]!;
    const totals = await storedTotalsOf(query, { table: first.check.table, timeColumn: first.check.timeColumn, metrics: first.check.metrics, start: first.start, end: first.end }, indexes.map((i) => items[i]!.check.dims));
    indexes.forEach((i, k) => (out[i] = totals[k]!));
  }
  return out;
}
