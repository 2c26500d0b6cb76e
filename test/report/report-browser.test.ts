// The HTML report opened in headless Chromium (Debian's chromium-headless-shell, driven by puppeteer-core), on the demo
// and on a second workspace that is not the demo (200 Canvases with two or three variants and decision splits, 104
// named segments, UUID ids): no console error, no network request, every chart drawn with one mark per row of its
// query, no label cut, and each chart checked for the question it answers — read from the data the page carries, not
// from pixels. ENGAGE_REPORT_SCREENSHOT=<file> also copies the demo's screenshot there (`npm run screenshot`).
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer-core';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { styledId } from '../../src/emulator/analytics/workspace-size.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import { CHARTS, setReportLastDays } from '../../src/report/report-charts.js';
import { PALETTE } from '../../src/report/render-chart.js';
import { PipelineFixture } from '../pipeline/helpers/pipeline-fixture.js';
import { optionalTool, whenToolMissing } from '../helpers/optional-tool.js';
import { analystRun } from '../views/analyst-fixture.js';

export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium-headless-shell';
const browserTool = optionalTool(
  'chromium-headless-shell',
  'apt-get install chromium-headless-shell (or set CHROMIUM_PATH)',
  { path: CHROMIUM },
);

whenToolMissing(browserTool, 'the report in a headless browser');

interface DataRow {
  x: string;
  series: string;
  y: number;
  hover?: string;
  axis?: 1;
}

const APPS = [1, 2, 3, 4].map((n) => styledId(1, 'uuid', `app_${n}`));
/** A workspace that is not the demo: the emulator's `small` size with UUID ids, every Canvas and segment. */
const SECOND_WORKSPACE = `
name: second
start_date: 2024-12-15
streams:
  kpis:           { metrics: [dau, mau], apps: ["*", ${APPS.join(', ')}] }
  segments:       {}
  segment_size:   { segments: all }
  event_counts:   { events: all, unit: day, apps: ["*"] }
  canvas_summary: { canvases: all, source: data_series, variant_breakdown: true, step_breakdown: true }
  canvas_details: { canvases: all }
`;

async function openReport(
  browser: Browser,
  path: string,
): Promise<{ page: Page; errors: string[]; requests: string[] }> {
  const page = await browser.newPage();
  const url = pathToFileURL(path).href;
  const requests: string[] = [];
  const errors: string[] = [];
  await page.setRequestInterception(true);
  page.on('request', (req) => {
    if (req.url() === url) void req.continue();
    else {
      requests.push(req.url());
      void req.abort();
    }
  });
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  page.on('pageerror', (err) => errors.push(String(err)));
  await page.setViewport({ width: 1000, height: 800 });
  await page.goto(url, { waitUntil: 'load' });
  return { page, errors, requests };
}

const chartData = (page: Page, id: string): Promise<DataRow[]> =>
  page.$eval(`[data-chart-data="${id}"]`, (el) => JSON.parse(el.textContent ?? '[]') as DataRow[]).catch(() => []);

