// Event counts, KPIs and daily Canvas statistics over HTTP against the emulator: every table equals what the emulator's
// MODEL computes for the same units (the model functions, not HTTP), a nightly increment and a look-back restatement,
// both Canvas sources giving identical rows, reconciliation catching a seeded mismatch, and the restatement audit.
import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { restatementReport } from '../../src/cli/status-command.js';
import type { Emulator } from '../../src/emulator/server.js';
import { canvasDailyStats } from '../../src/emulator/analytics/canvas-stats.js';
import { kpiSeries } from '../../src/emulator/analytics/kpi-model.js';
import { eventCounts } from '../../src/emulator/analytics/series-query.js';
import { KPI_METRICS } from '../../src/api/types.js';
import type { KpiMetric } from '../../src/api/types.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import { recommendLookback } from '../../src/pipeline/lookback-advice.js';
import type { RunSummary } from '../../src/pipeline/run-pipeline.js';
import { num, PipelineFixture } from './helpers/pipeline-fixture.js';

const DAY = 86_400_000;
const NOW = '2025-03-10T12:34:00Z';
const NEXT = '2025-03-11T12:34:00Z';
const START = '2025-01-01';
const EVENTS = ['achievement_bought', 'achievement_claimed', 'achievement_earned'];
const CANVASES = ['cv_1', 'cv_2'];

function pipeline(canvas: string): string {
  return `
name: series12
start_date: ${START}
lookback_days: 3
streams:
  kpis:           { metrics: [dau, mau, new_users, uninstalls], apps: ["*", app_1] }
  custom_events:  {}
  event_counts:   { events: all, unit: day, apps: ["*", app_1], segments: ["*", seg_1] }
  canvas_summary: { canvases: [${CANVASES.join(', ')}], ${canvas} variant_breakdown: true, step_breakdown: true }
`;
}

