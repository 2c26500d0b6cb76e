// Every analyst view checked against a computation written here from the base tables, over a demo warehouse loaded
// from the emulator; then the same views defined over the Parquet tree by `engage-etl views` answer the same.
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SettingsStore } from '../../src/load/settings-store.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import { fromDuckDBValue } from '../../src/load/duckdb-values.js';
import { createAnalyticsViews } from '../../src/views/analytics-views.js';
import { parquetViewsSql } from '../../src/views/parquet-views-sql.js';
import type { PipelineFixture } from '../pipeline/helpers/pipeline-fixture.js';
import { num, utcDay } from '../pipeline/helpers/pipeline-fixture.js';
import { behindMs } from '../../src/load/series-freshness.js';
import { analystWarehouse } from './analyst-fixture.js';
import { currentNames } from './current-names.js';

type Row = Record<string, unknown>;

const day = (d: unknown): string => (d as Date).toISOString().slice(0, 10);
/** Doubles summed in another order differ in the last bits: compare them at 1e-6. */
const round = (v: unknown): unknown => (typeof v === 'number' && !Number.isInteger(v) ? Math.round(v * 1e6) / 1e6 : v);

function sorted(rows: Row[], keys: string[]): Row[] {
  const key = (r: Row) => keys.map((k) => (r[k] instanceof Date ? day(r[k]) : String(r[k]))).join('|');
  return rows
    .map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, round(v)])))
    .sort((a, b) => key(a).localeCompare(key(b)));
}

function expectSameRows(actual: Row[], expected: Row[], keys: string[]): void {
  expect(actual.length).toBeGreaterThan(0);
  expect(sorted(actual, keys)).toEqual(sorted(expected, keys));
}

/** An average of money as the views give it: DECIMAL(18,4), rounded half away from zero. */
const money4 = (v: number | null): number | null => (v === null ? null : Math.round(v * 1e4) / 1e4);

/** The watermark of every series (`stream|series_key` → epoch ms), as the loader keeps it. */
async function watermarks(q: (sql: string) => Promise<Row[]>): Promise<Map<string, number>> {
  return new Map(
    (await q(`SELECT stream, series_key, watermark FROM _etl_series_state`)).map((r) => [
      `${String(r.stream)}|${String(r.series_key)}`,
      (r.watermark as Date).getTime(),
    ]),
  );
}

/** Whether the day ended before the watermark of the series `key` of `stream` (none: false) — the views' `complete`, without SQL. */
function endedBefore(wm: Map<string, number>, stream: string, key: string, d: string): boolean {
  const w = wm.get(`${stream}|${key}`);
  return w !== undefined && Date.parse(`${d}T00:00:00Z`) + 86_400_000 <= w;
}

/** Per (dims, day): the day point when the series has one, else the sum of its hour points — written without SQL. */
function daily(
  rows: Row[],
  dims: string[],
  measure: string,
): Map<string, { dims: string[]; day: string; value: number; unit: 'day' | 'hour' }> {
  const byUnit = new Map<string, { dims: string[]; day: string; day_: number; hour: number; hasDay: boolean }>();
  for (const r of rows) {
    const dimValues = dims.map((d) => r[d] as string);
    const k = [...dimValues, day(r.time)].join('|');
    const e = byUnit.get(k) ?? { dims: dimValues, day: day(r.time), day_: 0, hour: 0, hasDay: false };
    if (r.unit === 'day') {
      e.day_ += num(r[measure]);
      e.hasDay = true;
    } else e.hour += num(r[measure]);
    byUnit.set(k, e);
  }
  return new Map(
    [...byUnit].map(([k, e]) => [
      k,
      {
        dims: e.dims,
        day: e.day,
        value: e.hasDay ? e.day_ : e.hour,
        unit: e.hasDay ? ('day' as const) : ('hour' as const),
      },
    ]),
  );
}

