// The analytics series are one consistent world: a day is the sum of its hours, "all" is the sum of the parts, revenue
// is quantity × price, a Canvas window is the sum of its days, the future is absent, the present is partial, late data
// completes within 48 hours, and a restated day changes what the API answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { call, NOW, startEmulator } from './emulator-test-helpers.js';

let em: Emulator;
beforeAll(async () => {
  em = await startEmulator();
});
afterAll(() => em.close());

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
type Point = { time: string; [k: string]: number | string };
const values = (data: Point[], key: string): number[] => data.map((p) => p[key] as number);

describe('series consistency', () => {
  it('makes a day of purchases, revenue and sessions the sum of its 24 hours', async () => {
    for (const [path, key] of [
      ['/purchases/quantity_series?app_id=app_2', 'purchase_quantity'],
      ['/purchases/revenue_series?product=gems_small', 'revenue'],
      ['/sessions/data_series?segment_id=seg_2', 'sessions'],
      ['/sessions/data_series?app_id=app_1', 'sessions'],
    ] as const) {
      const day = await call(em, `${path}&length=1&ending_at=2024-06-13T08:00:00Z`);
      const hours = await call(em, `${path}&length=24&unit=hour&ending_at=2024-06-13T23:00:00Z`);
      expect(hours.body.data[0].time).toBe('2024-06-13T00:00:00Z');
      expect(day.body.data[0][key]).toBe(sum(values(hours.body.data, key)));
      expect(day.body.data[0][key]).toBeGreaterThan(0);
    }
  });

  it('makes all apps the sum of the apps and all products the sum of the products', async () => {
    const q = 'length=10&ending_at=2024-05-20T00:00:00Z';
    const all = await call(em, `/purchases/quantity_series?${q}`);
    const perApp = await Promise.all(
      ['app_1', 'app_2', 'app_3'].map((a) => call(em, `/purchases/quantity_series?${q}&app_id=${a}`)),
    );
    all.body.data.forEach((p: Point, i: number) => {
      expect(p.purchase_quantity).toBe(sum(perApp.map((r) => r.body.data[i].purchase_quantity)));
    });
    const sessions = await call(em, `/sessions/data_series?${q}`);
    const sessionsPerApp = await Promise.all(
      ['app_1', 'app_2', 'app_3'].map((a) => call(em, `/sessions/data_series?${q}&app_id=${a}`)),
    );
    sessions.body.data.forEach((p: Point, i: number) =>
      expect(p.sessions).toBe(sum(sessionsPerApp.map((r) => r.body.data[i].sessions))),
    );
  });

  it('makes revenue the sum of quantity × integer price over products', async () => {
    const products: { id: string; price_usd: number }[] = (
      await import('../../src/emulator/describe-workspace.js')
    ).describeWorkspace(em.state).products as never;
    expect(products.map((p) => p.id)).toContain('gems_small');
    const q = 'length=5&app_id=app_3&ending_at=2024-04-10T00:00:00Z';
    const revenue = await call(em, `/purchases/revenue_series?${q}`);
    const perProduct = await Promise.all(
      products.map((p) => call(em, `/purchases/quantity_series?${q}&product=${p.id}`)),
    );
    revenue.body.data.forEach((p: Point, i: number) => {
      expect(Number.isInteger(p.revenue)).toBe(true);
      expect(p.revenue).toBe(
        sum(products.map((prod, k) => prod.price_usd * perProduct[k]!.body.data[i].purchase_quantity)),
      );
    });
  });

  it('keeps segment sessions within the app sessions they thin', async () => {
    const q = 'length=7&app_id=app_1&ending_at=2024-03-10T00:00:00Z';
    const app = await call(em, `/sessions/data_series?${q}`);
    const seg = await call(em, `/sessions/data_series?${q}&segment_id=seg_1`);
    seg.body.data.forEach((p: Point, i: number) => {
      expect(p.sessions).toBeLessThanOrEqual(app.body.data[i].sessions);
      expect(p.sessions).toBeGreaterThan(0);
    });
  });

  it('has an outage day: an app with zero sessions and purchases on one day among non-zero neighbours', async () => {
    const described = (await import('../../src/emulator/describe-workspace.js')).describeWorkspace(em.state) as {
      apps: { id: string; outage_day: string }[];
    };
    const app = described.apps[1]!;
    const ending = `${app.outage_day}T00:00:00Z`;
    const s = await call(
      em,
      `/sessions/data_series?length=3&app_id=${app.id}&ending_at=${new Date(Date.parse(ending) + 86_400_000).toISOString()}`,
    );
    expect(values(s.body.data, 'sessions').map((v) => v === 0)).toEqual([false, true, false]);
    const p = await call(em, `/purchases/quantity_series?length=1&app_id=${app.id}&ending_at=${ending}`);
    expect(p.body.data[0].purchase_quantity).toBe(0);
  });

  it('shows growth and weekly seasonality rather than flat noise', async () => {
    const early = await call(em, '/sessions/data_series?length=28&ending_at=2023-02-28T00:00:00Z');
    const late = await call(em, '/sessions/data_series?length=28&ending_at=2024-05-31T00:00:00Z');
    expect(sum(values(late.body.data, 'sessions'))).toBeGreaterThan(1.3 * sum(values(early.body.data, 'sessions')));
    const byDow = new Map<number, number>();
    for (const p of late.body.data)
      byDow.set(new Date(p.time).getUTCDay(), (byDow.get(new Date(p.time).getUTCDay()) ?? 0) + p.sessions);
    expect(byDow.get(6)!).toBeGreaterThan(byDow.get(1)!);
  });

  it('omits units after now and makes the current hour and day partial', async () => {
    const days = await call(em, '/sessions/data_series?length=5&ending_at=2024-06-17T00:00:00Z');
    expect(days.body.data.map((p: Point) => p.time)).toEqual(['2024-06-13', '2024-06-14', '2024-06-15']);
    const hours = await call(em, '/sessions/data_series?length=3&unit=hour&ending_at=2024-06-15T14:00:00Z');
    expect(hours.body.data.map((p: Point) => p.time)).toEqual(['2024-06-15T12:00:00Z']);
    const today = await call(em, '/sessions/data_series?length=13&unit=hour&ending_at=2024-06-15T12:00:00Z');
    expect(days.body.data[2].sessions).toBe(sum(values(today.body.data, 'sessions')));
    // At 12:30 the current hour holds about half of what the same hour will hold once it is over.
    const current = hours.body.data[0].sessions as number;
    em.clock.set('2024-06-15T13:00:00Z');
    try {
      const ended = (await call(em, '/sessions/data_series?length=1&unit=hour&ending_at=2024-06-15T12:00:00Z')).body
        .data[0].sessions as number;
      expect(current / ended).toBeGreaterThan(0.4);
      expect(current / ended).toBeLessThan(0.6);
    } finally {
      em.clock.set(NOW);
    }
  });

  it('lets late data arrive: an hour grows until 48 hours after it ended, then stays', async () => {
    const path = '/sessions/data_series?length=1&ending_at=2024-06-10T00:00:00Z';
    const seen: number[] = [];
    for (const at of [
      '2024-06-11T00:00:00Z',
      '2024-06-11T12:00:00Z',
      '2024-06-12T00:00:00Z',
      '2024-06-13T00:00:00Z',
      '2024-06-20T00:00:00Z',
    ]) {
      em.clock.set(at);
      seen.push((await call(em, path)).body.data[0].sessions);
    }
    em.clock.set(NOW);
    for (let i = 1; i < 4; i++) expect(seen[i]!).toBeGreaterThan(seen[i - 1]!);
    expect(seen[4]).toBe(seen[3]);
    expect(seen[0]! / seen[3]!).toBeGreaterThan(0.7);
    expect(seen[0]! / seen[3]!).toBeLessThan(0.9);
  });

  it('keeps segment size a daily stock: no hourly form, non-additive, today present', async () => {
    const r = await call(em, '/segments/data_series?segment_id=seg_1&length=8&ending_at=2024-06-20T00:00:00Z');
    expect(r.body.data.map((p: Point) => p.time)).toEqual(['2024-06-13', '2024-06-14', '2024-06-15']);
    const sizes = values(r.body.data, 'size');
    expect(Math.max(...sizes) / Math.min(...sizes)).toBeLessThan(1.15);
  });
});

