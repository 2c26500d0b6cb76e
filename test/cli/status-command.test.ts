// `engage-etl status` as a first look, over real runs against a large emulated workspace (hundreds of Canvases and
// segments, uuid ids): one line per stream whatever the number of series, no "stale" right after a successful run, the
// per-series detail behind --stream and --verbose, --json with every field it had and the summary, the last run that
// touched each series, and what an interrupted first run committed.
import { rename } from 'node:fs/promises';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotFiles } from '../../src/store/published-snapshot.js';
import { PipelineFixture, testPipeline } from '../pipeline/helpers/pipeline-fixture.js';
import { runCli } from '../reliability/reliability-helpers.js';

// The emulator's clock is the wall clock: status measures freshness against now.
const NOW = DateTime.utc().startOf('second');
const PIPELINE = `name: big
start_date: ${NOW.minus({ days: 4 }).toISODate()}
lookback_days: 2
streams:
  revenue:         { unit: day, apps: ["*"], products: ["*"] }
  segment_size:    { segments: all }
  canvas_summary:  { canvases: all, variant_breakdown: false, step_breakdown: false }
  email_templates: { ids: all }
`;

let fx: PipelineFixture;
let firstRun: string;
let secondRun: string;
/** Series loaded per stream (the emulator's active Canvases and segments). */
let loaded: Record<string, number>;

beforeAll(async () => {
  fx = await PipelineFixture.create({
    now: NOW.toISO()!,
    pipeline: PIPELINE,
    emulator: {
      size: { apps: 3, products: 10, segments: 300, events: 20, canvases: 600, campaigns: 10 },
      idStyle: 'uuid',
      rateLimits: false,
    },
  });
  firstRun = (await fx.run()).runId;
  secondRun = (await fx.run()).runId;
  loaded = Object.fromEntries(
    (await fx.query('SELECT "stream", count(*) AS n FROM "_etl_series_state" GROUP BY 1')).map((r) => [
      r['stream'],
      Number(r['n']),
    ]),
  );
}, 300_000);
afterAll(async () => fx?.close());

