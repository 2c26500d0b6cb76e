// Money is exact: every amount column is DECIMAL(18,2) in the tables, the views and the Parquet files (the
// decimal logical type), a year of it sums to the platform's values to the cent, a float's noise lands as its cent, a
// digit past the cent is rounded with a warning, and a warehouse whose amounts an earlier version stored as DOUBLE is
// upgraded in place by the next run.
import { readdir, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignSeries } from '../../src/emulator/analytics/campaign-stats.js';
import { canvasDailyStats } from '../../src/emulator/analytics/canvas-stats.js';
import { MONEY, createTableSql } from '../../src/load/table-definition.js';
import { TABLE_SPECS, tableSpec, WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { beyondCents } from '../../src/pipeline/money-notices.js';
import { sameTotal } from '../../src/pipeline/reconcile.js';
import { HostileProxy } from '../hostile/hostile-proxy.js';
import { PipelineFixture } from './helpers/pipeline-fixture.js';

const DAY = 86_400_000;
const NOW = '2025-03-10T14:30:00Z';
const START = '2024-03-10';

type Json = Record<string, any>;

/** Every money column of the warehouse, as `table.column`. */
const MONEY_COLUMNS = TABLE_SPECS.flatMap((s) =>
  s.columns.filter((c) => c.type === MONEY).map((c) => `${s.name}.${c.name}`),
);

const cents = (v: number) => Math.round(v * 100);

const dayStarts = (): number[] => {
  const out: number[] = [];
  for (let ms = Date.parse(`${START}T00:00:00Z`); ms <= Date.parse(NOW); ms += DAY) out.push(ms);
  return out;
};

describe('money over a year of the emulator', () => {
  let f: PipelineFixture;
  let campaign: string;

  beforeAll(async () => {
    f = await PipelineFixture.create({ now: NOW, emulator: { rateLimits: false } });
    const ws = f.emulator.state.analytics;
    campaign = ws.campaigns.find(
      (c) =>
        c.firstSendDayMs !== undefined &&
        c.firstSendDayMs < Date.parse(`${START}T00:00:00Z`) &&
        (c.lastSendDayMs ?? Infinity) > Date.parse(NOW),
    )!.id;
    await writeFile(
      f.pipelinePath,
      `name: money\nstart_date: ${START}\nlookback_days: 3\nstreams:
  revenue: { unit: day, apps: ["*"], products: ["*"] }
  canvas_summary: { canvases: [cv_1], variant_breakdown: true, step_breakdown: true, reconcile: true }
  campaign_series: { campaigns: [${campaign}] }\n`,
    );
    const summary = await f.run();
    expect(summary.status).toBe('succeeded');
    expect(summary.reconciliation.mismatch).toBe(0);
    expect(summary.reconciliation.match).toBeGreaterThan(0);
  });
  afterAll(async () => f.close());

  it('stores every amount as DECIMAL(18,2), in the tables and in the analyst views', async () => {
    expect(MONEY_COLUMNS.sort()).toEqual([
      'campaign_message_series.revenue',
      'campaign_series.revenue',
      'canvas_step_summary.revenue',
      'canvas_summary.revenue',
      'canvas_variant_summary.revenue',
      'revenue.revenue',
    ]);
    for (const column of MONEY_COLUMNS) {
      const [table, name] = column.split('.');
      const [row] = await f.query(`SELECT typeof("${name}") AS t, count(*) AS n FROM "${table}" GROUP BY ALL`);
      expect([column, row?.['t']]).toEqual([column, 'DECIMAL(18,2)']);
    }
    const views = await f.query(`SELECT table_name || '.' || column_name AS c, data_type AS t FROM duckdb_columns()
      WHERE schema_name = 'analytics' AND (column_name = 'revenue' OR column_name IN ('revenue_per_purchase', 'arpdau')) ORDER BY 1`);
    expect(views.length).toBeGreaterThan(10);
    for (const v of views) expect(String(v['t']), String(v['c'])).toMatch(/^DECIMAL\((18|38),(2|4)\)$/);
  });

  it("sums a year to the platform's values to the cent: the revenue series, a Canvas and a campaign", async () => {
    // The platform's own answers for the year, asked directly, in cents.
    let platform = 0;
    for (let end = Date.parse(NOW); end >= Date.parse(`${START}T00:00:00Z`); end -= 100 * DAY) {
      const res = await fetch(
        `${f.emulator.url}/purchases/revenue_series?length=100&ending_at=${new Date(end).toISOString()}`,
        { headers: { Authorization: `Bearer ${f.emulator.demoApiKey}` } },
      );
      const body = (await res.json()) as { data: { time: string; revenue: number }[] };
      for (const p of body.data)
        if (Date.parse(p.time) >= Date.parse(`${START}T00:00:00Z`) && Date.parse(p.time) > end - 100 * DAY)
          platform += cents(p.revenue);
    }
    const [stored] = await f.query(`SELECT CAST(sum(revenue) AS VARCHAR) AS total, count(*) AS days FROM revenue`);
    expect(Number(stored?.['days'])).toBe(dayStarts().length);
    expect(stored?.['total']).toBe((platform / 100).toFixed(2));

    const ws = f.emulator.state.analytics;
    const canvas = canvasDailyStats(
      ws,
      ws.canvases.find((c) => c.id === 'cv_1')!,
      dayStarts(),
      f.emulator.clock.nowMs(),
      {
        includeVariantBreakdown: true,
        includeStepBreakdown: true,
        includeDeletedStepData: false,
      },
    );
    const canvasCents = canvas.stats.reduce((n, d) => n + cents(d.total_stats.revenue), 0);
    const variantCents = canvas.stats.reduce(
      (n, d) => n + Object.values(d.variant_stats ?? {}).reduce((m, v) => m + cents(v.revenue), 0),
      0,
    );
    expect(canvasCents).toBeGreaterThan(0);
    const [c] = await f.query(`SELECT CAST(sum(revenue) AS VARCHAR) AS total FROM canvas_summary`);
    const [v] = await f.query(`SELECT CAST(sum(revenue) AS VARCHAR) AS total FROM canvas_variant_summary`);
    expect([c?.['total'], v?.['total']]).toEqual([(canvasCents / 100).toFixed(2), (variantCents / 100).toFixed(2)]);

    const days = campaignSeries(
      ws,
      ws.campaigns.find((x) => x.id === campaign)!,
      dayStarts(),
      f.emulator.clock.nowMs(),
    );
    const campaignCents = days.reduce((n, d) => n + cents(d.revenue ?? 0), 0);
    const [t] = await f.query(`SELECT CAST(sum(revenue) AS VARCHAR) AS total FROM campaign_series`);
    expect(campaignCents).toBeGreaterThan(0);
    expect(t?.['total']).toBe((campaignCents / 100).toFixed(2));
    // The views add the same cents: the totals view of a year is the table's all-apps rows.
    const [view] = await f.query(`SELECT CAST(sum(revenue) AS VARCHAR) AS total FROM analytics.purchases_daily`);
    expect(view?.['total']).toBe((platform / 100).toFixed(2));
  });

  it('writes every amount to Parquet as the decimal logical type, precision 18 and scale 2', async () => {
    for (const column of MONEY_COLUMNS) {
      const [table, name] = column.split('.') as [string, string];
      const dir = join(f.out, table);
      const files = (await readdir(dir, { recursive: true })).filter((p) => p.endsWith('.parquet'));
      expect(files.length, column).toBeGreaterThan(0);
      for (const file of files) {
        const meta = await parquetMetadataAsync(await asyncBufferFromFile(join(dir, file)));
        const element = meta.schema.find((e) => e.name === name)!;
        expect([
          column,
          element.type,
          element.converted_type,
          element.precision,
          element.scale,
          element.logical_type?.type,
        ]).toEqual([column, 'INT64', 'DECIMAL', 18, 2, 'DECIMAL']);
      }
    }
    // hyparquet reads the INT64 cents (as cents × 0.01, a float): every stored amount comes back to its cent.
    const fromParquet: number[] = [];
    for (const file of (await readdir(join(f.out, 'canvas_summary'), { recursive: true })).filter((p) =>
      p.endsWith('.parquet'),
    )) {
      const rows = await parquetReadObjects({
        file: await asyncBufferFromFile(join(f.out, 'canvas_summary', file)),
        compressors,
        columns: ['revenue'],
      });
      fromParquet.push(...rows.map((r) => cents(r['revenue'] as number)));
    }
    const fromDuck = (await f.query(`SELECT CAST(revenue * 100 AS BIGINT) AS c FROM canvas_summary`)).map((r) =>
      Number(r['c']),
    );
    expect(fromParquet.sort((a, b) => a - b)).toEqual(fromDuck.sort((a, b) => a - b));
    // DuckDB reads the files back as the same exact decimal.
    const wh = await Warehouse.open(join(f.dir, 'reader.duckdb'), WAREHOUSE_TABLES);
    try {
      const [row] = await wh.query(
        `SELECT typeof(revenue) AS t, CAST(sum(revenue) AS VARCHAR) AS total FROM read_parquet('${f.out}/revenue/**/*.parquet') GROUP BY ALL`,
      );
      const [stored] = await f.query(`SELECT CAST(sum(revenue) AS VARCHAR) AS total FROM revenue`);
      expect(row).toEqual({ t: 'DECIMAL(18,2)', total: stored?.['total'] });
    } finally {
      await wh.close();
    }
  });
});

describe('amounts that are not whole cents', () => {
  it("tells a float's noise from a digit past the cent", () => {
    expect(
      [3531.0199999999995, 0.1 + 0.2, 118770.06000000001, 70301.05999999998, 12345 / 100, -0.07].map(beyondCents),
    ).toEqual([false, false, false, false, false, false]);
    expect([1.005, 0.001, 12.3456, 99999999.999].map(beyondCents)).toEqual([true, true, true, true]);
  });

  it('reconciles money to the cent and counts exactly', () => {
    expect(sameTotal('canvas_summary', 'revenue', 3531.02, 3531.0199999999995)).toBe(true);
    expect(sameTotal('canvas_summary', 'revenue', 3531.02, 3531.03)).toBe(false);
    expect(sameTotal('canvas_summary', 'conversions', 41, 41)).toBe(true);
    expect(sameTotal('canvas_summary', 'conversions', 41, 42)).toBe(false);
  });

  it("lands a float's noise as its cent silently, and rounds a digit past the cent with one warning naming it", async () => {
    const f = await PipelineFixture.create({ now: NOW, emulator: { rateLimits: false } });
    const proxy = await HostileProxy.create(f.emulator.url);
    try {
      await writeFile(
        f.pipelinePath,
        `name: cents\nstart_date: 2025-03-01\nstreams:\n  revenue: { unit: day, apps: ["*"], products: ["*"] }\n`,
      );
      proxy.tamper = (req: IncomingMessage, url: URL, res: ServerResponse) => {
        void (async () => {
          const answer = await fetch(`${f.emulator.url}${url.pathname}${url.search}`, {
            headers: { authorization: String(req.headers.authorization) },
          });
          const body = (await answer.json()) as Json;
          if (url.pathname === '/purchases/revenue_series') {
            for (const p of body.data as Json[]) {
              if (p.time.startsWith('2025-03-02')) p.revenue = 3531.0199999999995;
              if (p.time.startsWith('2025-03-03')) p.revenue = 12.3456;
              if (p.time.startsWith('2025-03-04')) p.revenue = 7.891;
            }
          }
          res.writeHead(answer.status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(body));
        })();
        return true;
      };
      const summary = await f.run({ baseUrl: proxy.url });
      expect(summary.status).toBe('succeeded');
      const warned = summary.warnings.filter((w) => w.code === 'amount_beyond_cents');
      expect(warned).toHaveLength(1);
      expect(warned[0]!.message).toMatch(
        /revenue\.revenue: the server sent 12\.3456, finer than the cent .* stored rounded to the cent \(DECIMAL\(18,2\)\)/,
      );
      const rows = await f.query(
        `SELECT strftime(time, '%d') AS d, CAST(revenue AS VARCHAR) AS r FROM revenue WHERE time BETWEEN '2025-03-02' AND '2025-03-04' ORDER BY 1`,
      );
      expect(rows).toEqual([
        { d: '02', r: '3531.02' },
        { d: '03', r: '12.35' },
        { d: '04', r: '7.89' },
      ]);
    } finally {
      await proxy.close();
      await f.close();
    }
  });
});

describe('a warehouse whose amounts an earlier version stored as DOUBLE', () => {
  it('is refused by readers with the fix, then upgraded in place by one run that keeps its rows to the cent', async () => {
    const f = await PipelineFixture.create({ now: NOW, emulator: { rateLimits: false } });
    try {
      await writeFile(
        f.pipelinePath,
        `name: upgrade\nstart_date: 2025-03-01\nstreams:\n  revenue: { unit: day, apps: ["*"], products: ["*"] }\n  canvas_summary: { canvases: [cv_1] }\n`,
      );
      // Today's layout with the DOUBLE amounts of the version before, and an old row whose float is not its cent.
      await (await Warehouse.open(f.db, WAREHOUSE_TABLES)).close();
      const instance = await DuckDBInstance.create(f.db);
      const conn = await instance.connect();
      for (const table of ['revenue', 'canvas_summary']) {
        await conn.run(`DROP TABLE "${table}"`);
        await conn.run(createTableSql(tableSpec(table)).replaceAll(MONEY, 'DOUBLE'));
      }
      await conn.run(
        `INSERT INTO "revenue" VALUES ('*', '*', 'day', '2024-06-01', 0.1 + 0.2, '2024-06-02', 'run_old')`,
      );
      conn.closeSync();
      instance.closeSync();

      await expect(Warehouse.open(f.db, WAREHOUSE_TABLES, { readOnly: true })).rejects.toThrow(
        /table "revenue" .* was written by an earlier version of engage-etl; the next `engage-etl run` on it upgrades it/,
      );
      const summary = await f.run();
      expect(summary.status).toBe('succeeded');
      expect(await f.query(`SELECT typeof(revenue) AS t, count(*) AS n FROM revenue GROUP BY ALL`)).toEqual([
        { t: 'DECIMAL(18,2)', n: 11 },
      ]);
      expect(await f.query(`SELECT DISTINCT typeof(revenue) AS t FROM canvas_summary`)).toEqual([
        { t: 'DECIMAL(18,2)' },
      ]);
      expect(
        await f.query(`SELECT CAST(revenue AS VARCHAR) AS r, _run_id FROM revenue WHERE time = '2024-06-01'`),
      ).toEqual([{ r: '0.30', _run_id: 'run_old' }]);
      // The old row's month was rewritten in Parquet with the decimal type.
      const files = (await readdir(join(f.out, 'revenue'), { recursive: true })).filter((p) => p.endsWith('.parquet'));
      for (const file of files) {
        const meta = await parquetMetadataAsync(await asyncBufferFromFile(join(f.out, 'revenue', file)));
        expect(meta.schema.find((e) => e.name === 'revenue')?.converted_type).toBe('DECIMAL');
      }
    } finally {
      await f.close();
    }
  });
});
