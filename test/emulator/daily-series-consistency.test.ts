// The daily event, KPI and Canvas series belong to the same world as the rest: a listed event has happened, a day of events is
// the sum of its hours and all apps the sum of the apps, segments restrict; KPIs agree with sessions (a day with
// sessions has active users, never more users than sessions, MAU ≥ every DAU of its 30 days); a Canvas data series day
// equals a one-day data summary; late data and restatements move them as they move the other series; and the model
// functions a pipeline test compares tables against give exactly what the API answers.
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventProfile, EVENT_FIRST_OCCURRENCE_DAYS } from '../../src/emulator/analytics/event-model.js';
import { kpiSeries } from '../../src/emulator/analytics/kpi-model.js';
import { canvasDailyStats } from '../../src/emulator/analytics/canvas-stats.js';
import { eventCounts } from '../../src/emulator/analytics/series-query.js';
import { unitStartsEndingAt } from '../../src/emulator/analytics/query-params.js';
import type { Emulator } from '../../src/emulator/server.js';
import { call, NOW, startEmulator } from './emulator-test-helpers.js';

const DAY = 86_400_000;
const APPS = ['app_1', 'app_2', 'app_3'];
const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
const values = (body: { data: Record<string, number | string>[] }, key: string): number[] =>
  body.data.map((p) => p[key] as number);
const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

let em: Emulator;
let names: string[];
beforeAll(async () => {
  em = await startEmulator({ rateLimits: false });
  const pages = await Promise.all([0, 1, 2].map((page) => call(em, `/events/list?page=${page}`)));
  names = pages.flatMap((p) => p.body.events as string[]);
});
afterAll(() => em.close());

/** A fresh emulator for tests that restate or skew: the shared one stays the pristine model. */
let scratch: Emulator | undefined;
afterEach(async () => {
  await scratch?.close();
  scratch = undefined;
});