function days(from: string, toInclusive: string): number[] {
  const out: number[] = [];
  for (let ms = Date.parse(`${from}T00:00:00Z`); ms <= Date.parse(`${toInclusive}T00:00:00Z`); ms += DAY) out.push(ms);
  return out;
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The emulator with only EVENTS as custom events, so `events: all` stays small. */
async function fixture(canvas = '', now = NOW): Promise<PipelineFixture> {
  const f = await PipelineFixture.create({ now, pipeline: pipeline(canvas), emulator: { rateLimits: false } });
  (f.emulator.state.analytics as { eventNames: readonly string[] }).eventNames = EVENTS;
  return f;
}

/** Every modelled value of the three tables at `nowMs`, keyed like the stored rows. */
function model(em: Emulator, nowMs: number): Map<string, number> {
  const ws = em.state.analytics;
  const app = (id: string) => (id === '*' ? undefined : ws.apps.find((a) => a.id === id));
  const seg = (id: string) => (id === '*' ? undefined : ws.segments.find((s) => s.id === id));
  const starts = days(START, isoDay(nowMs));
  const out = new Map<string, number>();
  for (const metric of KPI_METRICS) {
    for (const a of ['*', 'app_1']) {
      const filter = app(a) ? { app: app(a)! } : {};
      for (const p of kpiSeries(ws, metric, filter, starts, nowMs))
        out.set(`kpi_series|${metric}|${a}|${p.time}|value`, p.value);
    }
  }
  for (const event of EVENTS) {
    for (const a of ['*', 'app_1']) {
      for (const s of ['*', 'seg_1']) {
        const filter = { ...(app(a) ? { app: app(a)! } : {}), ...(seg(s) ? { segment: seg(s)! } : {}) };
        for (const p of eventCounts(ws, event, filter, 'day', starts, nowMs))
          out.set(`event_counts|${event}|${a}|${s}|day|${p.time}|count`, p.value);
      }
    }
  }
  for (const id of CANVASES) {
    const canvas = ws.canvases.find((c) => c.id === id)!;
    const series = canvasDailyStats(ws, canvas, starts, nowMs, {
      includeVariantBreakdown: true,
      includeStepBreakdown: true,
      includeDeletedStepData: false,
    });
    for (const d of series.stats) {
      for (const [k, v] of Object.entries(d.total_stats)) out.set(`canvas_summary|${id}|${d.time}|${k}`, v);
      for (const [variant, v] of Object.entries(d.variant_stats ?? {})) {
        for (const k of ['entries', 'conversions', 'revenue', 'conversions_by_entry_time'] as const)
          out.set(`canvas_variant_summary|${id}|${d.time}|${variant}|${k}`, v[k]!);
      }
      for (const [step, s] of Object.entries(d.step_stats ?? {})) {
        for (const k of ['conversions', 'conversions_by_entry_time', 'revenue'] as const)
          out.set(`canvas_step_summary|${id}|${d.time}|${step}|${k}`, s[k]);
        for (const [channel, list] of Object.entries(s.messages ?? {})) {
          // The spec's four fields and the channel's own: every one of them has a column.
          list.forEach((m, i) => {
            for (const [k, v] of Object.entries(m))
              out.set(`canvas_step_messages|${id}|${d.time}|${step}|${channel}|${i}|${k}`, v as number);
          });
        }
      }
    }
  }
  return out;
}

/** The same keys from the warehouse. */
async function stored(f: PipelineFixture): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const d = (v: unknown) => (v as Date).toISOString().slice(0, 10);
  for (const r of await f.query('SELECT metric, app_id, time, value FROM kpi_series'))
    out.set(`kpi_series|${r['metric']}|${r['app_id']}|${d(r['time'])}|value`, num(r['value']));
  for (const r of await f.query('SELECT * FROM event_counts'))
    out.set(
      `event_counts|${r['event']}|${r['app_id']}|${r['segment_id']}|${r['unit']}|${d(r['time'])}|count`,
      num(r['count']),
    );
  for (const r of await f.query('SELECT * FROM canvas_summary')) {
    for (const k of ['entries', 'conversions', 'conversions_by_entry_time', 'revenue'])
      out.set(`canvas_summary|${r['canvas_id']}|${d(r['day'])}|${k}`, num(r[k]));
  }
  for (const r of await f.query('SELECT * FROM canvas_variant_summary')) {
    for (const k of ['entries', 'conversions', 'revenue', 'conversions_by_entry_time'])
      out.set(`canvas_variant_summary|${r['canvas_id']}|${d(r['day'])}|${r['variant_id']}|${k}`, num(r[k]));
  }
  for (const r of await f.query('SELECT * FROM canvas_step_summary')) {
    for (const k of ['conversions', 'conversions_by_entry_time', 'revenue'])
      out.set(`canvas_step_summary|${r['canvas_id']}|${d(r['day'])}|${r['step_id']}|${k}`, num(r[k]));
  }
  const notStats = new Set([
    'canvas_id',
    'day',
    'step_id',
    'channel',
    'message_index',
    'extra_stats',
    '_loaded_at',
    '_run_id',
    '_month',
  ]);
  for (const r of await f.query('SELECT * FROM canvas_step_messages')) {
    expect(r['extra_stats']).toBeNull();
    for (const [k, v] of Object.entries(r)) {
      if (!notStats.has(k) && v !== null)
        out.set(
          `canvas_step_messages|${r['canvas_id']}|${d(r['day'])}|${r['step_id']}|${r['channel']}|${r['message_index']}|${k}`,
          num(v),
        );
    }
  }
  return out;
}

