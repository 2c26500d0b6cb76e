// The nightly pipeline end to end: real emulator over HTTP, real DuckDB file, real Parquet read back by hyparquet.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLE_SPECS } from '../../src/streams/table-specs.js';
import type { RunSummary } from '../../src/pipeline/run-pipeline.js';
import { num, PipelineFixture, testPipeline, utcDay } from './helpers/pipeline-fixture.js';

const NOW = '2025-03-10T12:34:00Z';
const PIPELINE = testPipeline('2024-10-01');
// 2024-10-01 … 2025-03-10: 161 days, the last one in progress at NOW.
const DAYS = 161;
const HOURS = 160 * 24 + 13;

async function api(f: PipelineFixture, path: string): Promise<any> {
  const res = await fetch(`${f.emulator.url}${path}`, {
    headers: { Authorization: `Bearer ${f.emulator.demoApiKey}` },
  });
  expect(res.status, path).toBe(200);
  return res.json();
}

describe('a first run against the emulator', () => {
  let f: PipelineFixture;
  let summary: RunSummary;

  beforeAll(async () => {
    f = await PipelineFixture.create({ now: NOW, pipeline: PIPELINE });
    summary = await f.run({ from: undefined });
  });
  afterAll(async () => f.close());

  it('loads every unit of every series, the in-progress day and hour included, and nothing after', async () => {
    const counts = await f.query(`
      SELECT 'pq' AS t, count(*) AS n, min(time) AS lo, max(time) AS hi FROM purchase_quantity
      UNION ALL SELECT 'rev', count(*), min(time), max(time) FROM revenue
      UNION ALL SELECT 'ses', count(*), min(time), max(time) FROM sessions
      UNION ALL SELECT 'seg', count(*), min(time), max(time) FROM segment_size
      UNION ALL SELECT 'cv', count(*), min(day), max(day) FROM canvas_summary ORDER BY t`);
    const by = Object.fromEntries(counts.map((r) => [r['t'], r]));
    expect(num(by['pq']!['n'])).toBe(4 * DAYS);
    expect(num(by['rev']!['n'])).toBe(DAYS);
    expect(num(by['ses']!['n'])).toBe(2 * HOURS);
    expect(num(by['seg']!['n'])).toBe(2 * DAYS);
    expect(num(by['cv']!['n'])).toBe(2 * DAYS);
    expect(by['pq']!['lo']).toEqual(utcDay('2024-10-01'));
    expect(by['pq']!['hi']).toEqual(utcDay('2025-03-10'));
    expect(by['ses']!['hi']).toEqual(new Date('2025-03-10T12:00:00Z'));
  });

  it('stores exactly what the API answers for a day, asked for independently one day at a time', async () => {
    for (const day of ['2024-10-01', '2024-12-31', '2025-01-09', '2025-03-09', '2025-03-10']) {
      const body = await api(f, `/purchases/quantity_series?length=1&unit=day&ending_at=${day}T12:00:00Z&app_id=app_1`);
      const [row] = await f.query(
        `SELECT purchase_quantity FROM purchase_quantity WHERE app_id = 'app_1' AND product = '*' AND time = TIMESTAMP '${day} 00:00:00'`,
      );
      expect(num(row!['purchase_quantity']), day).toBe(body.data[0].purchase_quantity);
    }
    const hours = await api(
      f,
      '/sessions/data_series?length=3&unit=hour&ending_at=2025-01-09T05:30:00Z&segment_id=seg_1',
    );
    const stored = await f.query(
      `SELECT sessions FROM sessions WHERE app_id = '*' AND segment_id = 'seg_1' AND time BETWEEN TIMESTAMP '2025-01-09 03:00:00' AND TIMESTAMP '2025-01-09 05:00:00' ORDER BY time`,
    );
    expect(stored.map((r) => num(r['sessions']))).toEqual(hours.data.map((p: { sessions: number }) => p.sessions));
  });

  it("keeps Canvas summaries daily: fourteen stored days sum to the API's fourteen-day roll-up", async () => {
    const body = await api(
      f,
      '/canvas/data_summary?canvas_id=cv_1&starting_at=2025-01-01T00:00:00Z&ending_at=2025-01-14T23:59:59Z',
    );
    const [sum] = await f.query(
      `SELECT sum(entries) AS entries, sum(conversions) AS conversions, round(sum(revenue), 2) AS revenue FROM canvas_summary WHERE canvas_id = 'cv_1' AND day BETWEEN DATE '2025-01-01' AND DATE '2025-01-14'`,
    );
    expect(num(sum!['entries'])).toBe(body.data.total_stats.entries);
    expect(num(sum!['conversions'])).toBe(body.data.total_stats.conversions);
    expect(num(sum!['revenue'])).toBeCloseTo(body.data.total_stats.revenue, 2);
    const [variants] = await f.query(
      `SELECT count(DISTINCT variant_id) AS n FROM canvas_variant_summary WHERE canvas_id = 'cv_1'`,
    );
    expect(num(variants!['n'])).toBeGreaterThan(1);
    const [messages] = await f.query('SELECT count(*) AS n FROM canvas_step_messages');
    expect(num(messages!['n'])).toBeGreaterThan(0);
  });

  it('loads the metadata and the paged lists whole', async () => {
    const [m] =
      await f.query(`SELECT (SELECT count(*) FROM canvases) AS canvases, (SELECT count(*) FROM canvas_steps) AS steps,
      (SELECT count(*) FROM email_templates) AS templates, (SELECT count(*) FROM content_blocks) AS blocks,
      (SELECT count(*) FROM data_integrations) AS integrations, (SELECT count(*) FROM custom_events) AS events`);
    expect(m).toMatchObject({ canvases: 2, templates: 2, blocks: 2, integrations: 23, events: 612 });
    expect(num(m!['steps'])).toBeGreaterThan(2);
    const [cv] = await f.query(`SELECT channels, created_at FROM canvases WHERE canvas_id = 'cv_1'`);
    expect(Array.isArray(cv!['channels'])).toBe(true);
    expect(cv!['created_at']).toBeInstanceOf(Date);
  });

  it('sends the minimum number of series requests: Σ ceil(units / 100) per series, one per 14 Canvas days', () => {
    const dailySeries = 4 + 1 + 2 + 8 /* KPIs */ + 4 /* event counts */;
    const minimum = dailySeries * Math.ceil(DAYS / 100) + 2 * Math.ceil(HOURS / 100) + 2 * Math.ceil(DAYS / 14);
    const snapshots = 3 /* event pages */ + 2 + 2 + 2 + 3 /* integration pages */;
    expect(summary.requests.sent).toBe(minimum + snapshots);
    expect(summary.requests.followUps).toBe(0);
  });

  it('never lets a watermark enter the in-progress day or hour', async () => {
    const rows = await f.query(
      "SELECT stream, unit, max(watermark) AS wm FROM _etl_series_state WHERE unit IN ('day', 'hour') GROUP BY ALL",
    );
    for (const r of rows) {
      expect(r['wm'], String(r['stream'])).toEqual(
        r['unit'] === 'hour' ? new Date('2025-03-10T12:00:00Z') : utcDay('2025-03-10'),
      );
    }
  });

  it('writes Parquet that an independent reader (hyparquet) reads back equal to every DuckDB table', async () => {
    for (const spec of TABLE_SPECS) {
      const dir = join(f.out, spec.name);
      // A table of a stream this pipeline does not have holds no row and gets no folder.
      const files = (await readdir(dir, { recursive: true }).catch(() => [] as string[])).filter((p) =>
        p.endsWith('.parquet'),
      );
      const cols = spec.columns.map((c) => c.name);
      const fromParquet: Record<string, unknown>[] = [];
      for (const file of files) {
        const rows = await parquetReadObjects({
          file: await asyncBufferFromFile(join(dir, file)),
          compressors,
          columns: cols,
        });
        fromParquet.push(...rows);
      }
      const fromDuck = await f.tableData(spec.name);
      const norm = (r: Record<string, unknown>) => JSON.stringify(cols.map((c) => normalize(r[c])));
      expect(fromParquet.map(norm).sort(), spec.name).toEqual(fromDuck.map(norm).sort());
    }
  });
});