describe.runIf(browserTool.available)('the report in a headless browser', () => {
  let dir: string;
  let browser: Browser;
  const workspaces: { name: string; fixture: PipelineFixture; report: string; runReport: string | undefined }[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engage-report-'));
    const demoReport = join(dir, 'demo', 'report.html');
    const demo = await analystRun(`report: { path: ${JSON.stringify(demoReport)} }\n`);
    workspaces.push({ name: 'demo', fixture: demo.fixture, report: demoReport, runReport: demo.summary.report });
    const secondReport = join(dir, 'second', 'report.html');
    const second = await PipelineFixture.create({
      now: '2025-02-10T12:34:00Z',
      pipeline: `${SECOND_WORKSPACE}report: { path: ${JSON.stringify(secondReport)} }\n`,
      emulator: {
        size: { apps: 4, products: 30, segments: 104, events: 642, canvases: 200, campaigns: 120 },
        idStyle: 'uuid',
        rateLimits: false,
      },
    });
    workspaces.push({
      name: 'second workspace',
      fixture: second,
      report: secondReport,
      runReport: (await second.run()).report,
    });
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: 'shell',
      userDataDir: join(dir, 'profile'),
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
  }, 600_000);
  afterAll(async () => {
    await browser?.close();
    for (const w of workspaces) await w.fixture.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('is written by the run, self-contained and under 2 MB, and names the published --db file a reader opens', async () => {
    for (const w of workspaces) {
      expect(w.runReport).toBe(w.report);
      expect(existsSync(w.report)).toBe(true);
      expect((await stat(w.report)).size).toBeLessThan(2 * 1024 * 1024);
      const html = await readFile(w.report, 'utf8');
      expect(html).toContain(` from ${w.fixture.db}. `);
      expect(html).not.toContain('.work');
    }
  });

  it('draws every chart with one mark per row of its query, complete days only, no label cut, no console error or request', async () => {
    for (const w of workspaces) {
      const { page, errors, requests } = await openReport(browser, w.report);
      const wh = await Warehouse.open(w.fixture.db, WAREHOUSE_TABLES, { readOnly: true });
      try {
        // The day in progress at the last run's --until holds a few hours only: no daily chart draws it.
        const [last] = await wh.query('SELECT CAST(max("until") AS DATE) AS d FROM "_etl_runs"');
        const inProgress = (last!['d'] as Date).getTime();
        await setReportLastDays(wh);
        for (const spec of CHARTS) {
          const rows = await wh.query(spec.sql);
          const data = await chartData(page, spec.id);
          expect(data.length, `${w.name}: ${spec.id} carries the rows of its query`).toBe(rows.length);
          if (rows.length === 0) continue;
          for (const r of rows) if (r['x'] instanceof Date) expect(r['x'].getTime(), spec.id).toBeLessThan(inProgress);
          const drawn = await page.$$eval(
            `[data-chart="${spec.id}"] svg [ecmeta_ssr_type="chart"]`,
            (els) =>
              new Set(
                els.map(
                  (e) => `${e.getAttribute('ecmeta_series_index') ?? ''}:${e.getAttribute('ecmeta_data_index') ?? ''}`,
                ),
              ).size,
          );
          expect(drawn, `${w.name}: ${spec.id}: marks drawn vs rows of its query`).toBe(rows.length);
          // A label is cut when ECharts shortens it (an ellipsis) or when it runs past the picture's edge.
          const cut = await page.$eval(`[data-chart="${spec.id}"] svg`, (svg) => {
            const box = svg.getBoundingClientRect();
            return [...svg.querySelectorAll('text')]
              .filter((t) => {
                const b = t.getBoundingClientRect();
                return (
                  /…|\.\.\.$/.test(t.textContent ?? '') ||
                  b.left < box.left - 1 ||
                  b.right > box.right + 1 ||
                  b.top < box.top - 1 ||
                  b.bottom > box.bottom + 1
                );
              })
              .map((t) => t.textContent);
          });
          expect(cut, `${w.name}: ${spec.id}: labels cut`).toEqual([]);
        }
      } finally {
        await wh.close();
      }
      expect(await page.$$eval('[data-table="freshness"] tbody tr', (trs) => trs.length)).toBeGreaterThan(2);
      if (w.name === 'demo') {
        const shot = join(dir, 'report.png');
        await page.screenshot({ path: shot as `${string}.png`, fullPage: true });
        expect((await stat(shot)).size).toBeGreaterThan(20_000);
        const copyTo = process.env['ENGAGE_REPORT_SCREENSHOT'];
        if (copyTo) await copyFile(shot, resolve(copyTo));
      }
      expect(errors).toEqual([]);
      expect(requests).toEqual([]);
      await page.close();
    }
  });

  it("sets each Canvas's variants side by side, two or more per Canvas, with their entries, and says when they differ within noise", async () => {
    for (const w of workspaces) {
      const { page } = await openReport(browser, w.report);
      const data = await chartData(page, 'canvas-variants');
      expect(data.length, w.name).toBeGreaterThan(0);
      const perCanvas = new Map<string, DataRow[]>();
      for (const r of data) perCanvas.set(r.x, [...(perCanvas.get(r.x) ?? []), r]);
      for (const [canvas, variants] of perCanvas) {
        expect(variants.length, `${w.name}: ${canvas}`).toBeGreaterThanOrEqual(2);
        expect(new Set(variants.map((v) => v.series)).size).toBe(variants.length);
        for (const v of variants) expect(v.hover).toMatch(/conversions of [\d,]+ entries/);
      }
      if (w.name === 'second workspace') {
        expect(perCanvas.size).toBe(8);
        // 2 or 3 variants: each Canvas's bars carry at least "Variant 1" and "Variant 2", not twenty "Variant 1".
        expect(new Set(data.map((r) => r.series))).toContain('Variant 2');
      }
      await page.close();
    }
  });

  it('shows message steps only, in path order, branches as 3a/3b, and never as a funnel', async () => {
    for (const w of workspaces) {
      const { page } = await openReport(browser, w.report);
      const data = await chartData(page, 'canvas-steps');
      expect(data.length, w.name).toBeGreaterThan(0);
      expect(new Set(data.map((r) => r.x)).size).toBe(data.length);
      const wh = await Warehouse.open(w.fixture.db, WAREHOUSE_TABLES, { readOnly: true });
      try {
        const messageSteps = new Set(
          (
            await wh.query(
              `SELECT "step_name" FROM "analytics"."canvas_step_conversions" WHERE "step_type" = 'message'`,
            )
          ).map((r) => String(r['step_name'])),
        );
        for (const r of data) expect(messageSteps.has(r.x.replace(/^.* · \d+[a-z]?\. /, '')), r.x).toBe(true);
      } finally {
        await wh.close();
      }
      for (const canvas of new Set(data.map((r) => r.series))) {
        const positions = data
          .filter((r) => r.series === canvas)
          .map((r) => /· (\d+)([a-z]?)\. /.exec(r.x)!)
          .map((m) => [Number(m[1]), m[2]!] as const);
        for (let i = 1; i < positions.length; i++)
          expect(positions[i]![0]).toBeGreaterThanOrEqual(positions[i - 1]![0]);
        // Two steps at one position are branches, lettered; a step alone at its position is not.
        for (const [p, letter] of positions)
          expect(letter !== '', `${canvas} ${p}`).toBe(positions.filter(([q]) => q === p).length > 1);
      }
      const caption = await page.$eval('[data-chart="canvas-steps"] .caption', (el) => el.textContent ?? '');
      expect(caption).toContain('Not a funnel');
      expect(caption).toContain('Each bar counts the conversions');
      // The demo's cv_1 and cv_2 split after their first step: two message steps at one distance.
      if (w.name === 'demo') expect(data.some((r) => /· \d+a\. /.test(r.x))).toBe(true);
      await page.close();
    }
  });

  it('ranks the events that moved most week over week, not flat lines', async () => {
    for (const w of workspaces) {
      const { page } = await openReport(browser, w.report);
      const data = await chartData(page, 'events');
      expect(data.length, w.name).toBeGreaterThan(0);
      expect(data.length).toBeLessThanOrEqual(10);
      for (let i = 1; i < data.length; i++) expect(Math.abs(data[i]!.y)).toBeLessThanOrEqual(Math.abs(data[i - 1]!.y));
      for (const r of data) expect(r.hover).toMatch(/in the last 7 days, [\d,]+ the 7 days before$/);
      await page.close();
    }
  });

  it('names segments, gives the largest its own scale when it would flatten the rest, and never repeats a colour', async () => {
    const w = workspaces.find((x) => x.name === 'second workspace')!;
    const { page } = await openReport(browser, w.report);
    const data = await chartData(page, 'segments');
    const series = [...new Set(data.map((r) => r.series))];
    expect(series).toHaveLength(10);
    const wh = await Warehouse.open(w.fixture.db, WAREHOUSE_TABLES, { readOnly: true });
    try {
      const names = new Set((await wh.query('SELECT "name" FROM "segments"')).map((r) => String(r['name'])));
      for (const s of series) expect(names.has(s.replace(/ \(right scale\)$/, '')), s).toBe(true);
      const [ratio] =
        await wh.query(`WITH "l" AS (SELECT "size" FROM "analytics"."segment_size_daily" WHERE "day" = (SELECT max("day") FROM "analytics"."segment_size_daily" WHERE "day" < DATE '2025-02-10') ORDER BY "size" DESC LIMIT 2)
                                      SELECT max("size") / min("size") AS r FROM "l"`);
      expect(data.some((r) => r.axis === 1)).toBe(Number(ratio!['r']) >= 3);
    } finally {
      await wh.close();
    }
    const colours = await page.$$eval('[data-chart="segments"] svg [ecmeta_ssr_type="chart"]', (els) => {
      const bySeries = new Map<string, string>();
      for (const e of els)
        bySeries.set(
          e.getAttribute('ecmeta_series_index') ?? '',
          e.getAttribute('fill') ?? e.getAttribute('stroke') ?? '',
        );
      return [...bySeries.values()];
    });
    expect(new Set(colours).size).toBe(series.length);
    for (const c of colours) expect(PALETTE as readonly string[]).toContain(c);
    await page.close();
  });

  it("draws DAU/MAU as 7-day averages, one small chart per app on one scale, with each day's own value on hover", async () => {
    for (const w of workspaces) {
      const { page } = await openReport(browser, w.report);
      const data = await chartData(page, 'stickiness');
      const series = [...new Set(data.map((r) => r.series))];
      expect(series[0]).toBe('All apps');
      expect(series.length).toBe(w.name === 'demo' ? 3 : 5);
      const titles = await page.$$eval('[data-chart="stickiness"] svg text', (ts) => ts.map((t) => t.textContent));
      for (const s of series) expect(titles).toContain(s);
      const hovers = await page.$$eval('[data-chart="stickiness"] svg title', (ts) =>
        ts.map((t) => t.textContent ?? ''),
      );
      expect(hovers).toHaveLength(data.length);
      for (const h of hovers) expect(h).toMatch(/^\d{4}-\d{2}-\d{2}: 7-day average [\d.]+ %, this day [\d.]+ %$/);
      // The demo's model keeps an app's stickiness within a few points from one day to the next once averaged.
      for (const s of series) {
        const ys = data.filter((r) => r.series === s).map((r) => r.y);
        for (let i = 1; i < ys.length; i++) expect(Math.abs(ys[i]! - ys[i - 1]!), `${w.name} ${s}`).toBeLessThan(0.03);
      }
      await page.close();
    }
  });

  it('says what currency revenue is in', async () => {
    const { page } = await openReport(browser, workspaces[0]!.report);
    expect(await page.$eval('[data-chart="revenue"] .caption', (el) => el.textContent ?? '')).toContain(
      "in the workspace's currency",
    );
    await page.close();
  });
});
