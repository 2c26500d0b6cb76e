// The planner sends exactly the theoretical minimum: Σ ceil(units / 100) per series (look-back included), one request
// per 14 Canvas days (data_series; one per day from data_summary), one per id — counted here independently of the planner's own window math, for hundreds of series.
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { parsePipelineText } from '../../src/config/load-pipeline-file.js';
import { cursorWindows } from '../../src/extract/incremental-cursor.js';
import { buildPlan } from '../../src/pipeline/plan.js';
import type { PlanInput, PlannedState } from '../../src/pipeline/plan.js';
import { estimateDuration, poolRateBoundMs } from '../../src/pipeline/plan-estimate.js';
import { EVENT_LIST } from '../../src/streams/workspace-lists.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const apps = ['*', ...Array.from({ length: 9 }, (_, i) => `app_${i + 1}`)];
const products = ['*', ...Array.from({ length: 11 }, (_, i) => `product_${i + 1}`)];
const segments = ['*', ...Array.from({ length: 7 }, (_, i) => `seg_${i + 1}`)];
const canvases = Array.from({ length: 12 }, (_, i) => `cv_${i + 1}`);

/** 10 × 12 quantity (hourly) + 10 × 12 revenue (daily) + 10 × 8 sessions (hourly) + 7 segments + 12 Canvases = 339 series. */
const SCALED_TEXT = `
name: scaled
start_date: 2024-01-01
lookback_days: 3
streams:
  purchase_quantity: { unit: hour, apps: ${JSON.stringify(apps)}, products: ${JSON.stringify(products)} }
  revenue:           { unit: day, apps: ${JSON.stringify(apps)}, products: ${JSON.stringify(products)} }
  sessions:          { unit: hour, apps: ${JSON.stringify(apps)}, segments: ${JSON.stringify(segments)} }
  segment_size:      { segments: ${JSON.stringify(segments.slice(1))} }
  custom_events:     {}
  canvas_summary:    { canvases: ${JSON.stringify(canvases)} }
  canvas_details:    { canvases: ${JSON.stringify(canvases)} }
  email_templates:   { ids: [tpl_1, tpl_2, tpl_3] }
  data_integrations: {}
`;
const SCALED = parsePipelineText(SCALED_TEXT, 'scaled.yaml');

const utc = (iso: string) => DateTime.fromISO(iso, { zone: 'utc' });

function input(over: Partial<PlanInput>): PlanInput {
  return {
    pipeline: SCALED,
    streams: SCALED.streamNames,
    states: [],
    from: SCALED.startDate,
    until: utc('2026-01-01T00:00:00Z'),
    ...over,
  };
}