describe('Canvas statistics', () => {
  const summary = (q: string) =>
    call(em, `/canvas/data_summary?canvas_id=cv_1&include_variant_breakdown=true&include_step_breakdown=true&${q}`);

  it('makes a window the sum of its days, and variants sum to the totals', async () => {
    const window = await summary('starting_at=2024-05-01T00:00:00Z&ending_at=2024-05-07T23:00:00Z');
    const days = await Promise.all(
      Array.from({ length: 7 }, (_, i) => summary(`length=1&ending_at=2024-05-0${i + 1}T12:00:00Z`)),
    );
    const t = window.body.data.total_stats;
    for (const key of ['entries', 'conversions', 'conversions_by_entry_time'] as const) {
      expect(t[key]).toBe(sum(days.map((d) => d.body.data.total_stats[key])));
    }
    expect(t.revenue).toBeCloseTo(sum(days.map((d) => d.body.data.total_stats.revenue)), 6);
    expect(t.entries).toBeGreaterThan(0);
    const variants = Object.values(window.body.data.variant_stats) as {
      entries: number;
      conversions: number;
      revenue: number;
    }[];
    expect(sum(variants.map((v) => v.entries))).toBe(t.entries);
    expect(sum(variants.map((v) => v.conversions))).toBe(t.conversions);
    expect(sum(variants.map((v) => v.revenue))).toBeCloseTo(t.revenue, 6);
    // Revenue is USD with cents: a float whose hundredths are whole.
    expect(Math.abs(t.revenue * 100 - Math.round(t.revenue * 100))).toBeLessThan(1e-6);
    expect(Number.isInteger(t.revenue)).toBe(false);
  });

  it('gives length days ending with the day of ending_at, and the same window by starting_at', async () => {
    const byLength = await summary('length=3&ending_at=2024-05-03T05:00:00Z');
    const byStart = await summary('starting_at=2024-05-01T20:00:00Z&ending_at=2024-05-03T01:00:00Z');
    expect(byLength.body.data).toEqual(byStart.body.data);
  });

  it('is zero before the Canvas first entry', async () => {
    const details = await call(em, '/canvas/details?canvas_id=cv_1');
    const first = Date.parse(details.body.first_entry);
    const before = new Date(first - 2 * 86_400_000).toISOString();
    const r = await summary(`length=5&ending_at=${before}`);
    expect(r.body.data.total_stats).toEqual({ revenue: 0, conversions: 0, conversions_by_entry_time: 0, entries: 0 });
  });

  it('counts only the elapsed part of today', async () => {
    const today = (await summary('length=1')).body.data.total_stats.entries as number;
    const yesterday = (await summary('length=1&ending_at=2024-06-14T00:00:00Z')).body.data.total_stats
      .entries as number;
    expect(today).toBeGreaterThan(0);
    expect(today).toBeLessThan(yesterday * 0.8);
  });
});