function sorted(m: Map<string, number>): [string, number][] {
  return [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

async function cli(args: string[]): Promise<{ out: string; code: number }> {
  let out = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  const before = process.exitCode;
  process.exitCode = 0;
  try {
    await main(['node', 'engage-etl', ...args]);
    return { out, code: Number(process.exitCode ?? 0) };
  } finally {
    o.mockRestore();
    process.exitCode = before;
  }
}

describe('a first run of the event, KPI and Canvas series (data_series)', () => {
  let f: PipelineFixture;
  let first: RunSummary;

  beforeAll(async () => {
    f = await fixture();
    first = await f.run();
  }, 120_000);
  afterAll(async () => f.close());

  it('stores exactly the values the emulator model computes, unit for unit, the day in progress included', async () => {
    const expected = model(f.emulator, f.emulator.clock.nowMs());
    // 69 days (2025-01-01 … 2025-03-10): 8 KPI series, 3 events × 4 app/segment series, 2 Canvases.
    expect([...expected.keys()].filter((k) => k.startsWith('kpi_series')).length).toBe(8 * 69);
    expect([...expected.keys()].filter((k) => k.startsWith('event_counts')).length).toBe(12 * 69);
    expect(sorted(await stored(f))).toEqual(sorted(expected));
  });

  it('resolves `events: all` from the events list discovery reads once, the page custom_events stores too, and sends the minimum', async () => {
    const [names] = await f.query('SELECT count(*) AS n FROM custom_events');
    expect(num(names!['n'])).toBe(EVENTS.length);
    const events = first.tables.find((t) => t.table === 'event_counts')!;
    expect(events.rows).toBe(EVENTS.length * 4 * 69);
    // One window per daily series (69 ≤ 100 days), ceil(69 / 14) = 5 per Canvas, one events page.
    expect(first.requests.sent).toBe(8 + EVENTS.length * 4 + CANVASES.length * 5 + 1);
    expect(first.requests.planned).toBe(first.requests.sent);
    expect(first.requests.minimum).toBe(first.requests.sent);
    expect(first.warnings).toEqual([]);
  });

  it('then follows the clock: a nightly increment re-reads the look-back, stores the restated values, and audits exactly the changes the model made', async () => {
    const before = model(f.emulator, f.emulator.clock.nowMs());
    const ws = f.emulator.state.analytics;
    ws.restate({ series: 'canvas', day: '2025-03-08', factor: 1.5, canvasId: 'cv_1' });
    ws.restate({ series: 'dau', day: '2025-03-09', factor: 0.5, appId: 'app_1' });
    ws.restate({ series: 'events', day: '2025-03-07', factor: 3, event: EVENTS[1]! });
    f.emulator.clock.set(NEXT);
    const second = await f.run();
    const after = model(f.emulator, f.emulator.clock.nowMs());
    expect(sorted(await stored(f))).toEqual(sorted(after));
    // The look-back starts 3 days before the watermark (2025-03-10): 2025-03-07 … 2025-03-11, one request per series.
    expect(second.requests.sent).toBe(8 + EVENTS.length * 4 + CANVASES.length + 1);

    // Expected audit: every value of a day complete at the first run's --until (03-07 … 03-09) that the model changed
    // between the two instants (restatements and late data alike), with its age at the second --until.
    const until = Date.parse(NEXT);
    const audited = new Set(['2025-03-07', '2025-03-08', '2025-03-09']);
    const expected: string[] = [];
    for (const [key, value] of before) {
      const day = key.split('|').find((p) => /^\d{4}-\d{2}-\d{2}$/.test(p))!;
      const now = after.get(key)!;
      if (!audited.has(day) || now === value) continue;
      expected.push(
        `${key.split('|')[0]}|${key.split('|').at(-1)}|${day}|${value}|${now}|${Math.floor((until - Date.parse(`${day}T00:00:00Z`)) / DAY)}`,
      );
    }
    const rows = await f.query(
      `SELECT table_name, column_name, unit_start, old_value, new_value, age_days, run_id FROM _etl_restatements`,
    );
    const got = rows.map(
      (r) =>
        `${r['table_name']}|${r['column_name']}|${(r['unit_start'] as Date).toISOString().slice(0, 10)}|${r['old_value']}|${r['new_value']}|${r['age_days']}`,
    );
    expect(got.sort()).toEqual(expected.sort());
    // The three restatements are among them, and only this run recorded anything.
    expect(expected.some((e) => e.startsWith('canvas_summary|entries|2025-03-08'))).toBe(true);
    expect(expected.some((e) => e.startsWith('kpi_series|value|2025-03-09'))).toBe(true);
    expect(expected.some((e) => e.startsWith('event_counts|count|2025-03-07'))).toBe(true);
    expect(new Set(rows.map((r) => r['run_id']))).toEqual(new Set([second.runId]));
    expect(second.restatements).toBe(expected.length);
  }, 120_000);

  it('keeps the series key of each audited value, and `status --restatements` recommends the look-back that covers them', async () => {
    const [kpi] = await f.query(
      `SELECT key_values FROM _etl_restatements WHERE table_name = 'kpi_series' AND unit_start = TIMESTAMP '2025-03-09 00:00:00' AND json_extract_string(key_values, '$.app_id') = 'app_1' AND json_extract_string(key_values, '$.metric') = 'dau'`,
    );
    expect(JSON.parse(String(kpi!['key_values']))).toEqual({ metric: 'dau', app_id: 'app_1' });
    const byAge = (await f.query('SELECT stream, age_days, count(*) AS n FROM _etl_restatements GROUP BY ALL')).map(
      (r) => ({ stream: String(r['stream']), ageDays: num(r['age_days']), changes: num(r['n']) }),
    );
    const report = await restatementReport(f, 0.999);
    for (const stream of ['kpis', 'event_counts', 'canvas_summary']) {
      const mine = byAge.filter((a) => a.stream === stream);
      const r = report.find((x) => x.stream === stream)!;
      expect(r.total).toBe(mine.reduce((n, a) => n + a.changes, 0));
      // Every change seen is at most 4 days old: 99.9 % of them needs the oldest age that has any.
      expect(r.recommendedLookbackDays).toBe(Math.max(...mine.map((a) => a.ageDays)));
    }
    const { out, code } = await cli(['status', '--db', f.db, '--restatements', '--share', '0.5']);
    expect(code).toBe(0);
    expect(out).toMatch(/canvas_summary: \d+ change\(s\); recommended lookback_days: \d/);
    expect(out).toContain('advice covers 50.0 %');
  });
});

describe('recommendLookback', () => {
  it('is the smallest age whose changes at or below it reach the share', () => {
    const ages = [
      { ageDays: 1, changes: 900 },
      { ageDays: 2, changes: 99 },
      { ageDays: 9, changes: 1 },
    ];
    expect(recommendLookback(ages, 0.9)).toBe(1);
    expect(recommendLookback(ages, 0.999)).toBe(2);
    expect(recommendLookback(ages, 1)).toBe(9);
    expect(recommendLookback([], 0.999)).toBeUndefined();
    expect(() => recommendLookback(ages, 0)).toThrow(/--share 0.999/);
  });
});

describe('daily Canvas statistics from either source', () => {
  let bySeries: PipelineFixture;
  let bySummary: PipelineFixture;
  let series: RunSummary;
  let summary: RunSummary;

  beforeAll(async () => {
    bySeries = await fixture('source: data_series,');
    bySummary = await fixture('source: data_summary,');
    series = await bySeries.run();
    summary = await bySummary.run();
  }, 120_000);
  afterAll(async () => {
    await bySeries.close();
    await bySummary.close();
  });

  it('are the same rows in all four Canvas tables', async () => {
    for (const table of [
      'canvas_summary',
      'canvas_variant_summary',
      'canvas_step_summary',
      'canvas_step_messages',
    ] as const) {
      const a = await bySeries.tableData(table);
      expect(a.length, table).toBeGreaterThan(0);
      expect(await bySummary.tableData(table), table).toEqual(a);
    }
  });

  it('cost ceil(days / 14) requests per Canvas from data_series, one per day from data_summary', () => {
    const canvasRequests = (s: RunSummary, other: number) => s.requests.sent - other;
    const others = 8 + EVENTS.length * 4 + 1;
    expect(canvasRequests(series, others)).toBe(CANVASES.length * Math.ceil(69 / 14));
    expect(canvasRequests(summary, others)).toBe(CANVASES.length * 69);
  });
});

describe('reconciliation of data_summary with the stored days', () => {
  let f: PipelineFixture;
  let run: RunSummary;

  beforeAll(async () => {
    f = await fixture('reconcile: true,');
    f.emulator.state.analytics.skewCanvasSummary({ canvasId: 'cv_1', day: '2025-03-08', conversions: 5 });
    run = await f.run();
  }, 120_000);
  afterAll(async () => f.close());

  it('records every comparison of the look-back window, and catches the seeded mismatch as a warning', async () => {
    const rows = await f.query(
      'SELECT series_key, metric, window_start, window_end, expected, actual, status FROM _etl_reconciliation ORDER BY series_key, metric',
    );
    expect(rows).toHaveLength(CANVASES.length * 4);
    for (const r of rows) {
      expect([r['window_start'], r['window_end']]).toEqual([
        new Date('2025-03-07T00:00:00Z'),
        new Date('2025-03-10T00:00:00Z'),
      ]);
      const bad = r['series_key'] === 'unit=day|canvas_id=cv_1' && r['metric'] === 'conversions';
      expect(r['status'], `${r['series_key']} ${r['metric']}`).toBe(bad ? 'mismatch' : 'match');
      if (bad) expect(num(r['expected'])).toBe(num(r['actual']) + 5);
    }
    // The actual side is the model's, summed independently of the pipeline.
    const ws = f.emulator.state.analytics;
    const model = canvasDailyStats(
      ws,
      ws.canvases.find((c) => c.id === 'cv_1')!,
      days('2025-03-07', '2025-03-09'),
      f.emulator.clock.nowMs(),
      { includeVariantBreakdown: false, includeStepBreakdown: false, includeDeletedStepData: false },
    );
    const conv = rows.find((r) => r['series_key'] === 'unit=day|canvas_id=cv_1' && r['metric'] === 'conversions')!;
    expect(num(conv['actual'])).toBe(model.stats.reduce((n, d) => n + d.total_stats.conversions, 0));
    expect(run.warnings.map((w) => [w.code, w.stream])).toEqual([['reconciliation_mismatch', 'canvas_summary']]);
    expect(run.warnings[0]!.message).toContain('conversions');
    expect(run.reconciliation).toEqual({ match: 7, mismatch: 1, incomplete: 0, unavailable: 0 });
    // Planned and sent: one data_summary per Canvas on top of the series.
    expect(run.requests.sent).toBe(run.requests.planned);
  });

  it('shows the mismatch in `engage-etl status`', async () => {
    const first = await cli(['status', '--db', f.db]);
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/^reconciliation: \d+ check\(s\), 1 mismatch\(es\)$/m);
    const { out, code } = await cli(['status', '--db', f.db, '--stream', 'canvas_summary']);
    expect(code).toBe(0);
    expect(out).toContain('reconciliation (latest check per series and metric): 1 mismatch(es)');
    expect(out).toMatch(/canvas_summary\s+unit=day\|canvas_id=cv_1\s+.*conversions\s+.*mismatch/);
  });
});

describe('a key without canvas.data_series', () => {
  it('fails with a message that says to set source: data_summary, and loads with it', async () => {
    const key = 'no-series-key-0123456789';
    const f = await PipelineFixture.create({
      now: NOW,
      pipeline: `name: t\nstart_date: 2025-03-01\nstreams:\n  canvas_summary: { canvases: [cv_1] }\n`,
      emulator: { keys: [{ key, name: 'summary only', permissions: ['canvas.data_summary'] }] },
    });
    try {
      await expect(f.run({ apiKey: key })).rejects.toThrow(
        /403.*set `source: data_summary` on the canvas_summary stream/s,
      );
      await writeFile(
        f.pipelinePath,
        `name: t\nstart_date: 2025-03-01\nstreams:\n  canvas_summary: { canvases: [cv_1], source: data_summary }\n`,
      );
      const ok = await f.run({ apiKey: key });
      expect(ok.tables.find((t) => t.table === 'canvas_summary')!.rows).toBe(10);
    } finally {
      await f.close();
    }
  });
});

describe('the KPI option', () => {
  it('is checked against the four KPIs', async () => {
    const { parsePipelineText } = await import('../../src/config/load-pipeline-file.js');
    expect(() =>
      parsePipelineText('name: t\nstart_date: 2025-01-01\nstreams:\n  kpis: { metrics: [dau, wau] }\n', 'x.yaml'),
    ).toThrow(/"wau" is not accepted; list some of dau, mau, new_users, uninstalls/);
    const p = parsePipelineText('name: t\nstart_date: 2025-01-01\nstreams:\n  kpis: {}\n', 'x.yaml');
    expect(p.streams.kpis?.metrics).toEqual(KPI_METRICS as readonly KpiMetric[]);
  });
});

describe('events: all', () => {
  const alone = 'name: t\nstart_date: 2025-03-01\nstreams:\n  event_counts: { events: all }\n';
  const named = `name: t\nstart_date: 2025-03-01\nstreams:\n  event_counts: { events: [${EVENTS.join(', ')}] }\n`;

  it('alone reads the events list itself: two runs equal the same pipeline naming every event, row for row', async () => {
    const byAll = await fixture();
    const byName = await fixture();
    try {
      await writeFile(byAll.pipelinePath, alone);
      await writeFile(byName.pipelinePath, named);
      const runs: RunSummary[] = [];
      for (const f of [byAll, byName]) {
        runs.push(await f.run());
        f.emulator.clock.set(NEXT);
        runs.push(await f.run());
      }
      // 10 days of 3 names, then the look-back and the new day; `all` costs one page of the events list per run.
      expect(runs.map((r) => [r.status, r.warnings, r.requests.sent])).toEqual([
        ['succeeded', [], 3 + 1],
        ['succeeded', [], 3 + 1],
        ['succeeded', [], 3],
        ['succeeded', [], 3],
      ]);
      expect(runs[1]!.tables.find((t) => t.table === 'event_counts')!.rows).toBe(EVENTS.length * 11);
      const wh = await Warehouse.open(byAll.db, WAREHOUSE_TABLES, { readOnly: true });
      try {
        await wh.query(`ATTACH '${byName.db}' AS named (READ_ONLY)`);
        const cols = '"event", "app_id", "segment_id", "unit", "time", "count"';
        const [diff] = await wh.query(`SELECT
          (SELECT count(*) FROM (SELECT ${cols} FROM main.event_counts EXCEPT ALL SELECT ${cols} FROM named.event_counts)) AS only_all,
          (SELECT count(*) FROM (SELECT ${cols} FROM named.event_counts EXCEPT ALL SELECT ${cols} FROM main.event_counts)) AS only_named,
          (SELECT count(*) FROM main.event_counts) AS n`);
        expect([num(diff!['only_all']), num(diff!['only_named']), num(diff!['n'])]).toEqual([0, 0, EVENTS.length * 11]);
      } finally {
        await wh.close();
      }
    } finally {
      await byAll.close();
      await byName.close();
    }
  });

  it("with custom_events beside it, requests the list's pages once per run (612 names: 3 pages) and feeds both from them", async () => {
    const f = await PipelineFixture.create({
      now: NOW,
      emulator: { rateLimits: false },
      pipeline: 'name: t\nstart_date: 2025-03-09\nstreams:\n  custom_events: {}\n  event_counts: { events: all }\n',
    });
    try {
      const names = f.emulator.state.analytics.eventNames;
      expect(names).toHaveLength(612);
      for (const night of [NOW, NEXT]) {
        f.emulator.clock.set(night);
        const pages: string[] = [];
        const summary = await f.run(
          {},
          {
            reporter: {
              emit: (e) => {
                if (e.type === 'request' && e.path === '/events/list') pages.push(e.query);
              },
              close: () => undefined,
            },
          },
        );
        expect(pages.sort()).toEqual(['page=0', 'page=1', 'page=2']);
        expect(summary.requests.planned).toBe(summary.requests.sent);
      }
      const [stored] = await f.query('SELECT count(*) AS n, count(DISTINCT last_seen_at) AS seen FROM custom_events');
      expect([num(stored!['n']), num(stored!['seen'])]).toEqual([612, 1]);
      const counted = await f.query('SELECT DISTINCT event FROM event_counts ORDER BY 1');
      expect(counted.map((r) => r['event'])).toEqual([...names].sort());
    } finally {
      await f.close();
    }
  });
});