describe('buildPlan on a scaled pipeline of 339 series', () => {
  it('plans a 2-year backfill in exactly Σ ceil(units / 100) requests per series and one per 14 Canvas days', () => {
    const plan = buildPlan(input({}));
    // 2024-01-01 → 2026-01-01 is 731 days (2024 is a leap year) = 17,544 hours.
    const days = 731;
    const hours = days * 24;
    const expected = {
      purchase_quantity: 10 * 12 * Math.ceil(hours / 100),
      revenue: 10 * 12 * Math.ceil(days / 100),
      sessions: 10 * 8 * Math.ceil(hours / 100),
      segment_size: 7 * Math.ceil(days / 100),
      canvas_summary: 12 * Math.ceil(days / 14),
    };
    expect(expected).toEqual({
      purchase_quantity: 21_120,
      revenue: 960,
      sessions: 14_080,
      segment_size: 56,
      canvas_summary: 636,
    });
    for (const [stream, requests] of Object.entries(expected)) {
      const s = plan.streams.find((x) => x.stream === stream)!;
      expect({ stream, requests: s.requests, minimum: s.minimum }).toEqual({ stream, requests, minimum: requests });
    }
    expect(plan.series).toHaveLength(120 + 120 + 80 + 7 + 12);
    // 12 Canvas details, 3 templates, 1 integrations page; custom_events is a listing: its pages are discovery's, not here.
    const snapshots = 12 + 3 + 1;
    expect(plan.requests).toBe(21_120 + 960 + 14_080 + 56 + 636 + snapshots);
    expect(plan.minimum).toBe(plan.requests);
    expect(plan.byPool).toEqual({ purchases_events: 21_120 + 960, default: 14_080 + 56 + 636 + 12 + 3, cdi: 1 });
  });

  it('plans the same 2-year Canvas backfill from data_summary one request per day: 13 times and more the data_series figure', () => {
    const summaryPipeline = parsePipelineText(
      SCALED_TEXT.replace('canvas_summary:    { canvases:', 'canvas_summary:    { source: data_summary, canvases:'),
      'scaled.yaml',
    );
    const bySummary = buildPlan(input({ pipeline: summaryPipeline })).streams.find(
      (s) => s.stream === 'canvas_summary',
    )!;
    const bySeries = buildPlan(input({})).streams.find((s) => s.stream === 'canvas_summary')!;
    expect(bySummary.requests).toBe(12 * 731);
    expect(bySeries.requests * 13).toBeLessThanOrEqual(bySummary.requests);
  });

  it('cuts every series into contiguous windows of at most 100 units (14 Canvas days) covering exactly the planned range', () => {
    const plan = buildPlan(input({}));
    const problems: string[] = [];
    for (const sp of plan.series) {
      const unitMs = sp.instance.unit === 'hour' ? HOUR : DAY;
      const max = sp.maxUnits;
      expect(max).toBe(sp.stream.name === 'canvas_summary' ? 14 : 100);
      const ws = cursorWindows(sp.cursor);
      if (ws[0]!.start.toMillis() !== Date.UTC(2024, 0, 1) || ws.at(-1)!.end.toMillis() !== Date.UTC(2026, 0, 1))
        problems.push(`${sp.seriesKey}: range`);
      ws.forEach((w, i) => {
        if (w.length !== (w.end.toMillis() - w.start.toMillis()) / unitMs || w.length > max)
          problems.push(`${sp.seriesKey} window ${i}: length ${w.length}`);
        if (i > 0 && w.start.toMillis() !== ws[i - 1]!.end.toMillis())
          problems.push(`${sp.seriesKey} window ${i}: gap`);
        // Only the oldest window may be short: the recent units travel in full requests.
        if (i > 0 && w.length !== max) problems.push(`${sp.seriesKey} window ${i}: short`);
      });
    }
    expect(problems).toEqual([]);
  });

  it('plans a nightly increment as the look-back plus the new units: one request per series, two when an hourly range passes 100 hours', () => {
    const watermark = new Date(Date.UTC(2026, 0, 1));
    const states: PlannedState[] = buildPlan(input({})).series.map((sp) => ({
      stream: sp.stream.name,
      seriesKey: sp.seriesKey,
      watermark,
    }));
    expect(states.filter((s) => s.stream === 'canvas_summary').map((s) => s.seriesKey)).toEqual(
      canvases.map((id) => `unit=day|canvas_id=${id}`),
    );
    // until 03:00 on Jan 2: daily ranges are Dec 29 → Jan 3 (5 days); hourly Dec 29 00:00 → Jan 2 03:00 (99 hours).
    const night = buildPlan(input({ states, until: utc('2026-01-02T03:00:00Z') }));
    const of = (stream: string) => night.streams.find((s) => s.stream === stream)!;
    expect(of('purchase_quantity').requests).toBe(120);
    expect(of('revenue').requests).toBe(120);
    expect(of('sessions').requests).toBe(80);
    expect(of('segment_size').requests).toBe(7);
    expect(of('canvas_summary').requests).toBe(12);
    expect(night.requests).toBe(night.minimum);
    for (const sp of night.series) expect(cursorWindows(sp.cursor)[0]!.start.toMillis()).toBe(Date.UTC(2025, 11, 29));

    // until 05:30: hourly ranges grow to 102 hours (up to the end of the hour in progress) and need two requests.
    const later = buildPlan(input({ states, until: utc('2026-01-02T05:30:00Z') }));
    expect(later.streams.find((s) => s.stream === 'purchase_quantity')!.requests).toBe(240);
    expect(later.streams.find((s) => s.stream === 'revenue')!.requests).toBe(120);
    expect(later.requests).toBe(later.minimum);
  });

  it('marks the paged lists as estimates and counts their pages from the rows stored last time', () => {
    const plan = buildPlan(input({ knownRows: { data_integrations: 25 } }));
    const events = plan.streams.find((s) => s.stream === 'custom_events')!;
    const cdi = plan.streams.find((s) => s.stream === 'data_integrations')!;
    expect([events.requests, events.estimated, cdi.requests, cdi.estimated]).toEqual([0, false, 3, true]);
    // The event names are a list discovery reads (counted on its row): 600 stored names expect 3 pages of 250.
    expect(EVENT_LIST.estimatePages(600)).toBe(3);
    expect(EVENT_LIST.estimatePages(500)).toBe(3);
    expect(plan.streams.find((s) => s.stream === 'canvas_details')!.estimated).toBe(false);
    expect(plan.estimated).toBe(true);
  });
});