describe('restatements', () => {
  it('changes a restated past day of purchases and leaves its neighbours alone', async () => {
    const path = '/purchases/revenue_series?length=3&app_id=app_1&ending_at=2024-06-05T00:00:00Z';
    const before = (await call(em, path)).body.data as Point[];
    em.state.analytics.restate({ series: 'purchases', day: '2024-06-04', appId: 'app_1', factor: 2 });
    const after = (await call(em, path)).body.data as Point[];
    expect(after[0]).toEqual(before[0]);
    expect(after[2]).toEqual(before[2]);
    expect(after[1]!.revenue as number).toBeGreaterThan(1.8 * (before[1]!.revenue as number));
    const other = (await call(em, '/purchases/revenue_series?length=1&app_id=app_2&ending_at=2024-06-04T00:00:00Z'))
      .body.data[0].revenue;
    em.state.analytics.restate({ series: 'purchases', day: '2024-06-04', appId: 'app_2', factor: 1 });
    expect(
      (await call(em, '/purchases/revenue_series?length=1&app_id=app_2&ending_at=2024-06-04T00:00:00Z')).body.data[0]
        .revenue,
    ).toBe(other);
  });

  it('restates sessions, segment size and Canvas days too', async () => {
    const checks: [Parameters<Emulator['state']['analytics']['restate']>[0], string, (b: any) => number][] = [
      [
        { series: 'sessions', day: '2024-05-10', factor: 0.5 },
        '/sessions/data_series?length=1&ending_at=2024-05-10T00:00:00Z',
        (b) => b.data[0].sessions,
      ],
      [
        { series: 'segment_size', day: '2024-05-10', segmentId: 'seg_2', factor: 1.5 },
        '/segments/data_series?segment_id=seg_2&length=1&ending_at=2024-05-10T00:00:00Z',
        (b) => b.data[0].size,
      ],
      [
        { series: 'canvas', day: '2024-05-10', canvasId: 'cv_1', factor: 3 },
        '/canvas/data_summary?canvas_id=cv_1&length=1&ending_at=2024-05-10T00:00:00Z',
        (b) => b.data.total_stats.entries,
      ],
    ];
    for (const [r, path, read] of checks) {
      const before = read((await call(em, path)).body);
      em.state.analytics.restate(r);
      const after = read((await call(em, path)).body);
      expect(after / before).toBeCloseTo(r.factor, 1);
    }
  });

  it('refuses a restatement it cannot apply, saying why', () => {
    expect(() => em.state.analytics.restate({ series: 'purchases', day: '2024-02-30', factor: 2 })).toThrow(
      /day "2024-02-30" is not a UTC date; write it as YYYY-MM-DD/,
    );
    expect(() => em.state.analytics.restate({ series: 'purchases', day: '2024-02-03', factor: -1 })).toThrow(
      /factor -1 must be a finite number ≥ 0/,
    );
    expect(() =>
      em.state.analytics.restate({ series: 'purchases', day: '2024-02-03', appId: 'app_9', factor: 2 }),
    ).toThrow(/appId "app_9" is not in the workspace/);
  });
});