describe('custom event counts', () => {
  it('lists only events that have happened: each has a count > 0 on some day up to now, in the model and over HTTP', async () => {
    expect(names).toHaveLength(612);
    const ws = em.state.analytics;
    const firstDays = unitStartsEndingAt(
      ws.startMs + EVENT_FIRST_OCCURRENCE_DAYS * DAY,
      EVENT_FIRST_OCCURRENCE_DAYS + 1,
      'day',
    );
    for (const name of names)
      expect(
        sum(eventCounts(ws, name, {}, 'day', firstDays, Date.parse(NOW)).map((p) => p.value)),
        name,
      ).toBeGreaterThan(0);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...names), async (name) => {
        const r = await call(
          em,
          `/events/data_series?event=${name}&length=${EVENT_FIRST_OCCURRENCE_DAYS + 1}&ending_at=${day(ws.startMs + EVENT_FIRST_OCCURRENCE_DAYS * DAY)}`,
        );
        expect(sum(values(r.body, 'count'))).toBeGreaterThan(0);
      }),
      { numRuns: 15, seed: 12 },
    );
  });

  it('lists an event from the end of the hour of its first occurrence on, so early in 2023 the list is shorter', async () => {
    scratch = await startEmulator({ now: '2023-01-20T00:00:00Z' });
    const listed: string[] = (await call(scratch, '/events/list')).body.events;
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.length).toBeLessThan(250);
    const ws = scratch.state.analytics;
    const unlisted = ws.eventNames.find((n) => !listed.includes(n))!;
    const nowMs = Date.parse('2023-01-20T00:00:00Z');
    const past = `length=20&ending_at=2023-01-20T00:00:00Z`;
    for (const name of [listed[0]!, listed[listed.length - 1]!]) {
      expect(eventProfile(ws, ws.apps, name).firstHourMs + 3_600_000).toBeLessThanOrEqual(nowMs);
      expect(
        sum(values((await call(scratch, `/events/data_series?event=${name}&${past}`)).body, 'count')),
      ).toBeGreaterThan(0);
    }
    expect(sum(values((await call(scratch, `/events/data_series?event=${unlisted}&${past}`)).body, 'count'))).toBe(0);
  });

  it('makes a day the sum of its 24 hours, all apps the sum of the apps, and a segment at most its app', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...names),
        fc.integer({ min: 0, max: 500 }),
        fc.constantFrom(...APPS),
        fc.constantFrom('seg_1', 'seg_4'),
        async (name, back, app, seg) => {
          const d = day(Date.parse('2024-06-14T00:00:00Z') - back * DAY);
          const base = `/events/data_series?event=${name}`;
          const dayAnswer = await call(em, `${base}&length=1&ending_at=${d}&app_id=${app}`);
          const hours = await call(em, `${base}&length=24&unit=hour&ending_at=${d}T23:00:00Z&app_id=${app}`);
          expect(hours.body.data[0].time).toBe(`${d}T00:00:00Z`);
          expect(dayAnswer.body.data[0].count).toBe(sum(values(hours.body, 'count')));
          const all = await call(em, `${base}&length=3&ending_at=${d}`);
          const perApp = await Promise.all(APPS.map((a) => call(em, `${base}&length=3&ending_at=${d}&app_id=${a}`)));
          all.body.data.forEach((p: { count: number }, i: number) =>
            expect(p.count).toBe(sum(perApp.map((r) => r.body.data[i].count))),
          );
          const segment = await call(em, `${base}&length=3&ending_at=${d}&app_id=${app}&segment_id=${seg}`);
          const appOnly = perApp[APPS.indexOf(app)]!;
          segment.body.data.forEach((p: { count: number }, i: number) =>
            expect(p.count).toBeLessThanOrEqual(appOnly.body.data[i].count),
          );
        },
      ),
      { numRuns: 12, seed: 7 },
    );
  });

  it('restricts to a segment: most busy days count fewer occurrences for the segment than for everyone', async () => {
    const busiest = names
      .map((n) => ({ n, rate: eventProfile(em.state.analytics, em.state.analytics.apps, n).ratePerHour }))
      .sort((a, b) => b.rate - a.rate)[0]!.n;
    const all = await call(em, `/events/data_series?event=${busiest}&length=10&ending_at=2024-05-01`);
    const seg = await call(em, `/events/data_series?event=${busiest}&length=10&ending_at=2024-05-01&segment_id=seg_2`);
    values(seg.body, 'count').forEach((c, i) => {
      expect(c).toBeGreaterThan(0);
      expect(c).toBeLessThan(values(all.body, 'count')[i]!);
    });
  });

  it('ramps late data in like the other series: a recent day only grows, and is final after 48 hours', async () => {
    scratch = await startEmulator({ now: '2024-06-11T01:00:00Z' });
    const name = names[3]!;
    const seen: number[] = [];
    for (const at of [
      '2024-06-11T01:00:00Z',
      '2024-06-11T12:00:00Z',
      '2024-06-12T06:00:00Z',
      '2024-06-13T00:00:00Z',
      '2024-06-20T00:00:00Z',
    ]) {
      scratch.clock.set(at);
      seen.push(
        (await call(scratch, `/events/data_series?event=${name}&length=1&ending_at=2024-06-10`)).body.data[0].count,
      );
    }
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1]!);
    expect(seen[0]).toBeLessThan(seen[4]!);
    expect(seen[3]).toBe(seen[4]);
  });

  it('restates one event on one day (narrowed to an app) and leaves its neighbours and other events alone', async () => {
    scratch = await startEmulator();
    const [name, other] = [names[10]!, names[11]!];
    const q = 'length=3&ending_at=2024-06-05&app_id=app_1';
    const before = await call(scratch, `/events/data_series?event=${name}&${q}`);
    const otherBefore = await call(scratch, `/events/data_series?event=${other}&${q}`);
    scratch.state.analytics.restate({ series: 'events', event: name, day: '2024-06-04', appId: 'app_1', factor: 3 });
    const after = await call(scratch, `/events/data_series?event=${name}&${q}`);
    expect(after.body.data[0]).toEqual(before.body.data[0]);
    expect(after.body.data[2]).toEqual(before.body.data[2]);
    expect(after.body.data[1].count).toBeGreaterThan(before.body.data[1].count);
    expect(await call(scratch, `/events/data_series?event=${other}&${q}`)).toMatchObject({ body: otherBefore.body });
    expect(() =>
      scratch!.state.analytics.restate({ series: 'events', event: 'never_happened', day: '2024-06-04', factor: 2 }),
    ).toThrow(/event "never_happened" is not in the workspace/);
  });

  it('gives from eventCounts exactly what the API answers', async () => {
    const ws = em.state.analytics;
    const name = names[100]!;
    const starts = unitStartsEndingAt(Date.parse('2024-06-15T11:00:00Z'), 30, 'hour');
    const model = eventCounts(
      ws,
      name,
      { app: ws.app('app_2')!, segment: ws.segment('seg_1')! },
      'hour',
      starts,
      Date.parse(NOW),
    );
    const r = await call(
      em,
      `/events/data_series?event=${name}&length=30&unit=hour&ending_at=2024-06-15T11:00:00Z&app_id=app_2&segment_id=seg_1`,
    );
    expect(r.body.data).toEqual(model.map((p) => ({ time: p.time, count: p.value })));
  });
});