describe('estimateDuration', () => {
  it('spreads a pool whose requests exceed its budget at its sustained rate', () => {
    const e = estimateDuration({ purchases_events: 2_500, default: 100 }, { latencyMs: 100 });
    const purchases = e.pools.find((p) => p.pool === 'purchases_events')!;
    expect(purchases.waves).toBe(3);
    expect(purchases.ms).toBe(2_499 * 3_600 + 100);
    expect([e.boundBy, e.pool, e.ms]).toEqual(['rate', 'purchases_events', purchases.ms]);
  });

  it('keeps rate × latency × 1.5 in flight per pool, and at least 8: latency binds only when the rate needs fewer', () => {
    const fast = estimateDuration({ default: 800, cdi: 10 }, { latencyMs: 50 });
    // 69.4/s × 50 ms × 1.5 = 5.2, under the least a pool keeps in flight.
    expect(fast.pools.find((p) => p.pool === 'default')).toMatchObject({
      inFlight: 8,
      ms: 100 * 50,
      boundBy: 'latency',
    });
    expect([fast.boundBy, fast.pool]).toEqual(['latency', 'default']);
    // At 250 ms the same pool keeps ceil(26.04) = 27 in flight: faster than its sustained rate, within its budget.
    const slow = estimateDuration({ default: 1_690 }, { latencyMs: 250 });
    expect(slow.pools[0]).toMatchObject({ inFlight: 27, ms: Math.ceil(1_690 / 27) * 250, boundBy: 'rate' });
    expect(slow.ms).toBeLessThan(poolRateBoundMs({ default: 1_690 }));
  });

  it('says when --max-in-flight is what binds', () => {
    const e = estimateDuration({ default: 1_690 }, { latencyMs: 250, maxInFlight: 4 });
    expect(e.pools[0]).toMatchObject({ inFlight: 4, boundBy: 'cap' });
    expect([e.boundBy, e.ms]).toEqual(['cap', Math.ceil(1_690 / 4) * 250]);
    expect(() => estimateDuration({ default: 1 }, { maxInFlight: 0 })).toThrow(/--max-in-flight.*0/);
  });

  it('uses scaled-down pool limits when given, as the benchmark does', () => {
    const pools = { purchases_events: { limit: 20, windowMs: 2_000 } };
    expect(estimateDuration({ purchases_events: 100 }, { latencyMs: 50, pools }).pools[0]!.waves).toBe(5);
    expect(poolRateBoundMs({ purchases_events: 100, default: 80 }, pools)).toBe(10_000);
    // 1,690 requests at 250,000/hour take 24.3 s at the pool's sustained rate.
    expect(poolRateBoundMs({ default: 1_690 })).toBe(24_336);
  });

  it('refuses a negative latency with the flag and an example', () => {
    expect(() => estimateDuration({ default: 1 }, { latencyMs: -1 })).toThrow(/--latency-ms.*-1.*--latency-ms 200/);
  });
});
