// How far a backfill that spans nights has come: per series stream, the days its series have loaded of the days the
// run asked (from the first day to the last complete one). Recorded in `_etl_backfill` for `status` and the report.
import { BackfillStore } from '../load/backfill-store.js';
import type { BackfillProgress } from '../load/backfill-store.js';
import type { Warehouse } from '../load/warehouse.js';
import type { Plan } from './plan.js';

export type { BackfillProgress } from '../load/backfill-store.js';

const DAY_MS = 86_400_000;

/** The progress of every series stream of the plan, from the watermarks stored now. */
export async function backfillProgress(wh: Warehouse, plan: Plan, fromMs: number): Promise<BackfillProgress[]> {
  const watermarks = new Map((await wh.readSeriesState()).map((s) => [`${s.stream}\u0000${s.seriesKey}`, s.watermark.getTime()]));
  const byStream = new Map<string, { series: number; complete: number; askedMs: number; coveredMs: number }>();
  for (const sp of plan.series) {
    const endMs = sp.cursor.completeEndMs;
    const mark = watermarks.get(`${sp.stream.name}\u0000${sp.seriesKey}`);
    const p = byStream.get(sp.stream.name) ?? { series: 0, complete: 0, askedMs: 0, coveredMs: 0 };
    p.series++;
    if (mark !== undefined && mark >= endMs) p.complete++;
    p.askedMs = Math.max(p.askedMs, endMs - fromMs);
    p.coveredMs += mark === undefined ? 0 : Math.max(0, Math.min(mark, endMs) - fromMs);
    byStream.set(sp.stream.name, p);
  }
  return [...byStream].map(([stream, p]) => ({
    stream, series: p.series, seriesComplete: p.complete,
    daysAsked: Math.max(0, Math.round(p.askedMs / DAY_MS)),
    daysCovered: p.series === p.complete ? Math.max(0, Math.round(p.askedMs / DAY_MS)) : Math.floor(p.coveredMs / p.series / DAY_MS),
  }));
}

/** Replaces the recorded progress of these streams. */
export async function recordBackfill(wh: Warehouse, runId: string, progress: readonly BackfillProgress[]): Promise<void> {
  await new BackfillStore(wh).replace(runId, progress);
}