describe('KPIs', () => {
  const metricSeries = async (metric: string, q: string) =>
    values((await call(em, `/kpi/${metric}/data_series?${q}`)).body, metric);

  it('agree with sessions: a day with sessions has users, never more users than sessions; new users ≤ DAU; MAU ≥ every DAU of its 30 days', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 560 }),
        fc.constantFrom('', ...APPS),
        fc.integer({ min: 1, max: 20 }),
        async (back, app, length) => {
          const ending = day(Date.parse(NOW) - back * DAY);
          const a = app ? `&app_id=${app}` : '';
          const q = `length=${length}&ending_at=${ending}${a}`;
          const sessions = values((await call(em, `/sessions/data_series?${q}`)).body, 'sessions');
          const dau = await metricSeries('dau', q);
          const newUsers = await metricSeries('new_users', q);
          const mau = await metricSeries('mau', q);
          const longDau = await metricSeries('dau', `length=${length + 29}&ending_at=${ending}${a}`);
          expect(dau).toHaveLength(sessions.length);
          sessions.forEach((s, i) => {
            if (s > 0) expect(dau[i]).toBeGreaterThan(0);
            expect(dau[i]).toBeLessThanOrEqual(s);
            expect(newUsers[i]).toBeLessThanOrEqual(dau[i]!);
            expect(mau[i]).toBeGreaterThanOrEqual(Math.max(...longDau.slice(i, i + 30)));
          });
        },
      ),
      { numRuns: 15, seed: 12 },
    );
  });

  it('counts a user of several apps once: all-apps DAU lies between the largest app and the sum of the apps', async () => {
    const q = 'length=20&ending_at=2024-04-30';
    const all = await metricSeries('dau', q);
    const perApp = await Promise.all(APPS.map((a) => metricSeries('dau', `${q}&app_id=${a}`)));
    all.forEach((v, i) => {
      const parts = perApp.map((p) => p[i]!);
      expect(v).toBeLessThanOrEqual(sum(parts));
      expect(v).toBeGreaterThanOrEqual(Math.max(...parts));
    });
    const uninstalls = await metricSeries('uninstalls', q);
    const uninstallsPerApp = await Promise.all(APPS.map((a) => metricSeries('uninstalls', `${q}&app_id=${a}`)));
    uninstalls.forEach((v, i) => expect(v).toBe(sum(uninstallsPerApp.map((p) => p[i]!))));
  });

  it('has no active users on an app outage day, and users again the next day', async () => {
    const app = em.state.analytics.apps.find((a) => a.outageDayMs + DAY <= Date.parse(NOW))!;
    const dau = await metricSeries('dau', `length=3&app_id=${app.id}&ending_at=${day(app.outageDayMs + DAY)}`);
    expect(dau.map((v) => v === 0)).toEqual([false, true, false]);
  });

  it('take in the late data of sessions: the DAU and MAU of a recent day only grow, and are final after 48 hours', async () => {
    scratch = await startEmulator({ now: '2024-06-11T01:00:00Z' });
    const seen: { dau: number; mau: number }[] = [];
    for (const at of ['2024-06-11T01:00:00Z', '2024-06-11T20:00:00Z', '2024-06-13T00:00:00Z', '2024-06-25T00:00:00Z']) {
      scratch.clock.set(at);
      const q = 'length=1&ending_at=2024-06-10&app_id=app_1';
      seen.push({
        dau: (await call(scratch, `/kpi/dau/data_series?${q}`)).body.data[0].dau,
        mau: (await call(scratch, `/kpi/mau/data_series?${q}`)).body.data[0].mau,
      });
    }
    for (let i = 1; i < seen.length; i++) {
      expect(seen[i]!.dau).toBeGreaterThanOrEqual(seen[i - 1]!.dau);
      expect(seen[i]!.mau).toBeGreaterThanOrEqual(seen[i - 1]!.mau);
    }
    expect(seen[0]!.dau).toBeLessThan(seen[3]!.dau);
    expect(seen[2]).toEqual(seen[3]);
  });

  it('follow restated sessions, and a restated KPI day changes that day only, never above the sessions', async () => {
    scratch = await startEmulator();
    const q = 'length=3&ending_at=2024-06-05&app_id=app_2';
    const get = async (metric: string) =>
      values((await call(scratch!, `/kpi/${metric}/data_series?${q}`)).body, metric);
    const dauBefore = await get('dau');
    scratch.state.analytics.restate({ series: 'sessions', day: '2024-06-03', appId: 'app_2', factor: 0.5 });
    const dauAfterSessions = await get('dau');
    expect(dauAfterSessions[0]).toBeLessThan(dauBefore[0]!);
    expect(dauAfterSessions.slice(1)).toEqual(dauBefore.slice(1));
    scratch.state.analytics.restate({ series: 'dau', day: '2024-06-04', appId: 'app_2', factor: 1.2 });
    scratch.state.analytics.restate({ series: 'uninstalls', day: '2024-06-04', factor: 3 });
    const dau = await get('dau');
    expect(dau[1]).toBeGreaterThan(dauBefore[1]!);
    expect(dau[2]).toBe(dauBefore[2]);
    const sessions = values((await call(scratch, `/sessions/data_series?${q}`)).body, 'sessions');
    dau.forEach((v, i) => expect(v).toBeLessThanOrEqual(sessions[i]!));
    scratch.state.analytics.restate({ series: 'dau', day: '2024-06-05', appId: 'app_2', factor: 100 });
    expect((await get('dau'))[2]).toBe(sessions[2]);
  });

  it('gives from kpiSeries exactly what the API answers, for each metric', async () => {
    const ws = em.state.analytics;
    const days = unitStartsEndingAt(Date.parse('2024-06-15T00:00:00Z'), 40, 'day');
    for (const metric of ['dau', 'mau', 'new_users', 'uninstalls'] as const) {
      for (const app of [undefined, ws.app('app_3')!]) {
        const model = kpiSeries(ws, metric, app ? { app } : {}, days, Date.parse(NOW));
        const r = await call(
          em,
          `/kpi/${metric}/data_series?length=40&ending_at=2024-06-15${app ? `&app_id=${app.id}` : ''}`,
        );
        expect(r.body.data).toEqual(model.map((p) => ({ time: p.time, [metric]: p.value })));
      }
    }
  });
});