describe('status by default', () => {
  it("fits on a screen: the run's headline and one line per stream, for 700+ series", async () => {
    expect(loaded['canvas_summary']! + loaded['segment_size']!).toBeGreaterThan(700);
    const r = await runCli(['status', '--db', fx.db]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(40);
    expect(lines[0]).toMatch(
      new RegExp(
        `^last run ${secondRun}: succeeded, finished \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC, [\\d,]+ requests; backfill complete$`,
      ),
    );
    const line = (stream: string) => lines.find((l) => l.startsWith(`${stream} `)) ?? '';
    expect(line('canvas_summary')).toMatch(
      new RegExp(
        `^canvas_summary\\s+\\d+\\s+${loaded['canvas_summary']}\\s+complete\\s+current\\s+0\\s+0\\s+succeeded \\d{4}-`,
      ),
    );
    expect(line('segment_size')).toMatch(
      new RegExp(`^segment_size\\s+\\d+\\s+${loaded['segment_size']}\\s+complete\\s+current\\s+0\\s+0\\s+succeeded`),
    );
    expect(line('email_templates')).toMatch(
      /^email_templates\s+\d+\s+snapshot\s+complete\s+as of \d{4}-\d\d-\d\d \d\d:\d\d\s/,
    );
    // A snapshot stream's rows are its table's, not what its last snapshot changed (the second run changed none).
    const [templates] = await fx.query('SELECT count(*) AS n FROM "email_templates"');
    expect(Number(templates!['n'])).toBeGreaterThan(0);
    expect(line('email_templates').split(/\s+/)[1]).toBe(String(templates!['n']));
    // Right after a successful run nothing is behind: a daily series whose watermark is today's 00:00 is current.
    expect(r.stdout).not.toMatch(/stale|behind/i);
    expect(r.stdout).toMatch(/`status --stream NAME` or `status --verbose`/);
  });

  it('passes --fail-if-stale 1h on daily series right after a run, whatever the time of day', async () => {
    const r = await runCli(['status', '--db', fx.db, '--fail-if-stale', '1h', '--stream', 'revenue']);
    expect(r.code, r.stderr).toBe(0);
  });
});

describe('status --stream and --verbose', () => {
  it("--stream lists that stream's series one by one, with the last run that touched each", async () => {
    const r = await runCli(['status', '--db', fx.db, '--stream', 'segment_size']);
    expect(r.code, r.stderr).toBe(0);
    const series = r.stdout.split('\n').filter((l) => /^segment_size\s+unit=day\|segment_id=/.test(l));
    expect(series).toHaveLength(loaded['segment_size']!);
    // The second run only re-fetched the look-back (the watermarks did not move): it still touched every series.
    for (const l of series) expect(l).toMatch(new RegExp(`\\s${secondRun}\\s+current\\s+0$`));
    expect(r.stdout).not.toContain(firstRun);
    expect(r.stdout).not.toMatch(/^canvas_summary/m);
  });

  it('--verbose lists every series of every stream', async () => {
    const r = await runCli(['status', '--db', fx.db, '--verbose']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter((l) => /^canvas_summary\s+\S*canvas_id=/.test(l))).toHaveLength(
      loaded['canvas_summary']!,
    );
  });
});

describe('status --json', () => {
  it('keeps every field it had and adds the per-stream summary and where the state shown comes from', async () => {
    const r = await runCli(['status', '--db', fx.db, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown> & {
      series: { stream: string; lastRunId: string; stalenessMs: number }[];
      summary: { stream: string; series: number; behindMs: number; backfill: unknown }[];
    };
    for (const field of [
      'lastRun',
      'latestFailure',
      'running',
      'abandoned',
      'streams',
      'failedSeries',
      'backfill',
      'series',
      'holes',
      'reconciliation',
      'freshness',
    ]) {
      expect(out, field).toHaveProperty(field);
    }
    expect(out['source']).toBe('published');
    expect(out.series).toHaveLength(Object.values(loaded).reduce((a, b) => a + b, 0));
    expect(out.series.every((s) => s.lastRunId === secondRun)).toBe(true);
    expect(out.series.filter((s) => s.stream !== 'email_templates').every((s) => s.stalenessMs === 0)).toBe(true);
    expect(out.summary.find((s) => s.stream === 'canvas_summary')).toMatchObject({
      series: loaded['canvas_summary'],
      behindMs: 0,
      backfill: null,
    });
  });
});

describe('status before the first publish', () => {
  it('shows what an interrupted first run committed, from the working copy the next run resumes from', async () => {
    // An interrupted first run leaves its working copy and no published file.
    const files = snapshotFiles(fx.db);
    await rename(files.published, files.working);
    try {
      const r = await runCli(['status', '--db', fx.db]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(
        /^nothing published yet: shown is what the first run committed before it stopped \(the next run resumes from there\)/,
      );
      expect(r.stdout).toMatch(new RegExp(`^segment_size\\s+\\d+\\s+${loaded['segment_size']}\\s+complete`, 'm'));
      const json = JSON.parse((await runCli(['status', '--db', fx.db, '--json'])).stdout) as { source: string };
      expect(json.source).toBe('unpublished');
    } finally {
      await rename(files.working, files.published);
    }
  });
});

describe('status over every kind of stream', () => {
  it("prints one line per stream of the demo's kinds (hourly, daily, snapshots), nothing behind right after a run", async () => {
    const all = await PipelineFixture.create({
      now: NOW.toISO()!,
      pipeline: testPipeline(NOW.minus({ days: 3 }).toISODate()!),
    });
    try {
      const summary = await all.run();
      expect(summary.status).toBe('succeeded');
      const r = await runCli(['status', '--db', all.db]);
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines.length).toBeLessThanOrEqual(40);
      const streams = (await all.query('SELECT DISTINCT "stream" FROM "_etl_series_state" ORDER BY 1')).map((x) =>
        String(x['stream']),
      );
      expect(streams.length).toBeGreaterThanOrEqual(12);
      for (const stream of streams)
        expect(
          lines.filter((l) => l.startsWith(`${stream} `)),
          stream,
        ).toHaveLength(1);
      // The hourly sessions series may have crossed an hour since the run; every daily series is current.
      expect(lines.filter((l) => /behind/.test(l) && !l.startsWith('sessions '))).toEqual([]);
      expect(r.stdout).not.toMatch(/stale/i);
    } finally {
      await all.close();
    }
  }, 180_000);
});
