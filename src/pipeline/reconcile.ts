// Reconciliation after the series of a run are loaded: per check declared by a stream (`reconcile: true` on
// canvas_summary), one request to the other endpoint over the look-back window, its totals compared with the sum of the
// stored daily rows. Every comparison is recorded; a mismatch is a warning of the run. It is an audit: a check the
// endpoint refuses or fails is recorded `unavailable` with one warning per stream, and never costs the data.
import type { DateTime } from 'luxon';
import type { ApiClient } from '../api/api-client.js';
import { seriesKey } from '../extract/incremental-cursor.js';
import type { ReconciliationRow } from '../load/audit-store.js';
import { recordReconciliation, storedTotalsOf } from '../load/audit-store.js';
import { MONEY, MONEY_SCALE } from '../load/table-definition.js';
import { tableSpec } from '../streams/table-specs.js';
import type { Warehouse } from '../load/warehouse.js';
import { failureScope } from './stream-failure.js';
import type { Reconciliation } from '../streams/stream-declaration.js';
import type { ReconciliationPlan } from './plan.js';
import { reconciliationWindow } from './reconciliation-window.js';
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

export async function runReconciliations(
  plans: readonly ReconciliationPlan[],
  ctx: { client: ApiClient; wh: Warehouse; runId: string; until: DateTime; from: DateTime; warn(w: RunWarning): void },
): Promise<ReconciliationRow[]> {
  const all: ReconciliationRow[] = [];
  for (const { stream, checks, lookbackDays } of plans) {
    const todo = checks.flatMap((check) => {
      const window = reconciliationWindow(ctx.until, ctx.from, lookbackDays, check.maxDays);
      return window ? [{ check, window, days: Math.round(window.end.diff(window.start, 'days').days) }] : [];
    });
    // Every check's request at once, paced by the client like any other (one after another, a nightly run waited on 137
    // round trips). Only what concerns the whole run (a 401, no answer at all) ends it.
    const answers = await Promise.allSettled(
      todo.map(({ check, window }) => check.fetch(ctx.client, window.start, window.end)),
    );
    const failed = answers.filter((a): a is PromiseRejectedResult => a.status === 'rejected');
    const fatal = failed.find((a) => failureScope(a.reason) === 'run');
    if (fatal) throw fatal.reason;
    if (failed.length > 0) {
      const first = failed[0]!.reason;
      ctx.warn({
        code: 'reconciliation_unavailable',
        stream: stream.name,
        message: `${stream.name}: ${failed.length} of ${todo.length} reconciliation check(s) could not be made (e.g. ${first instanceof Error ? first.message : String(first)}); recorded as unavailable in _etl_reconciliation, the data is kept`,
      });
    }
    const stored = await storedTotalsByGroup(
      ctx.wh,
      todo.map(({ check, window }) => ({ check, start: window.start.toJSDate(), end: window.end.toJSDate() })),
    );
    const rows: ReconciliationRow[] = [];
    todo.forEach(({ check, window, days }, i) => {
      const answer = answers[i]!;
      const expected = answer.status === 'fulfilled' ? answer.value : undefined;
      const { totals, units } = stored[i]!;
      const key = seriesKey('day', check.dims);
      const checkRows: ReconciliationRow[] = Object.entries(check.metrics).map(([metric, column]) => {
        const act = totals[metric] ?? 0;
        if (expected === undefined)
          return {
            stream: stream.name,
            seriesKey: key,
            windowStart: window.start.toJSDate(),
            windowEnd: window.end.toJSDate(),
            metric,
            expected: null,
            actual: act,
            status: 'unavailable',
          };
        const exp = expected[metric] ?? Number.NaN;
        const status = units < days ? 'incomplete' : sameTotal(check.table, column, exp, act) ? 'match' : 'mismatch';
        return {
          stream: stream.name,
          seriesKey: key,
          windowStart: window.start.toJSDate(),
          windowEnd: window.end.toJSDate(),
          metric,
          expected: exp,
          actual: act,
          status,
        };
      });
      const bad = checkRows.filter((r) => r.status === 'mismatch');
      if (bad.length > 0) {
        ctx.warn({
          code: 'reconciliation_mismatch',
          stream: stream.name,
          message: `${stream.name} ${key}: ${check.endpoint.path} over ${window.start.toISODate()} to ${window.end.minus({ days: 1 }).toISODate()} disagrees with the sum of the stored days: ${bad.map((r) => `${r.metric} ${r.expected} vs ${r.actual}`).join(', ')} (recorded in _etl_reconciliation; \`engage-etl status\` lists it)`,
        });
      }
      rows.push(...checkRows);
    });
    await recordReconciliation(ctx.wh, ctx.runId, new Date(), rows);
    all.push(...rows);
  }
  return all;
}

/** The stored totals of each check, one query per group of checks that sum the same columns over the same window. */
async function storedTotalsByGroup(
  wh: Warehouse,
  items: readonly { check: Reconciliation; start: Date; end: Date }[],
): Promise<{ totals: Record<string, number>; units: number }[]> {
  const out: { totals: Record<string, number>; units: number }[] = new Array(items.length);
  const groups = new Map<string, number[]>();
  items.forEach(({ check, start, end }, i) => {
    const group = JSON.stringify([
      check.table,
      check.timeColumn,
      Object.keys(check.dims),
      check.metrics,
      start.getTime(),
      end.getTime(),
    ]);
    groups.set(group, [...(groups.get(group) ?? []), i]);
  });
  for (const indexes of groups.values()) {
    const first = items[indexes[0]!]!;
    const totals = await storedTotalsOf(
      wh,
      {
        table: first.check.table,
        timeColumn: first.check.timeColumn,
        metrics: first.check.metrics,
        start: first.start,
        end: first.end,
      },
      indexes.map((i) => items[i]!.check.dims),
    );
    indexes.forEach((i, k) => (out[i] = totals[k]!));
  }
  return out;
}

/**
 * The reconcile phase of a run: every stream's checks, after its series are loaded. None starts once the time budget is
 * spent (they are counted as not sent: the next run makes them).
 */
export async function reconcileRun(
  plans: readonly ReconciliationPlan[],
  ctx: Parameters<typeof runReconciliations>[1] & { budgetSpent(): boolean },
): Promise<{ rows: ReconciliationRow[]; unsent: number }> {
  const rows: ReconciliationRow[] = [];
  let unsent = 0;
  for (const plan of plans) {
    if (ctx.budgetSpent()) {
      unsent += plan.checks.length;
      continue;
    }
    rows.push(...(await runReconciliations([plan], ctx)));
  }
  return { rows, unsent };
}