describe('the analyst views of a demo warehouse', () => {
  let f: PipelineFixture;
  const q = (sql: string) => f.query(sql);

  beforeAll(async () => {
    f = await analystWarehouse();
    // Day points beside the hour points of two days: the views must take the day point, not add both. Event counts are
    // loaded daily: hour points beside one day point must be ignored, and an event with hour points only summed.
    const [event] = await f.query(
      `SELECT min(event) AS name FROM event_counts WHERE app_id = '*' AND segment_id = '*'`,
    );
    const hour = (iso: string) => new Date(`${iso}:00:00Z`);
    const wh = await Warehouse.open(f.db, WAREHOUSE_TABLES);
    try {
      await wh.commit({
        runId: 'manual-day-points',
        loadedAt: new Date(),
        state: [],
        upserts: [
          {
            table: 'sessions',
            rows: [
              { app_id: '*', segment_id: '*', unit: 'day', time: utcDay('2025-01-05'), sessions: 123_456 },
              { app_id: 'app_2', segment_id: '*', unit: 'day', time: utcDay('2025-01-06'), sessions: 7 },
            ],
          },
          {
            table: 'event_counts',
            rows: [
              {
                event: event?.name,
                app_id: '*',
                segment_id: '*',
                unit: 'hour',
                time: hour('2025-01-05T03'),
                count: 900_000,
              },
              {
                event: 'hourly_only',
                app_id: '*',
                segment_id: '*',
                unit: 'hour',
                time: hour('2025-01-05T03'),
                count: 4,
              },
              {
                event: 'hourly_only',
                app_id: '*',
                segment_id: '*',
                unit: 'hour',
                time: hour('2025-01-05T17'),
                count: 5,
              },
            ],
          },
        ],
      });
    } finally {
      await wh.close();
    }
  }, 120_000);
  afterAll(async () => f?.close());

  it('gives every view and every column a comment', async () => {
    const views = await q(`SELECT view_name, comment FROM duckdb_views() WHERE schema_name = 'analytics' ORDER BY 1`);
    expect(views.map((v) => v.view_name)).toEqual([
      'calendar',
      'campaign_daily',
      'campaign_message_daily',
      'campaign_names_by_day',
      'canvas_daily',
      'canvas_names_by_day',
      'canvas_step_conversions',
      'canvas_step_funnel',
      'canvas_step_names_by_day',
      'canvas_variant_daily',
      'canvas_variant_names_by_day',
      'event_counts_daily',
      'event_counts_daily_by_app',
      'event_counts_daily_by_app_segment',
      'event_counts_daily_by_segment',
      'freshness',
      'kpis_daily',
      'kpis_daily_by_app',
      'purchases_daily',
      'purchases_daily_by_app',
      'purchases_daily_by_app_product',
      'purchases_daily_by_product',
      'runs',
      'segment_names_by_day',
      'segment_size_daily',
      'sessions_daily',
      'sessions_daily_by_app',
      'sessions_daily_by_app_segment',
      'sessions_daily_by_segment',
    ]);
    for (const v of views) expect(String(v.comment ?? ''), String(v.view_name)).toMatch(/\w{3,}/);
    const columns = await q(
      `SELECT table_name, column_name, comment FROM duckdb_columns() WHERE schema_name = 'analytics'`,
    );
    expect(columns.length).toBeGreaterThan(80);
    expect(columns.filter((c) => !c.comment).map((c) => `${String(c.table_name)}.${String(c.column_name)}`)).toEqual(
      [],
    );
  });

  it('revenue and purchases per day: totals, per app, per product and per pair, each from its own rows', async () => {
    const revenue = daily(await q(`SELECT * FROM revenue`), ['app_id', 'product'], 'revenue');
    const quantity = daily(await q(`SELECT * FROM purchase_quantity`), ['app_id', 'product'], 'purchase_quantity');
    const wm = await watermarks(q);
    const ended = (stream: string, e: { dims: string[]; day: string; unit: string } | undefined) =>
      e === undefined || endedBefore(wm, stream, `unit=${e.unit}|app_id=${e.dims[0]}|product=${e.dims[1]}`, e.day);
    const all = new Map<string, Row>();
    for (const [k, e] of [...revenue, ...quantity]) all.set(k, { app_id: e.dims[0], product: e.dims[1], day: e.day });
    const expected = [...all].map(([k, r]) => {
      const rev = revenue.get(k)?.value ?? null;
      const qty = quantity.get(k)?.value ?? null;
      const complete = ended('revenue', revenue.get(k)) && ended('purchase_quantity', quantity.get(k));
      return {
        ...r,
        revenue: rev,
        purchases: qty,
        revenue_per_purchase: rev !== null && qty ? money4(rev / qty) : null,
        complete,
      } as Row;
    });
    const pick = (app: boolean, product: boolean) =>
      expected
        .filter((r) => (r.app_id !== '*') === app && (r.product !== '*') === product)
        .map(({ app_id, product: p, ...rest }) => ({
          ...rest,
          ...(app ? { app_id } : {}),
          ...(product ? { product: p } : {}),
        }));
    const asDays = (rows: Row[]): Row[] => rows.map((r) => ({ ...r, day: day(r.day) }));
    expectSameRows(asDays(await q(`SELECT * FROM analytics.purchases_daily`)), pick(false, false), ['day']);
    expectSameRows(asDays(await q(`SELECT * FROM analytics.purchases_daily_by_app`)), pick(true, false), [
      'day',
      'app_id',
    ]);
    expectSameRows(asDays(await q(`SELECT * FROM analytics.purchases_daily_by_product`)), pick(false, true), [
      'day',
      'product',
    ]);
    expectSameRows(asDays(await q(`SELECT * FROM analytics.purchases_daily_by_app_product`)), pick(true, true), [
      'day',
      'app_id',
      'product',
    ]);
    // app_2 has purchases but no revenue series: its revenue is unknown (NULL), not zero.
    expect(
      (
        await q(
          `SELECT count(*) AS n FROM analytics.purchases_daily_by_app WHERE app_id = 'app_2' AND revenue IS NULL AND purchases IS NOT NULL`,
        )
      )[0]?.n,
    ).toBeGreaterThan(30);
  });

  it('sessions per day: the day point wins over the sum of hours, totals and breakdowns apart', async () => {
    const expected = [...daily(await q(`SELECT * FROM sessions`), ['app_id', 'segment_id'], 'sessions').values()];
    const wm = await watermarks(q);
    const segmentNames = await currentNames(q, 'segments');
    const pick = (app: boolean, seg: boolean) =>
      expected
        .filter((e) => (e.dims[0] !== '*') === app && (e.dims[1] !== '*') === seg)
        .map((e) => ({
          day: e.day,
          ...(app ? { app_id: e.dims[0] } : {}),
          ...(seg ? { segment_id: e.dims[1], segment_name: segmentNames.get(e.dims[1]) ?? null } : {}),
          sessions: e.value,
          complete: endedBefore(wm, 'sessions', `unit=${e.unit}|app_id=${e.dims[0]}|segment_id=${e.dims[1]}`, e.day),
        }));
    const asDays = (rows: Row[]): Row[] => rows.map((r) => ({ ...r, day: day(r.day) }));
    expectSameRows(asDays(await q(`SELECT * FROM analytics.sessions_daily`)), pick(false, false), ['day']);
    expectSameRows(asDays(await q(`SELECT * FROM analytics.sessions_daily_by_app`)), pick(true, false), [
      'day',
      'app_id',
    ]);
    expectSameRows(asDays(await q(`SELECT * FROM analytics.sessions_daily_by_segment`)), pick(false, true), [
      'day',
      'segment_id',
    ]);
    expectSameRows(asDays(await q(`SELECT * FROM analytics.sessions_daily_by_app_segment`)), pick(true, true), [
      'day',
      'app_id',
      'segment_id',
    ]);
    expect(await q(`SELECT sessions FROM analytics.sessions_daily WHERE day = DATE '2025-01-05'`)).toEqual([
      { sessions: 123_456 },
    ]);
    // A day of every view but the last is complete; the day in progress at the run's --until is not.
    const last = await q(
      `SELECT day, complete FROM analytics.sessions_daily WHERE day >= (SELECT max(day) FROM analytics.sessions_daily) - 1 ORDER BY day`,
    );
    expect(last.map((r) => r.complete)).toEqual([true, false]);
  });

  it('never double-counts: no view holds a "*" row, and SUM over the totals view is the platform total, not the naive sum', async () => {
    for (const [view, cols] of [
      ['purchases_daily_by_app', ['app_id']],
      ['purchases_daily_by_product', ['product']],
      ['purchases_daily_by_app_product', ['app_id', 'product']],
      ['sessions_daily_by_app', ['app_id']],
      ['sessions_daily_by_segment', ['segment_id']],
      ['sessions_daily_by_app_segment', ['app_id', 'segment_id']],
      ['kpis_daily_by_app', ['app_id']],
      ['event_counts_daily_by_app', ['app_id']],
      ['event_counts_daily_by_segment', ['segment_id']],
      ['event_counts_daily_by_app_segment', ['app_id', 'segment_id']],
    ] as const) {
      const [row] = await q(
        `SELECT count(*) AS n FROM analytics.${view} WHERE ${cols.map((c) => `"${c}" = '*'`).join(' OR ')}`,
      );
      expect(row?.n, view).toBe(0);
    }
    const base = await q(`SELECT app_id, product, revenue FROM revenue WHERE unit = 'day'`);
    const platformTotal = base
      .filter((r) => r.app_id === '*' && r.product === '*')
      .reduce((s, r) => s + num(r.revenue), 0);
    const naive = base.reduce((s, r) => s + num(r.revenue), 0);
    const [viewTotal] = await q(`SELECT sum(revenue) AS total FROM analytics.purchases_daily`);
    expect(num(viewTotal?.total)).toBeCloseTo(platformTotal, 6);
    expect(naive).toBeGreaterThan(platformTotal * 1.2);
    const [pairs] = await q(`SELECT sum(revenue) AS total FROM analytics.purchases_daily_by_app_product`);
    const pairTotal = base.filter((r) => r.app_id !== '*' && r.product !== '*').reduce((s, r) => s + num(r.revenue), 0);
    expect(num(pairs?.total)).toBeCloseTo(pairTotal, 6);

    // The same for new users (KPIs) and event counts: the totals view sums the platform's '*' rows only.
    const kpis = await q(`SELECT app_id, value FROM kpi_series WHERE metric = 'new_users'`);
    const newUsers = kpis.filter((r) => r.app_id === '*').reduce((s, r) => s + num(r.value), 0);
    const [kpiTotal] = await q(`SELECT sum(new_users) AS total FROM analytics.kpis_daily`);
    expect(num(kpiTotal?.total)).toBe(newUsers);
    expect(kpis.reduce((s, r) => s + num(r.value), 0)).toBeGreaterThan(newUsers * 1.2);
    const events = await q(`SELECT app_id, segment_id, count FROM event_counts WHERE unit = 'day'`);
    const eventTotal = events
      .filter((r) => r.app_id === '*' && r.segment_id === '*')
      .reduce((s, r) => s + num(r.count), 0);
    const [viewEvents] = await q(
      `SELECT sum(count) AS total FROM analytics.event_counts_daily WHERE event <> 'hourly_only'`,
    );
    expect(num(viewEvents?.total)).toBe(eventTotal);
    expect(events.reduce((s, r) => s + num(r.count), 0)).toBeGreaterThan(eventTotal * 1.2);
  });

  it('daily KPIs per app: the four KPIs with stickiness, sessions per DAU and ARPDAU from the same app and day', async () => {
    const sessions = daily(await q(`SELECT * FROM sessions`), ['app_id', 'segment_id'], 'sessions');
    const revenue = daily(await q(`SELECT * FROM revenue`), ['app_id', 'product'], 'revenue');
    const wm = await watermarks(q);
    const byDay = new Map<string, Row>();
    // A day of KPIs is complete when every KPI series with a point that day has passed it.
    const kpisEnded = new Map<string, boolean>();
    for (const r of await q(`SELECT * FROM kpi_series`)) {
      const k = `${String(r.app_id)}|${day(r.time)}`;
      const e = byDay.get(k) ?? {
        day: day(r.time),
        app_id: r.app_id,
        dau: null,
        mau: null,
        new_users: null,
        uninstalls: null,
      };
      e[String(r.metric)] = num(r.value);
      byDay.set(k, e);
      kpisEnded.set(
        k,
        (kpisEnded.get(k) ?? true) &&
          endedBefore(wm, 'kpis', `unit=day|metric=${String(r.metric)}|app_id=${String(r.app_id)}`, day(r.time)),
      );
    }
    const ratio = (a: unknown, b: unknown) =>
      a === null || b === null || b === 0 ? null : (a as number) / (b as number);
    const expected: Row[] = [...byDay.values()].map((e) => {
      const se = sessions.get(`${String(e.app_id)}|*|${String(e.day)}`);
      const re = revenue.get(`${String(e.app_id)}|*|${String(e.day)}`);
      const s = se?.value ?? null;
      const rev = re?.value ?? null;
      const complete =
        kpisEnded.get(`${String(e.app_id)}|${String(e.day)}`)! &&
        (se === undefined ||
          endedBefore(wm, 'sessions', `unit=${se.unit}|app_id=${String(e.app_id)}|segment_id=*`, se.day)) &&
        (re === undefined ||
          endedBefore(wm, 'revenue', `unit=${re.unit}|app_id=${String(e.app_id)}|product=*`, re.day));
      return {
        ...e,
        stickiness: ratio(e.dau, e.mau),
        sessions: s,
        sessions_per_dau: ratio(s, e.dau),
        revenue: rev,
        arpdau: money4(ratio(rev, e.dau)),
        complete,
      };
    });
    const pick = (app: boolean) =>
      expected
        .filter((e) => (e.app_id !== '*') === app)
        .map(({ app_id, ...rest }) => ({ ...rest, ...(app ? { app_id } : {}) }));
    const asDays = (rows: Row[]): Row[] => rows.map((r) => ({ ...r, day: day(r.day) }));
    const totals = asDays(await q(`SELECT * FROM analytics.kpis_daily`));
    const perApp = asDays(await q(`SELECT * FROM analytics.kpis_daily_by_app`));
    expectSameRows(totals, pick(false), ['day']);
    expectSameRows(perApp, pick(true), ['day', 'app_id']);
    // Every KPI is there; sessions and revenue only where their series are loaded (app_1: revenue, app_2: sessions).
    expect(
      totals.filter((r) => r.stickiness !== null && r.sessions_per_dau !== null && r.arpdau !== null).length,
    ).toBeGreaterThan(60);
    expect(
      perApp.filter((r) => r.app_id === 'app_1' && r.arpdau !== null && r.sessions === null).length,
    ).toBeGreaterThan(60);
    expect(
      perApp.filter((r) => r.app_id === 'app_2' && r.sessions_per_dau !== null && r.revenue === null).length,
    ).toBeGreaterThan(60);
    expect(perApp.find((r) => r.app_id === 'app_2' && r.day === '2025-01-06')?.sessions).toBe(7);
  });

  it('event counts per day: the day point over hours, the 7-day average of full weeks and the change from a week before', async () => {
    const counts = daily(await q(`SELECT * FROM event_counts`), ['event', 'app_id', 'segment_id'], 'count');
    const wm = await watermarks(q);
    const segmentNames = await currentNames(q, 'segments');
    const shift = (d: string, days: number) => day(new Date(new Date(`${d}T00:00:00Z`).getTime() + days * 86_400_000));
    const expected = [...counts.values()].map((e) => {
      const at = (d: string) => counts.get([...e.dims, d].join('|'))?.value ?? null;
      const week = Array.from({ length: 7 }, (_, i) => at(shift(e.day, -i)));
      const before = at(shift(e.day, -7));
      return {
        event: e.dims[0],
        app_id: e.dims[1],
        segment_id: e.dims[2],
        day: e.day,
        count: e.value,
        count_7d_avg: week.every((v) => v !== null) ? week.reduce((s: number, v) => s + (v ?? 0), 0) / 7 : null,
        count_week_before: before,
        wow_change: before === null ? null : e.value - before,
        wow_change_rate: before ? (e.value - before) / before : null,
        complete: endedBefore(
          wm,
          'event_counts',
          `unit=${e.unit}|event=${e.dims[0]}|app_id=${e.dims[1]}|segment_id=${e.dims[2]}`,
          e.day,
        ),
      };
    });
    const pick = (app: boolean, seg: boolean) =>
      expected
        .filter((e) => (e.app_id !== '*') === app && (e.segment_id !== '*') === seg)
        .map(({ app_id, segment_id, ...rest }) => ({
          ...rest,
          ...(app ? { app_id } : {}),
          ...(seg ? { segment_id, segment_name: segmentNames.get(segment_id) ?? null } : {}),
        }));
    const asDays = (rows: Row[]): Row[] => rows.map((r) => ({ ...r, day: day(r.day) }));
    const totals = asDays(await q(`SELECT * FROM analytics.event_counts_daily`));
    expectSameRows(totals, pick(false, false), ['event', 'day']);
    expectSameRows(asDays(await q(`SELECT * FROM analytics.event_counts_daily_by_app`)), pick(true, false), [
      'event',
      'app_id',
      'day',
    ]);
    expectSameRows(asDays(await q(`SELECT * FROM analytics.event_counts_daily_by_segment`)), pick(false, true), [
      'event',
      'segment_id',
      'day',
    ]);
    expectSameRows(asDays(await q(`SELECT * FROM analytics.event_counts_daily_by_app_segment`)), pick(true, true), [
      'event',
      'app_id',
      'segment_id',
      'day',
    ]);
    expect(totals.filter((r) => r.event === 'hourly_only')).toEqual([
      // Loaded by no series of the pipeline: no watermark says the day is whole.
      {
        day: '2025-01-05',
        event: 'hourly_only',
        count: 9,
        count_7d_avg: null,
        count_week_before: null,
        wow_change: null,
        wow_change_rate: null,
        complete: false,
      },
    ]);
    expect(totals.some((r) => r.count_7d_avg !== null && r.wow_change_rate !== null && r.wow_change !== 0)).toBe(true);
    expect(totals.filter((r) => r.count_7d_avg === null && r.event !== 'hourly_only').length).toBeGreaterThan(0);
  });

  it("campaigns per day and per day, channel and variation: each measure from its channel's own field, named, with rates and current names", async () => {
    const names = await currentNames(q, 'campaigns');
    const messages = await q(`SELECT * FROM campaign_message_series`);
    const wm = await watermarks(q);
    const campaignEnded = (id: unknown, t: unknown) =>
      endedBefore(wm, 'campaign_series', `unit=day|campaign_id=${String(id)}`, day(t));
    // Which field each measure reads per channel, written out from the platform's documentation (not from sql/views).
    const n = (v: unknown) => (v === null || v === undefined ? null : num(v));
    const minus = (a: unknown, b: unknown) => (n(a) === null || n(b) === null ? null : n(a)! - n(b)!);
    type Measure = [string | null, (m: Row) => number | null];
    const none: Measure = [null, () => null];
    type Measures = {
      reached: Measure;
      opens: Measure;
      all_opens: (m: Row) => number | null;
      clicks: Measure;
      unsubscribes: Measure;
    };
    const PUSH: Measures = {
      reached: ['sent - bounces', (m) => minus(m.sent, m.bounces)],
      opens: ['direct_opens', (m) => n(m.direct_opens)],
      all_opens: (m) => n(m.total_opens),
      clicks: ['body_clicks', (m) => n(m.body_clicks)],
      unsubscribes: none,
    };
    const MEASURES: Record<string, Measures> = {
      email: {
        reached: ['delivered', (m) => n(m.delivered)],
        opens: ['unique_opens', (m) => n(m.unique_opens)],
        all_opens: (m) => n(m.opens),
        clicks: ['unique_clicks', (m) => n(m.unique_clicks)],
        unsubscribes: ['unsubscribes', (m) => n(m.unsubscribes)],
      },
      ios_push: PUSH,
      android_push: PUSH,
      sms: {
        reached: ['delivered', (m) => n(m.delivered)],
        opens: none,
        all_opens: () => null,
        clicks: none,
        unsubscribes: ['opt_out', (m) => n(m.opt_out)],
      },
      webhook: {
        reached: ['sent - errors', (m) => minus(m.sent, m.errors)],
        opens: none,
        all_opens: () => null,
        clicks: none,
        unsubscribes: none,
      },
      content_cards: {
        reached: ['unique_impressions', (m) => n(m.unique_impressions)],
        opens: none,
        all_opens: () => null,
        clicks: ['unique_clicks', (m) => n(m.unique_clicks)],
        unsubscribes: none,
      },
      in_app_message: {
        reached: ['impressions', (m) => n(m.impressions)],
        opens: none,
        all_opens: () => null,
        clicks: ['clicks', (m) => n(m.clicks)],
        unsubscribes: none,
      },
    };
    expect(new Set(messages.map((m) => m.channel))).toEqual(new Set(Object.keys(MEASURES)));
    const ratio = (a: number | null, b: number | null) => (a === null || !b ? null : a / b);
    const sum = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : a + b);
    const sums = new Map<
      string,
      {
        sent: number | null;
        reached: number | null;
        opens: number | null;
        clicks: number | null;
        measures: Set<string>;
      }
    >();
    for (const m of messages) {
      const k = `${String(m.campaign_id)}|${day(m.time)}`;
      const x = MEASURES[String(m.channel)]!;
      const acc = sums.get(k) ?? { sent: null, reached: null, opens: null, clicks: null, measures: new Set<string>() };
      acc.sent = sum(acc.sent, n(m.sent));
      acc.reached = sum(acc.reached, x.reached[1](m));
      acc.opens = sum(acc.opens, x.opens[1](m));
      acc.clicks = sum(acc.clicks, x.clicks[1](m));
      acc.measures.add(
        `${String(m.channel)}: reached = ${x.reached[0] ?? '-'}, opens = ${x.opens[0] ?? '-'}, clicks = ${x.clicks[0] ?? '-'}`,
      );
      sums.set(k, acc);
    }
    expectSameRows(
      (await q(`SELECT * FROM analytics.campaign_daily`)).map((r) => ({ ...r, day: day(r.day) })),
      (await q(`SELECT * FROM campaign_series`)).map((t) => {
        const m = sums.get(`${String(t.campaign_id)}|${day(t.time)}`);
        return {
          day: day(t.time),
          campaign_id: t.campaign_id,
          campaign_name: names.get(t.campaign_id) ?? null,
          unique_recipients: num(t.unique_recipients),
          sent: m?.sent ?? null,
          reached: m?.reached ?? null,
          opens: m?.opens ?? null,
          clicks: m?.clicks ?? null,
          measures: m ? [...m.measures].sort().join('; ') : null,
          conversions: num(t.conversions),
          conversions1: num(t.conversions1),
          conversions2: num(t.conversions2),
          conversions3: num(t.conversions3),
          conversion_rate: ratio(num(t.conversions), num(t.unique_recipients)),
          revenue: t.revenue,
          complete: campaignEnded(t.campaign_id, t.time),
        };
      }),
      ['campaign_id', 'day'],
    );
    const variationNames = new Map(
      (await q(`SELECT campaign_id, variation_id, name FROM campaign_messages`)).map((r) => [
        `${String(r.campaign_id)}|${String(r.variation_id)}`,
        r.name,
      ]),
    );
    const actual: Row[] = (await q(`SELECT * FROM analytics.campaign_message_daily`)).map((r) => ({
      ...r,
      day: day(r.day),
    }));
    expectSameRows(
      actual,
      messages.map((m) => {
        const x = MEASURES[String(m.channel)]!;
        const [reached, opens, clicks] = [x.reached[1](m), x.opens[1](m), x.clicks[1](m)];
        return {
          day: day(m.time),
          campaign_id: m.campaign_id,
          campaign_name: names.get(m.campaign_id) ?? null,
          channel: m.channel,
          variation_key: m.variation_key,
          variation_id: m.variation_api_id,
          variation_name:
            variationNames.get(`${String(m.campaign_id)}|${String(m.variation_api_id)}`) ?? m.variation_name,
          sent: n(m.sent),
          reached,
          reached_field: x.reached[0],
          opens,
          opens_field: x.opens[0],
          all_opens: x.all_opens(m),
          clicks,
          clicks_field: x.clicks[0],
          unsubscribes: x.unsubscribes[1](m),
          unsubscribes_field: x.unsubscribes[0],
          reach_rate: ratio(reached, n(m.sent)),
          open_rate: ratio(opens, reached),
          click_rate: ratio(clicks, reached),
          click_to_open_rate: ratio(clicks, opens),
          conversions: n(m.conversions),
          revenue: m.revenue,
          extra_stats: m.extra_stats,
          complete: campaignEnded(m.campaign_id, m.time),
        };
      }),
      ['campaign_id', 'day', 'channel', 'variation_key'],
    );
    expect(
      actual.filter((r) => r.open_rate !== null && r.campaign_name !== null && r.variation_name !== null).length,
    ).toBeGreaterThan(100);
    // A push open is a direct open; an SMS has no opens; an in-app message is measured by its impressions.
    expect(
      actual.some((r) => String(r.channel).endsWith('_push') && r.opens !== null && r.opens_field === 'direct_opens'),
    ).toBe(true);
    expect(actual.filter((r) => r.channel === 'sms' && (r.opens !== null || r.open_rate !== null))).toEqual([]);
    expect(
      actual.some(
        (r) => r.channel === 'in_app_message' && r.reached_field === 'impressions' && (r.click_rate as number) > 0,
      ),
    ).toBe(true);
  });

  it('segment sizes with the change from the day before, NULL where that day is missing', async () => {
    const rows = await q(`SELECT segment_id, time, size FROM segment_size`);
    const wm = await watermarks(q);
    const names = await currentNames(q, 'segments');
    const size = new Map(rows.map((r) => [`${String(r.segment_id)}|${day(r.time)}`, num(r.size)]));
    const expected = rows.map((r) => {
      const prevDay = new Date((r.time as Date).getTime() - 86_400_000);
      const prev = size.get(`${String(r.segment_id)}|${day(prevDay)}`) ?? null;
      const s = num(r.size);
      return {
        day: day(r.time),
        segment_id: r.segment_id,
        segment_name: names.get(r.segment_id) ?? null,
        size: s,
        previous_size: prev,
        growth: prev === null ? null : s - prev,
        growth_rate: prev ? (s - prev) / prev : null,
        complete: endedBefore(wm, 'segment_size', `unit=day|segment_id=${String(r.segment_id)}`, day(r.time)),
      };
    });
    const actual: Row[] = (await q(`SELECT * FROM analytics.segment_size_daily`)).map((r) => ({
      ...r,
      day: day(r.day),
    }));
    expectSameRows(actual, expected, ['segment_id', 'day']);
    expect(actual.filter((r) => r.previous_size === null)).toHaveLength(2);
  });

  it('Canvas per day and per variant: entries, conversions, rate and revenue, with current names', async () => {
    const names = await currentNames(q, 'canvases');
    const summary = await q(`SELECT * FROM canvas_summary`);
    const wm = await watermarks(q);
    const canvasEnded = (id: unknown, d: unknown) =>
      endedBefore(wm, 'canvas_summary', `unit=day|canvas_id=${String(id)}`, day(d));
    expectSameRows(
      (await q(`SELECT * FROM analytics.canvas_daily`)).map((r) => ({ ...r, day: day(r.day) })),
      summary.map((s) => ({
        day: day(s.day),
        canvas_id: s.canvas_id,
        canvas_name: names.get(s.canvas_id),
        entries: num(s.entries),
        conversions: num(s.conversions),
        conversions_by_entry_time: num(s.conversions_by_entry_time),
        conversion_rate: num(s.entries) ? num(s.conversions) / num(s.entries) : null,
        revenue: s.revenue,
        complete: canvasEnded(s.canvas_id, s.day),
      })),
      ['canvas_id', 'day'],
    );
    const variantNames = new Map(
      (await q(`SELECT canvas_id, variant_id, name FROM canvas_variants`)).map((r) => [
        `${String(r.canvas_id)}|${String(r.variant_id)}`,
        r.name,
      ]),
    );
    const variants = await q(`SELECT * FROM canvas_variant_summary`);
    expectSameRows(
      (await q(`SELECT * FROM analytics.canvas_variant_daily`)).map((r) => ({ ...r, day: day(r.day) })),
      variants.map((v) => ({
        day: day(v.day),
        canvas_id: v.canvas_id,
        canvas_name: names.get(v.canvas_id),
        variant_id: v.variant_id,
        variant_name: variantNames.get(`${String(v.canvas_id)}|${String(v.variant_id)}`) ?? v.name,
        entries: num(v.entries),
        conversions: num(v.conversions),
        conversion_rate: num(v.entries) ? num(v.conversions) / num(v.entries) : null,
        revenue: v.revenue,
        complete: canvasEnded(v.canvas_id, v.day),
      })),
      ['canvas_id', 'variant_id', 'day'],
    );
  });

  it('the conversions credited to each Canvas step: steps at their shortest distance from a first step, with their totals over every day', async () => {
    const steps = await q(`SELECT canvas_id, step_id, name, type, next_step_ids FROM canvas_steps`);
    const next = new Map(
      steps.map((s) => [`${String(s.canvas_id)}|${String(s.step_id)}`, (s.next_step_ids as string[] | null) ?? []]),
    );
    const position = new Map<string, number>();
    for (const v of await q(`SELECT canvas_id, first_step_id FROM canvas_variants WHERE first_step_id IS NOT NULL`)) {
      let frontier = [String(v.first_step_id)];
      for (let depth = 1; frontier.length > 0 && depth < 100; depth += 1) {
        const following: string[] = [];
        for (const id of frontier) {
          const k = `${String(v.canvas_id)}|${id}`;
          if ((position.get(k) ?? Infinity) <= depth) continue;
          position.set(k, depth);
          following.push(...(next.get(k) ?? []));
        }
        frontier = following;
      }
    }
    const entries = new Map<unknown, number>();
    for (const s of await q(`SELECT canvas_id, entries FROM canvas_summary`))
      entries.set(s.canvas_id, (entries.get(s.canvas_id) ?? 0) + num(s.entries));
    const sent = new Map<string, [number, number]>();
    for (const m of await q(`SELECT canvas_id, step_id, sent, opens FROM canvas_step_messages`)) {
      const k = `${String(m.canvas_id)}|${String(m.step_id)}`;
      const [s, o] = sent.get(k) ?? [0, 0];
      sent.set(k, [s + num(m.sent), o + num(m.opens)]);
    }
    const names = await currentNames(q, 'canvases');
    const stepInfo = new Map(steps.map((s) => [`${String(s.canvas_id)}|${String(s.step_id)}`, s]));
    const acc = new Map<string, Row>();
    for (const r of await q(`SELECT * FROM canvas_step_summary ORDER BY day`)) {
      const k = `${String(r.canvas_id)}|${String(r.step_id)}`;
      const a = acc.get(k) ?? {
        canvas_id: r.canvas_id,
        step_id: r.step_id,
        conversions: 0,
        revenue: 0,
        first_day: day(r.day),
      };
      a.conversions = (a.conversions as number) + num(r.conversions);
      a.revenue = (a.revenue as number) + num(r.revenue);
      a.last_day = day(r.day);
      a.summary_name = r.name;
      acc.set(k, a);
    }
    const expected = [...acc].map(([k, a]) => {
      const info = stepInfo.get(k);
      const e = entries.get(a.canvas_id) ?? null;
      return {
        canvas_id: a.canvas_id,
        canvas_name: names.get(a.canvas_id),
        position: position.get(k) ?? null,
        step_id: a.step_id,
        step_name: info?.name ?? a.summary_name,
        step_type: info?.type ?? null,
        messages_sent: sent.get(k)?.[0] ?? 0,
        opens: sent.get(k)?.[1] ?? 0,
        conversions: a.conversions,
        revenue: a.revenue,
        canvas_entries: e,
        conversions_per_entry: e ? (a.conversions as number) / e : null,
        first_day: a.first_day,
        last_day: a.last_day,
      };
    });
    const actual: Row[] = (await q(`SELECT * FROM analytics.canvas_step_conversions`)).map((r) => ({
      ...r,
      first_day: day(r.first_day),
      last_day: day(r.last_day),
    }));
    expectSameRows(actual, expected, ['canvas_id', 'step_id']);
    expect(actual.some((r) => num(r.position) >= 3)).toBe(true);
    // Why the rows are not a funnel: in some Canvas a step further along a path is credited more than one before it.
    const messageSteps = actual.filter((r) => r.step_type === 'message' && r.position !== null);
    expect(
      messageSteps.some((a) =>
        messageSteps.some(
          (b) =>
            b.canvas_id === a.canvas_id && num(b.position) > num(a.position) && num(b.conversions) > num(a.conversions),
        ),
      ),
    ).toBe(true);
  });

  it('says what a step row counts and that it is not summed along a path; the old name is a deprecated view of the same rows', async () => {
    const comments = new Map(
      (await q(`SELECT view_name, comment FROM duckdb_views() WHERE schema_name = 'analytics'`)).map((r) => [
        r.view_name,
        String(r.comment),
      ]),
    );
    expect(comments.get('canvas_step_conversions')).toMatch(
      /^The conversions and revenue the platform credits to each step of a Canvas/,
    );
    expect(comments.get('canvas_step_conversions')).toMatch(/must not be summed along a path/);
    expect(comments.get('canvas_step_funnel')).toMatch(/^Deprecated\b.*use analytics\.canvas_step_conversions/);
    // No other view is called a funnel, or mentions one in its comment or its columns'.
    expect([...comments].filter(([v, c]) => /funnel/i.test(`${String(v)} ${c}`)).map(([v]) => v)).toEqual([
      'canvas_step_funnel',
    ]);
    expect(
      await q(
        `SELECT table_name, column_name FROM duckdb_columns() WHERE schema_name = 'analytics' AND contains(lower(comment), 'funnel')`,
      ),
    ).toEqual([]);
    const sql = `SELECT * FROM analytics."VIEW" ORDER BY canvas_id, step_id`;
    const rows = await q(sql.replace('VIEW', 'canvas_step_conversions'));
    expect(rows.length).toBeGreaterThan(10);
    expect(await q(sql.replace('VIEW', 'canvas_step_funnel'))).toEqual(rows);
  });

  it('the calendar covers every day from the first to the last day of data, without a gap', async () => {
    const times: Date[] = [];
    for (const [table, column] of [
      ['revenue', 'time'],
      ['purchase_quantity', 'time'],
      ['sessions', 'time'],
      ['segment_size', 'time'],
      ['canvas_summary', 'day'],
      ['kpi_series', 'time'],
      ['event_counts', 'time'],
      ['campaign_series', 'time'],
    ])
      for (const r of await q(`SELECT min("${column}") AS lo, max("${column}") AS hi FROM "${table}"`))
        times.push(r.lo as Date, r.hi as Date);
    const bounds = {
      lo: new Date(Math.min(...times.map((t) => new Date(day(t)).getTime()))),
      hi: new Date(Math.max(...times.map((t) => t.getTime()))),
    };
    const days = (await q(`SELECT day, iso_weekday, is_weekend FROM analytics.calendar ORDER BY day`)).map((r) => ({
      ...r,
      day: day(r.day),
    }));
    const expected: Row[] = [];
    for (let t = bounds.lo.getTime(); t <= bounds.hi.getTime(); t += 86_400_000) {
      const d = new Date(t);
      const iso = d.getUTCDay() === 0 ? 7 : d.getUTCDay();
      expected.push({ day: day(d), iso_weekday: iso, is_weekend: iso >= 6 });
    }
    expect(days).toEqual(expected);
  });

  it("freshness per series and the run log, from the loader's own state", async () => {
    const state = await q(`SELECT * FROM _etl_series_state`);
    const runs = await q(`SELECT * FROM _etl_runs`);
    const holes = await q(`SELECT * FROM _etl_holes`);
    const openHoles = (s: Row) =>
      holes.filter((h) => h.stream === s.stream && h.series_key === s.series_key && h.status === 'open').length;
    const lastSuccess = Math.max(
      ...runs
        .filter((r) => r.status === 'succeeded' || r.status === 'completed_with_holes')
        .map((r) => (r.finished_at as Date).getTime()),
    );
    const fresh = await q(`SELECT * FROM analytics.freshness`);
    expectSameRows(
      fresh.map(({ age, age_hours, ...r }) => r),
      state.map((s) => ({
        stream: s.stream,
        series_key: s.series_key,
        unit: s.unit,
        watermark: s.watermark,
        rows_loaded: s.rows_loaded,
        open_holes: openHoles(s),
        last_run_id: s.last_run_id,
        last_run_status: runs.find((r) => r.run_id === s.last_run_id)?.status ?? null,
        last_successful_run_at: new Date(lastSuccess),
      })),
      ['stream', 'series_key', 'unit'],
    );
    // The age is how far behind the last completable unit the series is (a day series at today's 00:00 is 0).
    for (const r of fresh)
      expect(num(r.age_hours)).toBeCloseTo(behindMs(String(r.unit), r.watermark as Date, new Date()) / 3_600_000, 0);
    const logged = await q(`SELECT run_id, status, duration_seconds, requests FROM analytics.runs`);
    expectSameRows(
      logged,
      runs.map((r) => ({
        run_id: r.run_id,
        status: r.status,
        requests: r.requests,
        duration_seconds: r.finished_at
          ? ((r.finished_at as Date).getTime() - (r.started_at as Date).getTime()) / 1000
          : null,
      })),
      ['run_id'],
    );
  });

  it('over the Parquet tree, the SQL file of `engage-etl views` gives every view the same answers', async () => {
    const wh = await Warehouse.open(f.db, WAREHOUSE_TABLES);
    const { exportBookkeeping, exportParquet } = await import('../../src/export/export-parquet.js');
    try {
      await exportParquet(wh, f.out, { scope: 'dirty' });
      await exportBookkeeping(wh, f.out);
    } finally {
      await wh.close();
    }
    const views = (await q(`SELECT view_name FROM duckdb_views() WHERE schema_name = 'analytics' ORDER BY 1`)).map(
      (r) => String(r.view_name),
    );
    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    try {
      await conn.run(parquetViewsSql(f.out));
      // Watermarks are UTC: the age must not move with the session's time zone (UTC+14 here).
      await conn.run(`SET TimeZone = 'Pacific/Kiritimati'`);
      const ages = (
        await conn.runAndReadAll(`SELECT "unit", epoch_ms(watermark) AS w, age_hours FROM analytics.freshness`)
      ).getRowObjectsJS();
      expect(ages.length).toBeGreaterThan(0);
      for (const a of ages)
        expect(Number(a.age_hours)).toBeCloseTo(
          behindMs(String(a['unit']), new Date(Number(a.w)), new Date()) / 3_600_000,
          1,
        );
      for (const view of views) {
        const sql = `SELECT COLUMNS(c -> c NOT IN ('age', 'age_hours')) FROM analytics."${view}" ORDER BY ALL`;
        const fromParquet = (await conn.runAndReadAll(sql)).getRowObjectsJS().map((r) => fromDuckDBValue(r) as Row);
        const fromWarehouse = await q(sql);
        expect(fromParquet.length, view).toBeGreaterThan(0);
        expect(
          fromParquet.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, round(v)]))),
          view,
        ).toEqual(fromWarehouse.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, round(v)]))));
      }
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
  });
});

