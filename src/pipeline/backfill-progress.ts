// How far a backfill that spans nights has come: per series stream, the days its series have loaded of the days the
// run asked (from the first day to the last complete one), and the range they hold. Recorded in `_etl_backfill` for
// `status` and the report.
import type { BackfillOrder } from '../config/pipeline-definition.js';
import { BackfillStore } from '../load/backfill-store.js';
import type { BackfillProgress } from '../load/backfill-store.js';
import { SeriesStateStore } from '../load/series-state-store.js';
import type { Warehouse } from '../load/warehouse.js';
import type { Plan } from './plan.js';

const DAY_MS = 86_400_000;

/** The progress of every series stream of the plan, from the loaded ranges stored now. */
export async function backfillProgress(
  wh: Warehouse,
  plan: Plan,
  fromMs: number,
  order: BackfillOrder,
): Promise<BackfillProgress[]> {
  const ranges = new Map(
    (await new SeriesStateStore(wh).states()).map((s) => [
      `${s.stream}\u0000${s.seriesKey}`,
      {
        // A series without a low watermark was loaded from the start asked.
        lowMs: Math.max(fromMs, s.lowWatermark?.getTime() ?? fromMs),
        highMs: s.watermark.getTime(),
      },
    ]),
  );
  interface Tally {
    series: number;
    complete: number;
    started: number;
    askedMs: number;
    coveredMs: number;
    fromMs: number;
    toMs: number;
  }
  const byStream = new Map<string, Tally>();
  for (const sp of plan.series) {
    const endMs = sp.cursor.completeEndMs;
    const range = ranges.get(`${sp.stream.name}\u0000${sp.seriesKey}`);
    const p = byStream.get(sp.stream.name) ?? {
      series: 0,
      complete: 0,
      started: 0,
      askedMs: 0,
      coveredMs: 0,
      fromMs: -Infinity,
      toMs: Infinity,
    };
    p.series++;
    p.askedMs = Math.max(p.askedMs, endMs - fromMs);
    if (range !== undefined) {
      const highMs = Math.min(range.highMs, endMs);
      p.started++;
      if (range.highMs >= endMs && range.lowMs <= fromMs) p.complete++;
      p.coveredMs += Math.max(0, highMs - range.lowMs);
      p.fromMs = Math.max(p.fromMs, range.lowMs);
      p.toMs = Math.min(p.toMs, highMs);
    }
    byStream.set(sp.stream.name, p);
  }
  return [...byStream].map(([stream, p]) => ({
    stream,
    series: p.series,
    seriesComplete: p.complete,
    seriesStarted: p.started,
    daysAsked: Math.max(0, Math.round(p.askedMs / DAY_MS)),
    daysCovered:
      p.series === p.complete
        ? Math.max(0, Math.round(p.askedMs / DAY_MS))
        : Math.floor(p.coveredMs / p.series / DAY_MS),
    loadedFrom: p.started === 0 ? null : new Date(p.fromMs),
    loadedTo: p.started === 0 ? null : new Date(p.toMs),
    order,
  }));
}

/** Replaces the recorded progress of these streams. */
export async function recordBackfill(
  wh: Warehouse,
  runId: string,
  progress: readonly BackfillProgress[],
): Promise<void> {
  await new BackfillStore(wh).replace(runId, progress);
}

/**
 * How far a stream's backfill reaches, in words: `loaded back to 2025-03-02` (newest first: the day every started series
 * reaches back to), `loaded up to 2025-03-02` (oldest first: the last day every started series holds), or `not started`;
 * and the share of the history asked that is loaded, in whole percent.
 */
export function backfillReach(
  p: Pick<BackfillProgress, 'daysAsked' | 'daysCovered' | 'loadedFrom' | 'loadedTo' | 'order' | 'seriesStarted'>,
): { reach: string; percent: number } {
  const percent = Math.floor((100 * p.daysCovered) / Math.max(1, p.daysAsked));
  const day = (d: Date) => d.toISOString().slice(0, 10);
  if (p.seriesStarted === 0) return { reach: 'not started', percent };
  if (p.loadedFrom === null || p.loadedTo === null) return { reach: 'loaded', percent };
  return {
    reach:
      p.order === 'newest_first'
        ? `loaded back to ${day(p.loadedFrom)}`
        : `loaded up to ${day(new Date(p.loadedTo.getTime() - DAY_MS))}`,
    percent,
  };
}

/** `loaded back to 2025-03-02, 41 % of the history asked` (see backfillReach). */
export function backfillSentence(p: Parameters<typeof backfillReach>[0]): string {
  const { reach, percent } = backfillReach(p);
  return `${reach}, ${percent} % of the history asked`;
}
