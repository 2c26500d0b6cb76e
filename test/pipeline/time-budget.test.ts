// A backfill that spans nights: `run --time-budget` stops starting requests when the budget is spent, lets what is in
// flight finish, publishes everything committed (database and Parquet) and says `complete: false`; the next runs
// continue from the watermarks and end equal to one uninterrupted run, in about as many requests.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientEvent } from '../../src/api/api-client-options.js';
import type { Emulator } from '../../src/emulator/server.js';
import { createEmulator } from '../../src/emulator/server.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import type { RunSummary } from '../../src/pipeline/run-pipeline.js';
import { runCli } from '../reliability/reliability-helpers.js';
import { PipelineRuns } from './alt-server/pipeline-runs.js';

const FROM = '2024-06-01';
/** Series only (no list read whole by every run), hourly ones with many windows: a backfill of a few hundred requests. */
const PIPELINE = `
name: budget
start_date: ${FROM}
lookback_days: 3
streams:
  sessions:       { unit: hour, apps: ["*", app_1], segments: ["*", seg_1] }
  revenue:        { unit: day, apps: ["*", app_1], products: ["*"] }
  kpis:           { metrics: [dau, mau], apps: ["*", app_1] }
  canvas_summary: { canvases: [cv_1, cv_2] }
`;
const UNTIL = '2025-03-10T12:34:00Z';

interface Sent {
  path: string;
  startedAt: number;
  endedAt: number;
}

/** A run's requests as the client saw them (one entry per attempt). */
function recorder(log: Sent[]): (e: ClientEvent) => void {
  return (e) => {
    if (e.type === 'request-finished') log.push({ path: e.path, startedAt: Date.now() - e.ms, endedAt: Date.now() });
  };
}

const isSeries = (s: Sent) => /data_series|data_summary/.test(s.path);