describe('Canvas data series', () => {
  const flags = (v: boolean, s: boolean, d: boolean) =>
    `include_variant_breakdown=${v}&include_step_breakdown=${s}&include_deleted_step_data=${d}`;

  it('makes each day exactly the data of a one-day data summary of that day, for any Canvas, window and breakdown', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('cv_1', 'cv_2', 'cv_3', 'cv_4', 'cv_5'),
        fc.integer({ min: 0, max: 600 }),
        fc.integer({ min: 1, max: 14 }),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        async (canvas, back, length, v, s, d) => {
          const ending = `${day(Date.parse(NOW) - back * DAY)}T18:00:00Z`;
          const series = await call(
            em,
            `/canvas/data_series?canvas_id=${canvas}&ending_at=${ending}&length=${length}&${flags(v, s, d)}`,
          );
          expect(series.status).toBe(200);
          expect(series.body.data.stats.length).toBe(length);
          for (const element of series.body.data.stats) {
            const summary = await call(
              em,
              `/canvas/data_summary?canvas_id=${canvas}&ending_at=${element.time}T00:00:00Z&length=1&${flags(v, s, d)}`,
            );
            const { time, ...rest } = element;
            expect(time).toMatch(/^\d{4}-\d{2}-\d{2}$/);
            expect({ name: series.body.data.name, ...rest }).toEqual(summary.body.data);
          }
        },
      ),
      { numRuns: 12, seed: 2024 },
    );
  });

  it('sums over its days to the window summary (entries, conversions, revenue to the cent)', async () => {
    const q = 'canvas_id=cv_3&starting_at=2024-05-20&ending_at=2024-06-02';
    const series = await call(em, `/canvas/data_series?${q}`);
    const summary = await call(em, `/canvas/data_summary?${q}`);
    const totals = series.body.data.stats.map((s: { total_stats: Record<string, number> }) => s.total_stats);
    for (const key of ['entries', 'conversions', 'conversions_by_entry_time'])
      expect(sum(totals.map((t: Record<string, number>) => t[key]!))).toBe(summary.body.data.total_stats[key]);
    expect(Math.round(sum(totals.map((t: Record<string, number>) => t.revenue! * 100)))).toBe(
      Math.round(summary.body.data.total_stats.revenue * 100),
    );
  });

  it('gives from canvasDailyStats exactly what the API answers', async () => {
    const ws = em.state.analytics;
    const days = unitStartsEndingAt(Date.parse('2024-06-15T00:00:00Z'), 14, 'day');
    const opts = { includeVariantBreakdown: true, includeStepBreakdown: true, includeDeletedStepData: true };
    const r = await call(em, `/canvas/data_series?canvas_id=cv_2&length=14&${flags(true, true, true)}`);
    expect(r.body.data).toEqual(canvasDailyStats(ws, ws.canvas('cv_2')!, days, Date.parse(NOW), opts));
  });

  it('restates a Canvas day in both endpoints alike', async () => {
    scratch = await startEmulator();
    const before = await call(scratch, '/canvas/data_series?canvas_id=cv_1&ending_at=2024-06-05&length=2');
    scratch.state.analytics.restate({ series: 'canvas', canvasId: 'cv_1', day: '2024-06-05', factor: 2 });
    const after = await call(scratch, '/canvas/data_series?canvas_id=cv_1&ending_at=2024-06-05&length=2');
    expect(after.body.data.stats[0]).toEqual(before.body.data.stats[0]);
    expect(after.body.data.stats[1].total_stats.entries).toBeGreaterThan(before.body.data.stats[1].total_stats.entries);
    const summary = await call(scratch, '/canvas/data_summary?canvas_id=cv_1&ending_at=2024-06-05&length=1');
    expect(summary.body.data.total_stats).toEqual(after.body.data.stats[1].total_stats);
  });

  it('disagrees with the data summary exactly where a skew says so (the reconciliation hook)', async () => {
    scratch = await startEmulator();
    const ws = scratch.state.analytics;
    const window = 'ending_at=2024-06-10&length=7';
    const seriesBefore = await call(scratch, `/canvas/data_series?canvas_id=cv_1&${window}`);
    const summaryBefore = await call(scratch, `/canvas/data_summary?canvas_id=cv_1&${window}`);
    ws.skewCanvasSummary({ canvasId: 'cv_1', day: '2024-06-08', conversions: 5, revenue: 12.34 });
    const series = await call(scratch, `/canvas/data_series?canvas_id=cv_1&${window}`);
    const summary = await call(scratch, `/canvas/data_summary?canvas_id=cv_1&${window}`);
    expect(series.body).toEqual(seriesBefore.body);
    expect(summary.body.data.total_stats.conversions).toBe(summaryBefore.body.data.total_stats.conversions + 5);
    expect(summary.body.data.total_stats.entries).toBe(summaryBefore.body.data.total_stats.entries);
    expect(Math.round(summary.body.data.total_stats.revenue * 100)).toBe(
      Math.round(summaryBefore.body.data.total_stats.revenue * 100) + 1234,
    );
    // A window without that day, and another Canvas, still agree.
    const other = await call(scratch, '/canvas/data_summary?canvas_id=cv_1&ending_at=2024-06-07&length=3');
    const otherSeries = await call(scratch, '/canvas/data_series?canvas_id=cv_1&ending_at=2024-06-07&length=3');
    expect(other.body.data.total_stats.conversions).toBe(
      sum(otherSeries.body.data.stats.map((s: { total_stats: { conversions: number } }) => s.total_stats.conversions)),
    );
    expect(await call(scratch, `/canvas/data_summary?canvas_id=cv_2&${window}`)).toMatchObject({
      body: (await call(em, `/canvas/data_summary?canvas_id=cv_2&${window}`)).body,
    });
    expect(ws.canvasSummarySkews()).toEqual([{ canvasId: 'cv_1', day: '2024-06-08', conversions: 5, revenue: 12.34 }]);
  });

  it('refuses a skew it cannot apply, saying why', () => {
    const ws = em.state.analytics;
    expect(() => ws.skewCanvasSummary({ canvasId: 'cv_9', day: '2024-06-08', conversions: 1 })).toThrow(
      /canvasId "cv_9" is not in the workspace; use one of cv_1/,
    );
    expect(() => ws.skewCanvasSummary({ canvasId: 'cv_1', day: '2024-6-8', conversions: 1 })).toThrow(
      /day "2024-6-8" is not a UTC date/,
    );
    expect(() => ws.skewCanvasSummary({ canvasId: 'cv_1', day: '2024-06-08', conversions: 1.5 })).toThrow(
      /conversions 1.5 must be an integer/,
    );
    expect(() => ws.skewCanvasSummary({ canvasId: 'cv_1', day: '2024-06-08', revenue: 0.001 })).toThrow(
      /revenue 0.001 must be a finite amount in USD with at most cents/,
    );
    expect(ws.canvasSummarySkews()).toEqual([]);
  });
});
