// The HTML report opened in headless Chromium (Debian's chromium-headless-shell, driven by puppeteer-core): no console
// error, no network request, every chart drawn with one mark per row of its query, and a screenshot. The report is the
// one a run writes because its pipeline file says `report: { path }`.
// ENGAGE_REPORT_SCREENSHOT=<file> also copies the screenshot there (`npm run screenshot` writes docs/report.png).
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer-core';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Warehouse } from '../../src/load/warehouse.js';
import { CHARTS } from '../../src/report/report-charts.js';
import type { PipelineFixture } from '../pipeline/helpers/pipeline-fixture.js';
import { optionalTool, whenToolMissing } from '../helpers/optional-tool.js';
import { analystRun } from '../views/analyst-fixture.js';

export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium-headless-shell';
const browserTool = optionalTool('chromium-headless-shell', 'apt-get install chromium-headless-shell (or set CHROMIUM_PATH)', { path: CHROMIUM });

whenToolMissing(browserTool, 'the report in a headless browser');

describe.runIf(browserTool.available)('the report in a headless browser', () => {
  let dir: string;
  let f: PipelineFixture;
  let browser: Browser;
  let reportPath: string;
  let runReport: string | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engage-report-'));
    reportPath = join(dir, 'out', 'report.html');
    const run = await analystRun(`report: { path: ${JSON.stringify(reportPath)} }\n`);
    f = run.fixture;
    runReport = run.summary.report;
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: 'shell',
      userDataDir: join(dir, 'profile'),
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await f?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('is written by the run, self-contained and under 2 MB, and names the published --db file a reader opens', async () => {
    expect(runReport).toBe(reportPath);
    expect(existsSync(reportPath)).toBe(true);
    expect((await stat(reportPath)).size).toBeLessThan(2 * 1024 * 1024);
    const html = await readFile(reportPath, 'utf8');
    expect(html).toContain(` from ${f.db}. `);
    expect(html).not.toContain('.work');
  });

  it('loads without a console error or a network request, draws every chart with one mark per row, and saves a screenshot', async () => {
    const page = await browser.newPage();
    const url = pathToFileURL(reportPath).href;
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

    const wh = await Warehouse.open(f.db, { readOnly: true });
    try {
      // The day in progress at the last run's --until holds a few hours only: no daily chart draws it.
      const [last] = await wh.query('SELECT CAST(max("until") AS DATE) AS d FROM "_etl_runs"');
      const inProgress = (last!['d'] as Date).getTime();
      for (const spec of CHARTS) {
        const rows = await wh.query(spec.sql);
        expect(rows.length, `${spec.id} has rows in the demo warehouse`).toBeGreaterThan(0);
        for (const r of rows) if (r['x'] instanceof Date) expect(r['x'].getTime(), spec.id).toBeLessThan(inProgress);
        const drawn = await page.$$eval(`[data-chart="${spec.id}"] svg [ecmeta_ssr_type="chart"]`, (els) =>
          new Set(els.map((e) => `${e.getAttribute('ecmeta_series_index') ?? ''}:${e.getAttribute('ecmeta_data_index') ?? ''}`)).size);
        expect(drawn, `${spec.id}: marks drawn vs rows of its query`).toBe(rows.length);
        const box = await page.$eval(`[data-chart="${spec.id}"] svg`, (svg) => svg.getBoundingClientRect().width * svg.getBoundingClientRect().height);
        expect(box).toBeGreaterThan(10_000);
      }
    } finally {
      await wh.close();
    }
    const freshRows = await page.$$eval('[data-table="freshness"] tbody tr', (trs) => trs.length);
    expect(freshRows).toBeGreaterThan(3);

    const shot = join(dir, 'report.png');
    await page.screenshot({ path: shot as `${string}.png`, fullPage: true });
    expect((await stat(shot)).size).toBeGreaterThan(20_000);
    const copyTo = process.env['ENGAGE_REPORT_SCREENSHOT'];
    if (copyTo) await copyFile(shot, resolve(copyTo));

    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    await page.close();
  });
});
