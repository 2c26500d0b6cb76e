// What the order of a backfill costs, nights of requests planned and finished as the run queues them (each pool's series
// one after another, each series' windows in its order), on the shape the issue met: 209 Canvases, 105 segments and
// the daily streams over 240 days, a night of 497 requests. Newest first sends what oldest first sends within 1 %, and
// after every night each started series ends at its newest complete day.
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { parsePipelineText } from '../../src/config/load-pipeline-file.js';
import type { BackfillOrder } from '../../src/config/pipeline-definition.js';
import { CursorProgress, cursorWindows, orderedWindows } from '../../src/extract/incremental-cursor.js';
import { buildPlan } from '../../src/pipeline/plan.js';
import type { PlannedState } from '../../src/pipeline/plan.js';

const canvases = Array.from({ length: 209 }, (_, i) => `c${(i * 7919).toString(36)}`);
const segments = Array.from({ length: 105 }, (_, i) => `s${(i * 104_729).toString(36)}`);
const text = (order: BackfillOrder) => `
name: order
start_date: 2024-09-22
lookback_days: 3
backfill_order: ${order}
streams:
  sessions:       { unit: day, apps: ["*"], segments: ["*"] }
  revenue:        { unit: day, apps: ["*"], products: ["*"] }
  kpis:           { metrics: [dau, mau, new_users, uninstalls], apps: ["*"] }
  segment_size:   { segments: ${JSON.stringify(segments)} }
  canvas_summary: { canvases: ${JSON.stringify(canvases)} }
`;
const FIRST_UNTIL = DateTime.fromISO('2025-05-20T06:30:00Z', { zone: 'utc' });
const PER_NIGHT = 497;

interface Nights {
  requests: number;
  perNight: number[];
  /** After each night: series with state, and those whose watermark is not the newest complete day. */
  started: number[];
  behind: number[];
  /** The first night's request count without any state. */
  firstPlan: number;
}

/** Nights of at most PER_NIGHT requests per pool until a plan fits in one, `until` a day later each night when `moving`. */
function nights(order: BackfillOrder, moving: boolean): Nights {
  const pipeline = parsePipelineText(text(order), 'order.yaml');
  const states = new Map<string, PlannedState>();
  const out: Nights = { requests: 0, perNight: [], started: [], behind: [], firstPlan: 0 };
  for (let night = 0; night < 40; night++) {
    const until = moving ? FIRST_UNTIL.plus({ days: night }) : FIRST_UNTIL;
    const plan = buildPlan({
      pipeline,
      streams: pipeline.streamNames,
      states: [...states.values()],
      from: pipeline.startDate,
      until,
    });
    if (night === 0) out.firstPlan = plan.requests;
    const left = new Map<string, number>();
    let sent = 0;
    for (const sp of plan.series) {
      const pool = sp.endpoint.pool;
      const windows = orderedWindows(sp.cursor);
      const progress = new CursorProgress(sp.cursor, cursorWindows(sp.cursor));
      const take = Math.min(windows.length, left.get(pool) ?? PER_NIGHT);
      left.set(pool, (left.get(pool) ?? PER_NIGHT) - take);
      for (const w of windows.slice(0, take)) progress.finish(w.start.toMillis());
      sent += take;
      const moved = progress.advance() ?? progress.settle();
      if (moved) {
        states.set(`${sp.stream.name}|${sp.seriesKey}`, {
          stream: sp.stream.name,
          seriesKey: sp.seriesKey,
          watermark: new Date(moved.watermarkMs),
          fetchedUntil: until.toJSDate(),
          ...(moved.lowMs === undefined ? {} : { lowWatermark: new Date(moved.lowMs) }),
        });
      }
    }
    out.requests += sent;
    out.perNight.push(sent);
    const newest = until.startOf('day').toMillis();
    out.started.push(states.size);
    out.behind.push([...states.values()].filter((s) => s.watermark.getTime() !== newest).length);
    if ([...left.values()].every((n) => n > 0)) return out;
  }
  throw new Error(`${order}: not complete after 40 nights`);
}

describe('a backfill of 209 Canvases, 105 segments and 240 days in nights of 497 requests', () => {
  for (const moving of [false, true]) {
    describe(moving ? '--until a day later each night' : 'the same --until each night', () => {
      const newest = nights('newest_first', moving);
      const oldest = nights('oldest_first', moving);

      it("is the issue's shape: about 4,130 requests, several nights", () => {
        expect(newest.firstPlan).toBeGreaterThan(4_000);
        expect(newest.firstPlan).toBeLessThan(4_300);
        expect(newest.perNight.length).toBeGreaterThan(5);
      });

      it('sends as many requests newest first as oldest first, within 1 %', () => {
        const share = Math.abs(newest.requests - oldest.requests) / oldest.requests;
        expect(
          share,
          `newest first ${newest.requests} in ${newest.perNight.length} nights, oldest first ${oldest.requests} in ${oldest.perNight.length}`,
        ).toBeLessThanOrEqual(0.01);
      });

      it('ends every night with each started series at its newest complete day, newest first; oldest first leaves them behind', () => {
        expect(newest.behind.every((n) => n === 0)).toBe(true);
        expect(oldest.behind[0]).toBeGreaterThan(0);
        expect(newest.started[0]).toBeGreaterThan(0);
      });
    });
  }
});