describe('the views of a database that exports one workspace of a shared lake', () => {
  it('start with a workspace column holding its name, and otherwise equal the views without one', async () => {
    const f = await analystWarehouse();
    const dir = await mkdtemp(join(tmpdir(), 'engage-views-ws-'));
    try {
      const copy = join(dir, 'copy.duckdb');
      await copyFile(f.db, copy);
      const wh = await Warehouse.open(copy, WAREHOUSE_TABLES);
      try {
        await new SettingsStore(wh).setWorkspace('brand_eu');
        await createAnalyticsViews(wh);
        const views = (
          await wh.query(`SELECT view_name FROM duckdb_views() WHERE schema_name = 'analytics' ORDER BY 1`)
        ).map((r) => String(r['view_name']));
        expect(views.length).toBeGreaterThan(20);
        for (const view of views) {
          const columns = await wh.query(
            `SELECT column_name FROM information_schema.columns WHERE table_schema = 'analytics' AND table_name = $1 ORDER BY ordinal_position`,
            [view],
          );
          expect(columns[0]?.['column_name'], view).toBe('workspace');
          const [distinct] = await wh.query(`SELECT list(DISTINCT "workspace") AS w FROM analytics."${view}"`);
          const rows = `SELECT COLUMNS(c -> c NOT IN ('workspace', 'age', 'age_hours')) FROM analytics."${view}" ORDER BY ALL`;
          const original = await f.query(rows);
          expect(await wh.query(rows), view).toEqual(original);
          if (original.length > 0) expect(distinct?.['w'], view).toEqual(['brand_eu']);
        }
        const [comment] = await wh.query(
          `SELECT comment FROM duckdb_columns() WHERE schema_name = 'analytics' AND table_name = 'purchases_daily' AND column_name = 'workspace'`,
        );
        expect(String(comment?.['comment'])).toMatch(/workspace=NAME/);
      } finally {
        await wh.close();
      }
    } finally {
      await f.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('the Parquet SQL file over a tree that holds no data table yet', () => {
  it('binds every view on empty typed base views, and every view is empty', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'engage-views-empty-'));
    // What an export of a warehouse without data leaves: the run log and series state, no table folder.
    const wh = await Warehouse.open(join(dir, 'empty.duckdb'), WAREHOUSE_TABLES);
    try {
      const { exportBookkeeping } = await import('../../src/export/export-parquet.js');
      await exportBookkeeping(wh, join(dir, 'out'));
    } finally {
      await wh.close();
    }
    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    try {
      await conn.run(parquetViewsSql(join(dir, 'out')));
      const views = (
        await conn.runAndReadAll(`SELECT view_name FROM duckdb_views() WHERE schema_name = 'analytics' ORDER BY 1`)
      )
        .getRowObjectsJS()
        .map((r) => String(r.view_name));
      expect(views).toEqual(
        expect.arrayContaining([
          'kpis_daily',
          'event_counts_daily',
          'campaign_daily',
          'campaign_message_daily',
          'calendar',
        ]),
      );
      for (const view of views) {
        const [row] = (await conn.runAndReadAll(`SELECT count(*) AS n FROM analytics."${view}"`)).getRowObjectsJS();
        expect(Number(row?.n), view).toBe(0);
      }
    } finally {
      conn.closeSync();
      instance.closeSync();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
