// Complete days: every daily analyst view says with `complete` whether its day had ended and was loaded
// whole — today is not, nor is a day a backfill has not reached — and the report draws complete days only. A view left
// empty for want of a pipeline option names that option, in its comment, in the run's summary and in the report.
import { copyFile, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import type { RunSummary } from '../../src/pipeline/run-pipeline.js';
import { CHARTS, setReportLastDays } from '../../src/report/report-charts.js';
import { writeReport } from '../../src/report/write-report.js';
import { PipelineFixture, testPipeline } from '../pipeline/helpers/pipeline-fixture.js';

const NOW = '2025-03-10T14:30:00Z';
const TODAY = '2025-03-10';
const YESTERDAY = '2025-03-09';

const isoDay = (v: unknown) => (v instanceof Date ? v.toISOString().slice(0, 10) : String(v));

describe('a run at 14:30 UTC', () => {
  let f: PipelineFixture;
  let summary: RunSummary;

  beforeAll(async () => {
    f = await PipelineFixture.create({
      now: NOW,
      pipeline: `${testPipeline('2025-02-01')}  campaign_series:   { campaigns: [cmp_1] }\n  segments:          {}\nreport: {}\n`,
    });
    summary = await f.run();
    expect(summary.status).toBe('succeeded');
  });
  afterAll(async () => f.close());

  it('marks the last day of every daily view incomplete and the day before complete', async () => {
    const views = (
      await f.query(
        `SELECT table_name AS v FROM duckdb_columns() WHERE schema_name = 'analytics' AND column_name = 'complete' ORDER BY 1`,
      )
    ).map((r) => String(r['v']));
    const daily = (
      await f.query(
        `SELECT table_name AS v FROM duckdb_columns() WHERE schema_name = 'analytics' AND column_name = 'day' ORDER BY 1`,
      )
    ).map((r) => String(r['v']));
    // Every view with a day has the column.
    expect(views).toEqual(daily);
    const checked: string[] = [];
    for (const view of views) {
      const rows =
        await f.query(`SELECT day, bool_or(complete) AS any_complete, bool_and(complete) AS all_complete FROM analytics."${view}"
                                  WHERE day >= DATE '${YESTERDAY}' GROUP BY day ORDER BY day`);
      if (rows.length === 0) continue;
      checked.push(view);
      expect(rows.map((r) => [view, isoDay(r['day']), r['any_complete'], r['all_complete']])).toEqual([
        [view, YESTERDAY, true, true],
        [view, TODAY, false, false],
      ]);
      const [earlier] = await f.query(
        `SELECT bool_and(complete) AS c FROM analytics."${view}" WHERE day < DATE '${YESTERDAY}'`,
      );
      expect([view, earlier?.['c']]).toEqual([view, true]);
    }
    expect(checked).toEqual(
      expect.arrayContaining([
        'calendar',
        'purchases_daily',
        'purchases_daily_by_app',
        'sessions_daily',
        'sessions_daily_by_segment',
        'segment_size_daily',
        'kpis_daily',
        'kpis_daily_by_app',
        'event_counts_daily',
        'event_counts_daily_by_app',
        'canvas_daily',
        'canvas_names_by_day',
        'canvas_variant_daily',
        'campaign_daily',
        'campaign_message_daily',
      ]),
    );
  });

  it('draws complete days only: no chart of days shows today', async () => {
    const wh = await Warehouse.open(f.db, WAREHOUSE_TABLES, { readOnly: true });
    try {
      await setReportLastDays(wh);
      for (const chart of CHARTS) {
        const rows = await wh.query(chart.sql);
        const days = rows.filter((r) => r['x'] instanceof Date).map((r) => isoDay(r['x']));
        if (days.length === 0) continue;
        expect([chart.id, days.includes(TODAY)]).toEqual([chart.id, false]);
        expect([chart.id, days.sort().at(-1)]).toEqual([chart.id, YESTERDAY]);
      }
    } finally {
      await wh.close();
    }
  });

  it('names the pipeline option that fills each view it leaves empty, in the summary, the comment and the report', async () => {
    const named = summary.unfilled.map((u) => `${u.view}${u.column === undefined ? '' : `.${u.column}`}`);
    // sessions: apps ["*"]; event_counts: no segments; revenue: apps ["*"].
    expect(named).toEqual(
      expect.arrayContaining([
        'sessions_daily_by_app',
        'sessions_daily_by_app_segment',
        'event_counts_daily_by_segment',
        'event_counts_daily_by_app_segment',
        'purchases_daily_by_app.revenue',
        'kpis_daily_by_app.revenue',
        'kpis_daily_by_app.sessions',
      ]),
    );
    // What the pipeline asks for is not listed.
    expect(named).not.toContain('purchases_daily_by_app');
    expect(named).not.toContain('event_counts_daily_by_app');
    expect(summary.unfilled.find((u) => u.view === 'event_counts_daily_by_segment')!.fill).toMatch(
      /event_counts: \{ events: all, segments: \["\*", seg_1\] \}/,
    );
    expect(summary.unfilled.find((u) => u.column === 'revenue' && u.view === 'purchases_daily_by_app')!.fill).toMatch(
      /revenue: \{ apps: \["\*", app_1\] \}/,
    );
    const [comment] = await f.query(
      `SELECT comment FROM duckdb_views() WHERE schema_name = 'analytics' AND view_name = 'event_counts_daily_by_segment'`,
    );
    expect(String(comment?.['comment'])).toContain(
      summary.unfilled.find((u) => u.view === 'event_counts_daily_by_segment')!.fill,
    );

    // The run's own report lists what its summary lists.
    const runReport = await readFile(summary.report!, 'utf8');
    const runSection = runReport.slice(runReport.indexOf('data-table="unfilled"')).split('</section>')[0]!;
    expect([...runSection.matchAll(/<code>analytics\.([^<]+)<\/code>/g)].map((m) => m[1])).toEqual(named);

    const wh = await Warehouse.open(f.db, WAREHOUSE_TABLES, { readOnly: true });
    try {
      const report = await writeReport(wh, join(f.dir, 'report.html'));
      const html = await readFile(report.path, 'utf8');
      const section = html.slice(html.indexOf('data-table="unfilled"'));
      expect(section).toContain('analytics.event_counts_daily_by_segment');
      expect(section).toContain('analytics.purchases_daily_by_app.revenue');
    } finally {
      await wh.close();
    }
  });

  it('marks the days a backfill has not reached as not complete, rather than showing them as loaded', async () => {
    const wh = await Warehouse.open(f.db, WAREHOUSE_TABLES);
    try {
      await wh.query(
        `UPDATE "_etl_series_state" SET "watermark" = TIMESTAMP '2025-03-01 00:00:00' WHERE "stream" = 'revenue' AND "series_key" = 'unit=day|app_id=*|product=*'`,
      );
    } finally {
      await wh.close();
    }
    const rows = await f.query(
      `SELECT day, complete FROM analytics.purchases_daily WHERE day BETWEEN DATE '2025-02-27' AND DATE '2025-03-02' ORDER BY day`,
    );
    expect(rows.map((r) => [isoDay(r['day']), r['complete']])).toEqual([
      ['2025-02-27', true],
      ['2025-02-28', true],
      ['2025-03-01', false],
      ['2025-03-02', false],
    ]);
    const [calendar] = await f.query(`SELECT max(day) AS last FROM analytics.calendar WHERE complete`);
    expect(isoDay(calendar?.['last'])).toBe('2025-02-28');
  });

  it('gives the charts the last complete day a whole scan of each view finds, also weeks before the newest watermark', async () => {
    // setReportLastDays looks in the last days before the newest watermark first, and scans a view whole only when it
    // has no complete day there: both ways must agree with the plain query.
    const copy = join(dirname(f.db), 'last-days.duckdb');
    await copyFile(f.db, copy);
    const wh = await Warehouse.open(copy, WAREHOUSE_TABLES);
    const lastDays = async () => {
      await setReportLastDays(wh);
      const names = (
        await wh.query(`SELECT "name" FROM duckdb_variables() WHERE "name" LIKE 'report_last_day_%' ORDER BY 1`)
      ).map((r) => String(r['name']));
      const out: [string, string, string][] = [];
      for (const name of names) {
        const view = name.slice('report_last_day_'.length);
        const [row] = await wh.query(
          `SELECT CAST(getvariable('${name}') AS DATE) AS "set", (SELECT max("day") FROM analytics."${view}" WHERE "complete") AS "scanned"`,
        );
        out.push([view, isoDay(row?.['set']), isoDay(row?.['scanned'])]);
      }
      return out;
    };
    try {
      const before = await lastDays();
      expect(before.map(([view]) => view)).toEqual(
        expect.arrayContaining([
          'campaign_message_daily',
          'canvas_variant_daily',
          'purchases_daily',
          'segment_size_daily',
        ]),
      );
      for (const [view, set, scanned] of before) expect([view, set]).toEqual([view, scanned]);
      expect(before.find(([view]) => view === 'segment_size_daily')?.[1]).toBe(YESTERDAY);
      // One stream's watermark 40 days ahead: every other view's last complete day is weeks before the newest watermark.
      await wh.query(
        `UPDATE "_etl_series_state" SET "watermark" = "watermark" + INTERVAL 40 DAY WHERE "stream" = 'sessions'`,
      );
      const after = await lastDays();
      for (const [view, set, scanned] of after) expect([view, set]).toEqual([view, scanned]);
      expect(after.find(([view]) => view === 'segment_size_daily')?.[1]).toBe(YESTERDAY);
      // Its own days are all complete now, today's too: the data ends there.
      expect(after.find(([view]) => view === 'sessions_daily')?.[1]).toBe(TODAY);
    } finally {
      await wh.close();
    }
  });
});