/**
 * Values as both readers can agree on them: bigint → number, Date → epoch ms, JSON text → parsed, an amount (the only
 * fractional values: DECIMAL(18,2), which hyparquet hands over as its INT64 cents × 0.01) → its cents.
 */
function normalize(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'number' && !Number.isInteger(v)) return Math.round(v * 100);
  if (typeof v === 'string' && /^[[{]/.test(v)) return JSON.parse(v);
  if (v instanceof Date) return v.getTime();
  if (Array.isArray(v)) return v.map(normalize);
  return v;
}

describe('the next runs', () => {
  let f: PipelineFixture;

  beforeAll(async () => {
    f = await PipelineFixture.create({ now: NOW, pipeline: PIPELINE });
    await f.run();
  });
  afterAll(async () => f.close());

  it('a rerun at the same instant sends only look-back and current-period requests and changes no row', async () => {
    const before = await f.query('SELECT count(*) AS n, max(_run_id) AS run FROM purchase_quantity');
    const again = await f.run();
    // Daily series: 3 look-back days + the current day = 1 request; hourly: 72 + 13 hours = 1 request; Canvas: 4 days, 1 request.
    expect(again.requests.sent).toBe(19 * 1 + 2 * 1 + 2 * 1 + 3 + 2 + 2 + 2 + 3);
    expect(again.tables.reduce((n, t) => n + t.inserted + t.updated + t.deleted, 0)).toBe(0);
    expect(await f.query('SELECT count(*) AS n, max(_run_id) AS run FROM purchase_quantity')).toEqual(before);
    expect(again.parquet.filesWritten).toBe(0);
  });

  it('completes the day that was in progress once the clock has moved past it', async () => {
    const partial = await f.query(
      `SELECT purchase_quantity AS q FROM purchase_quantity WHERE app_id = '*' AND product = '*' AND time = TIMESTAMP '2025-03-10 00:00:00'`,
    );
    f.emulator.clock.set('2025-03-11T06:00:00Z');
    await f.run();
    const body = await api(f, '/purchases/quantity_series?length=1&unit=day&ending_at=2025-03-10T23:59:59Z');
    const [complete] = await f.query(
      `SELECT purchase_quantity AS q FROM purchase_quantity WHERE app_id = '*' AND product = '*' AND time = TIMESTAMP '2025-03-10 00:00:00'`,
    );
    expect(num(complete!['q'])).toBe(body.data[0].purchase_quantity);
    expect(num(complete!['q'])).toBeGreaterThan(num(partial[0]!['q']));
    const [wm] = await f.query(`SELECT min(watermark) AS wm FROM _etl_series_state WHERE unit = 'day'`);
    expect(wm!['wm']).toEqual(utcDay('2025-03-11'));
  });

  it('corrects a restated day inside the look-back, and a full refresh corrects one older than it', async () => {
    f.emulator.state.analytics.restate({ series: 'purchases', day: '2025-03-09', factor: 2 });
    f.emulator.state.analytics.restate({ series: 'purchases', day: '2025-01-15', factor: 2 });
    const q = (day: string) =>
      f
        .query(
          `SELECT purchase_quantity AS q FROM purchase_quantity WHERE app_id = '*' AND product = '*' AND time = TIMESTAMP '${day} 00:00:00'`,
        )
        .then((r) => num(r[0]!['q']));
    const upstream = async (day: string) =>
      (await api(f, `/purchases/quantity_series?length=1&unit=day&ending_at=${day}T23:59:59Z`)).data[0]
        .purchase_quantity as number;
    const [recentBefore, oldBefore] = [await q('2025-03-09'), await q('2025-01-15')];
    const summary = await f.run();
    expect(summary.tables.find((t) => t.table === 'purchase_quantity')!.updated).toBeGreaterThan(0);
    expect(await q('2025-03-09')).toBe(await upstream('2025-03-09'));
    expect(await q('2025-03-09')).toBeGreaterThan(recentBefore * 1.9);
    // Older than the look-back: not re-fetched by a nightly run (documented), corrected by a full refresh.
    expect(await q('2025-01-15')).toBe(oldBefore);
    await f.run({ fullRefresh: true, streams: 'purchase_quantity' });
    expect(await q('2025-01-15')).toBe(await upstream('2025-01-15'));
    expect(await q('2025-01-15')).toBe(oldBefore * 2);
  });
});