describe('a first backfill cut by --time-budget and continued by the next runs', () => {
  let em: Emulator;
  let runs: PipelineRuns;
  const wholeSent: Sent[] = [];
  const cuts: { summary: RunSummary; sent: Sent[]; startedAt: number }[] = [];
  let budgetMs = 0;
  let statusAfterFirst = '';
  let reportAfterFirst = '';

  beforeAll(async () => {
    em = await createEmulator({ seed: 1, port: 0, now: UNTIL, latencyMs: 60 });
    runs = await PipelineRuns.create(PIPELINE);
    const started = Date.now();
    // Two requests in flight: a cut can leave at most that many windows finished past a series' first unfinished one
    // (fetched again next night), so the refetch bound below does not depend on how many a busy machine allows.
    await runs.run({
      name: 'whole',
      baseUrl: em.url,
      apiKey: em.demoApiKey,
      from: FROM,
      until: UNTIL,
      client: { onEvent: recorder(wholeSent) },
      flags: { maxInFlight: '2' },
    });
    // A budget of about half the fetching an uninterrupted run needs: two or three nights' worth.
    const fetchMs = Math.max(...wholeSent.map((s) => s.endedAt)) - started;
    budgetMs = Math.max(300, Math.round(fetchMs / 2));
    for (let night = 0; night < 12; night++) {
      const sent: Sent[] = [];
      const startedAt = Date.now();
      const summary = await runs.run({
        name: 'cut',
        baseUrl: em.url,
        apiKey: em.demoApiKey,
        from: FROM,
        until: UNTIL,
        client: { onEvent: recorder(sent) },
        flags: { timeBudget: `${budgetMs / 1000}s`, maxInFlight: '2' },
      });
      cuts.push({ summary, sent, startedAt });
      if (night === 0) {
        statusAfterFirst = (await runCli(['status', '--db', runs.dbOf('cut')])).stdout;
        const report = join(runs.dir, 'report-first.html');
        expect((await runCli(['report', '--db', runs.dbOf('cut'), '--output', report])).code).toBe(0);
        reportAfterFirst = await readFile(report, 'utf8');
      }
      if (summary.complete) break;
    }
  }, 600_000);
  afterAll(async () => {
    await em?.close();
    await runs?.close();
  });

  it('stops the first run in time, exits as a success, and says complete: false with the requests left', () => {
    const [first] = cuts;
    expect(first!.summary.status).toBe('succeeded');
    expect(first!.summary.complete).toBe(false);
    expect(first!.summary.remainingRequests).toBeGreaterThan(0);
    expect(first!.summary.warnings.map((w) => w.code)).toContain('time_budget_spent');
    // No request started after the budget; the last one ended within the longest request after it.
    const longest = Math.max(...first!.sent.map((s) => s.endedAt - s.startedAt));
    // Timers and the event loop of a loaded machine: a request may begin a little after its deadline fired.
    const slack = 500;
    expect(Math.max(...first!.sent.map((s) => s.startedAt)) - first!.startedAt).toBeLessThanOrEqual(budgetMs + slack);
    expect(Math.max(...first!.sent.map((s) => s.endedAt)) - first!.startedAt).toBeLessThanOrEqual(
      budgetMs + longest + slack,
    );
  });

  it('published what the cut run committed: Parquet equal to its database, and the progress of the backfill', async () => {
    const first = cuts[0]!.summary;
    expect(first.backfill.some((b) => b.daysCovered < b.daysAsked)).toBe(true);
    for (const b of first.backfill) expect(b.daysCovered).toBeLessThanOrEqual(b.daysAsked);
    const manifest = JSON.parse(await readFile(join(runs.dir, 'cut-parquet', 'manifests', 'revenue.json'), 'utf8')) as {
      files: { rows: number }[];
    };
    expect(manifest.files.length).toBeGreaterThan(0);
  });

  it('needed more than one run, each a success, the last complete', () => {
    expect(cuts.length).toBeGreaterThan(1);
    expect(cuts.every((c) => c.summary.status === 'succeeded')).toBe(true);
    expect(cuts.at(-1)!.summary.complete).toBe(true);
    expect(cuts.at(-1)!.summary.remainingRequests).toBe(0);
    expect(
      cuts.at(-1)!.summary.backfill.every((b) => b.seriesComplete === b.series && b.daysCovered === b.daysAsked),
    ).toBe(true);
  });

  it("ends with tables equal to the uninterrupted run's (EXCEPT ALL both ways)", async () => {
    const diffs = await runs.diff('cut', 'whole');
    expect(diffs.filter((d) => d.onlyLeft + d.onlyRight > 0)).toEqual([]);
    const wh = await Warehouse.open(runs.dbOf('cut'), WAREHOUSE_TABLES, { readOnly: true });
    try {
      const [row] = await wh.query(
        `SELECT (SELECT count(*) FROM "sessions") AS db, (SELECT count(*) FROM read_parquet('${join(runs.dir, 'cut-parquet')}/sessions/**/*.parquet')) AS parquet`,
      );
      expect(Number(row!['parquet'])).toBe(Number(row!['db']));
    } finally {
      await wh.close();
    }
  });

  it('sends about as many series requests over all its runs as the one uninterrupted run', async () => {
    const wholeSeries = wholeSent.filter(isSeries).length;
    const cutSeries = cuts.reduce((n, c) => n + c.sent.filter(isSeries).length, 0);
    expect(cutSeries).toBeGreaterThanOrEqual(wholeSeries);
    // A cut splits a series' range where one run would not: its windows start again at the watermark, which costs at most
    // one window more per series and cut (and up to two in flight, fetched again). On a first backfill of thousands of
    // requests that is within the 3 %; this backfill is a few hundred, so the bound is stated per cut.
    const [row] = await runs.query('whole', `SELECT count(*) AS n FROM "_etl_series_state" WHERE "unit" <> 'snapshot'`);
    const series = Number(row!['n']);
    const bound = wholeSeries + (cuts.length - 1) * (series + 2);
    expect(
      cutSeries,
      `${cutSeries} against ${wholeSeries} in ${cuts.length} runs of ${series} series`,
    ).toBeLessThanOrEqual(bound);
    // Lists and snapshots (read whole by every run) cost each run at most what they cost the uninterrupted one.
    for (const c of cuts)
      expect(c.sent.filter((s) => !isSeries(s)).length).toBeLessThanOrEqual(
        wholeSent.filter((s) => !isSeries(s)).length,
      );
  });

  it('shows the backfill in progress in the report while it is incomplete, and not once it is complete', async () => {
    expect(reportAfterFirst).toMatch(
      /<section data-table="backfill"><h2>Backfill in progress<\/h2>[\s\S]*<td>sessions<\/td><td>[^<]+<\/td><td class="num">[\d,]+ of [\d,]+ \(\d+ %\)/,
    );
    const report = join(runs.dir, 'report-last.html');
    expect((await runCli(['report', '--db', runs.dbOf('cut'), '--output', report])).code).toBe(0);
    expect(await readFile(report, 'utf8')).not.toContain('data-table="backfill"');
  });

  it('shows the backfill in progress in `engage-etl status` while it is incomplete', async () => {
    expect(statusAfterFirst).toMatch(/^last run \S+: succeeded, .*; backfill in progress in \d+ stream\(s\)/m);
    expect(statusAfterFirst).toMatch(
      /^sessions\s+\d+\s+\d+\s+(loaded back to \d{4}-\d{2}-\d{2}|not started), \d+ % \(\d+\/\d+ series\)/m,
    );
    const status = await runCli(['status', '--db', runs.dbOf('cut')]);
    expect(status.code).toBe(0);
    // The last run completed it: status no longer lists a backfill in progress.
    expect(status.stdout).not.toMatch(/backfill in progress/);
  });
});
