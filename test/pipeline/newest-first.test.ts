// A first backfill newest first, against a workspace that is not the demo (another seed, uuid ids, 200 Canvases of
// which those not archived are listed, 100 segments, 240 days): nights cut by --time-budget each end with every started series holding exactly the uninterrupted
// run's rows from its low watermark to its newest complete day; later nights extend the range backwards to the start
// asked, in about as many requests as one run, and end with the same tables. A widened start_date then loads only the
// days before the low watermarks.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientEvent } from '../../src/api/api-client-options.js';
import type { Emulator } from '../../src/emulator/server.js';
import { createEmulator } from '../../src/emulator/server.js';
import { TABLE_SPECS, WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import { Warehouse } from '../../src/load/warehouse.js';
import type { RunSummary } from '../../src/pipeline/run-pipeline.js';
import { runCli } from '../reliability/reliability-helpers.js';
import { PipelineRuns } from './alt-server/pipeline-runs.js';

const UNTIL = '2025-05-20T06:30:00Z';
const NEWEST_COMPLETE = '2025-05-20T00:00:00.000Z';
const FROM = '2024-09-22';
const WIDER = '2024-08-01';
const pipeline = (order: string) => `
name: newest
start_date: ${FROM}
lookback_days: 3
backfill_order: ${order}
streams:
  sessions:       { unit: day, apps: ["*"], segments: ["*"] }
  revenue:        { unit: day, apps: ["*"], products: ["*"] }
  kpis:           { metrics: [dau, mau], apps: ["*"] }
  segment_size:   { segments: all }
  canvas_summary: { canvases: all, source: data_series }
`;

const isSeries = (path: string) => /data_series|data_summary/.test(path);

/** Series requests of a run (one per attempt), and when its fetching ended. */
function recorder(log: { path: string; endedAt: number }[]): (e: ClientEvent) => void {
  return (e) => {
    if (e.type === 'request-finished') log.push({ path: e.path, endedAt: Date.now() });
  };
}

interface Night {
  summary: RunSummary;
  seriesRequests: number;
  /** Per stream: series with state, those whose watermark is the newest complete day, and rows differing from the whole run inside their ranges or lying outside them. */
  check: { started: number; atNewest: number; mismatched: number; outside: number };
  canvasesStarted: number;
}

/**
 * The state of `db` against the uninterrupted run's rows: for every series table keyed by an object, the rows of each
 * started object inside [low, high) must equal the whole run's, and no row may lie before its low watermark or belong to
 * an object without state.
 */
async function checkAgainstWhole(runs: PipelineRuns, db: string, whole: string): Promise<Night['check']> {
  const wh = await Warehouse.open(runs.dbOf(db), WAREHOUSE_TABLES, { readOnly: true });
  try {
    await wh.query(`ATTACH '${runs.dbOf(whole)}' AS whole (READ_ONLY)`);
    const [state] =
      await wh.query(`SELECT count(*) AS started, count(*) FILTER (WHERE "watermark" = TIMESTAMP '${NEWEST_COMPLETE.slice(0, 19)}') AS at_newest
      FROM "_etl_series_state" WHERE "unit" = 'day'`);
    let mismatched = 0;
    let outside = 0;
    for (const [table, stream, idColumn, key] of [
      ['canvas_summary', 'canvas_summary', 'canvas_id', 'unit=day|canvas_id='],
      ['segment_size', 'segment_size', 'segment_id', 'unit=day|segment_id='],
    ] as const) {
      const spec = TABLE_SPECS.find((t) => t.name === table)!;
      const cols = spec.columns.map((c) => `t."${c.name}"`).join(', ');
      const time = spec.columns.some((c) => c.name === 'day') ? 't."day"' : 't."time"';
      const ranges = `(SELECT substr("series_key", ${key.length + 1}) AS id, "low_watermark" AS lo, "watermark" AS hi FROM main."_etl_series_state" WHERE "stream" = '${stream}')`;
      const inside = (schema: string) =>
        `SELECT ${cols} FROM ${schema}."${table}" t JOIN ${ranges} r ON r.id = t."${idColumn}" WHERE CAST(${time} AS TIMESTAMP) >= r.lo AND CAST(${time} AS TIMESTAMP) < r.hi`;
      const [diff] = await wh.query(
        `SELECT (SELECT count(*) FROM (${inside('main')} EXCEPT ALL ${inside('whole')})) + (SELECT count(*) FROM (${inside('whole')} EXCEPT ALL ${inside('main')})) AS n`,
      );
      mismatched += Number(diff!['n']);
      const [out] = await wh.query(
        `SELECT count(*) AS n FROM main."${table}" t LEFT JOIN ${ranges} r ON r.id = t."${idColumn}" WHERE r.id IS NULL OR CAST(${time} AS TIMESTAMP) < r.lo`,
      );
      outside += Number(out!['n']);
    }
    await wh.query('DETACH whole');
    return { started: Number(state!['started']), atNewest: Number(state!['at_newest']), mismatched, outside };
  } finally {
    await wh.close();
  }
}

describe('a first backfill newest first, cut by --time-budget, on a workspace of 200 Canvases', () => {
  let em: Emulator;
  let runs: PipelineRuns;
  let wholeSeries = 0;
  let canvases = 0;
  let seriesCount = 0;
  const nights: Night[] = [];
  let statusAfterFirst = '';
  let statusVerboseAfterFirst = '';
  let planAfterFirst = '';
  let budgetMs = 0;

  beforeAll(async () => {
    em = await createEmulator({
      seed: 42,
      port: 0,
      now: UNTIL,
      size: { canvases: 200, segments: 100 },
      idStyle: 'uuid',
    });
    runs = await PipelineRuns.create(pipeline('newest_first'));
    const sent: { path: string; endedAt: number }[] = [];
    const started = Date.now();
    await runs.run({
      name: 'whole',
      baseUrl: em.url,
      apiKey: em.demoApiKey,
      from: FROM,
      until: UNTIL,
      client: { onEvent: recorder(sent) },
      flags: { maxInFlight: '2' },
    });
    wholeSeries = sent.filter((s) => isSeries(s.path)).length;
    // About a quarter of the fetching an uninterrupted run needs: four or five nights.
    budgetMs = Math.max(400, Math.round((Math.max(...sent.map((s) => s.endedAt)) - started) / 4));
    const [row] = await runs.query(
      'whole',
      `SELECT count(*) FILTER (WHERE "stream" = 'canvas_summary') AS canvases, count(*) AS series FROM "_etl_series_state" WHERE "unit" = 'day'`,
    );
    canvases = Number(row!['canvases']);
    seriesCount = Number(row!['series']);
    for (let night = 0; night < 15; night++) {
      const log: { path: string; endedAt: number }[] = [];
      const summary = await runs.run({
        name: 'cut',
        baseUrl: em.url,
        apiKey: em.demoApiKey,
        from: FROM,
        until: UNTIL,
        client: { onEvent: recorder(log) },
        flags: { timeBudget: `${budgetMs / 1000}s`, maxInFlight: '2' },
      });
      const [c] = await runs.query(
        'cut',
        `SELECT count(*) AS n FROM "_etl_series_state" WHERE "stream" = 'canvas_summary'`,
      );
      nights.push({
        summary,
        seriesRequests: log.filter((s) => isSeries(s.path)).length,
        check: await checkAgainstWhole(runs, 'cut', 'whole'),
        canvasesStarted: Number(c!['n']),
      });
      if (night === 0) {
        statusAfterFirst = (await runCli(['status', '--db', runs.dbOf('cut')])).stdout;
        statusVerboseAfterFirst = (await runCli(['status', '--verbose', '--db', runs.dbOf('cut')])).stdout;
        // `plan` counts nights at the pipeline's own time_budget, here for round trips of 10 s (what it estimates from),
        // so that what is left takes more than one night.
        const budgeted = join(runs.dir, 'budgeted.yaml');
        await writeFile(budgeted, `${pipeline('newest_first')}time_budget: ${Math.ceil(budgetMs / 1000)}s\n`);
        planAfterFirst = (
          await runCli([
            'plan',
            '--pipeline',
            budgeted,
            '--db',
            runs.dbOf('cut'),
            '--from',
            FROM,
            '--until',
            UNTIL,
            '--offline',
            '--base-url',
            em.url,
            '--latency-ms',
            '10000',
          ])
        ).stdout;
      }
      if (summary.complete) break;
    }
  }, 900_000);
  afterAll(async () => {
    await em?.close();
    await runs?.close();
  });

  it('is a workspace of 200 Canvases (those not archived listed) and 240 days, not the demo, that one budgeted night cannot load', () => {
    expect(canvases).toBeGreaterThan(150);
    expect(canvases).toBeLessThan(200);
    // The budget is wall-clock time: how many nights it takes depends on the machine, more than one always.
    expect(nights.length).toBeGreaterThan(1);
    expect(nights[0]!.summary.complete).toBe(false);
    expect(nights[0]!.canvasesStarted).toBeLessThan(canvases);
  });

  it("ends every night with each started series at its newest complete day, holding the uninterrupted run's rows back to its low watermark and none before", () => {
    for (const [i, n] of nights.entries()) {
      expect(n.check.started, `night ${i + 1}`).toBeGreaterThan(0);
      expect(
        n.check.atNewest,
        `night ${i + 1}: ${n.check.started - n.check.atNewest} started series end before ${NEWEST_COMPLETE}`,
      ).toBe(n.check.started);
      expect(n.check.mismatched, `night ${i + 1}`).toBe(0);
      expect(n.check.outside, `night ${i + 1}`).toBe(0);
    }
    // Night after night more series start and none goes back.
    for (let i = 1; i < nights.length; i++)
      expect(nights[i]!.check.started).toBeGreaterThanOrEqual(nights[i - 1]!.check.started);
  });

  it("ends complete with tables equal to the uninterrupted run's, every low watermark at the start asked", async () => {
    expect(nights.at(-1)!.summary.complete).toBe(true);
    expect(
      nights.at(-1)!.summary.backfill.every((b) => b.seriesComplete === b.series && b.daysCovered === b.daysAsked),
    ).toBe(true);
    const diffs = await runs.diff('cut', 'whole');
    expect(diffs.filter((d) => d.onlyLeft + d.onlyRight > 0)).toEqual([]);
    const lows = await runs.query(
      'cut',
      `SELECT DISTINCT CAST("low_watermark" AS VARCHAR) AS low FROM "_etl_series_state" WHERE "unit" = 'day'`,
    );
    expect(lows.map((r) => r['low'])).toEqual([`${FROM} 00:00:00`]);
  });

  it('sends about as many series requests over its nights as the uninterrupted run', () => {
    const total = nights.reduce((n, c) => n + c.seriesRequests, 0);
    expect(total).toBeGreaterThanOrEqual(wholeSeries);
    // Each later night re-reads the look-back of the series loaded before it (one window each) and may fetch again
    // the windows in flight when the budget was spent (two).
    expect(
      total,
      `${total} against ${wholeSeries} in ${nights.length} nights of ${seriesCount} series`,
    ).toBeLessThanOrEqual(wholeSeries + (nights.length - 1) * (seriesCount + 2));
  });

  it('says in `status` how far back each stream is loaded, and in `plan` how many nights remain at the budget', () => {
    expect(statusAfterFirst).toMatch(
      /^canvas_summary\s+[\d,]+\s+\d+\s+(loaded back to \d{4}-\d{2}-\d{2}|not started), \d+ % \(\d+\/\d+ series\)/m,
    );
    expect(statusAfterFirst).toMatch(/loaded back to \d{4}-\d{2}-\d{2}, \d+ % \(\d+\/\d+ series\)/);
    expect(statusVerboseAfterFirst).toMatch(/loaded back to \d{4}-\d{2}-\d{2}, \d+ % of the history asked/);
    expect(planAfterFirst).toMatch(
      /time budget [\d.]+ s: \d+ nights remain at least \(each later night also re-reads the look-back of the series already loaded\)/,
    );
  });

  it('loads a widened start_date backwards from the low watermarks, ending equal to one run over the wider range', async () => {
    const sent: { path: string; endedAt: number }[] = [];
    const summary = await runs.run({
      name: 'cut',
      baseUrl: em.url,
      apiKey: em.demoApiKey,
      from: WIDER,
      until: UNTIL,
      client: { onEvent: recorder(sent) },
    });
    expect(summary.complete).toBe(true);
    await runs.run({ name: 'wide-whole', baseUrl: em.url, apiKey: em.demoApiKey, from: WIDER, until: UNTIL });
    const diffs = await runs.diff('cut', 'wide-whole');
    expect(diffs.filter((d) => d.onlyLeft + d.onlyRight > 0)).toEqual([]);
    const lows = await runs.query(
      'cut',
      `SELECT DISTINCT CAST("low_watermark" AS VARCHAR) AS low FROM "_etl_series_state" WHERE "unit" = 'day'`,
    );
    expect(lows.map((r) => r['low'])).toEqual([`${WIDER} 00:00:00`]);
    // 52 days more per series: one Canvas window of 14 days asks 4, a 100-day window 1, plus each series' look-back.
    const canvasRequests = sent.filter((s) => s.path.includes('/canvas/data_series')).length;
    expect(canvasRequests).toBeLessThanOrEqual(canvases * (Math.ceil(52 / 14) + 1));
  }, 600_000);
});
