// `engage-etl plan` prints what `run` would send, reads stored state read-only, and sends no request — checked on the
// demo pipeline file, through the real CLI entry, and against what a real run then sends.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { buildPlanReport, makePlanCommand } from '../../src/cli/plan-command.js';
import type { PlanReport } from '../../src/cli/plan-command.js';
import { resolveRunOptions } from '../../src/config/run-options.js';
import { PipelineFixture } from './helpers/pipeline-fixture.js';

const DEMO = join(import.meta.dirname, '../../pipelines/nightly.yaml');

/** The demo pipeline with its ids written out (the shipped one says `all`, which a first plan cannot count). */
const EXPLICIT_DEMO = `name: nightly
start_date: 2024-01-01
lookback_days: 3
streams:
  purchase_quantity: { unit: day, apps: ["*", app_1, app_2, app_3], products: ["*", gems_small] }
  revenue:           { unit: day, apps: ["*", app_1], products: ["*", gems_small] }
  sessions:          { unit: hour, apps: ["*", app_2], segments: ["*", seg_1] }
  segment_size:      { segments: [seg_1, seg_2, seg_3, seg_4, seg_5, seg_6] }
  kpis:              { metrics: [dau, mau, new_users, uninstalls], apps: ["*", app_1, app_2] }
  custom_events:     {}
  event_counts:      { events: all, unit: day, apps: ["*"] }
  campaign_series:   { campaigns: [cmp_1, cmp_2, cmp_4] }
  canvas_summary:    { canvases: [cv_1, cv_2, cv_3, cv_4, cv_5], source: data_series, reconcile: true, variant_breakdown: true, step_breakdown: true }
  canvas_details:    { canvases: [cv_1, cv_2, cv_3, cv_4, cv_5] }
  email_templates:   { ids: [tpl_1, tpl_2, tpl_3, tpl_4, tpl_5, tpl_6, tpl_7, tpl_8] }
  content_blocks:    { ids: [cb_1, cb_2, cb_3, cb_4, cb_5, cb_6, cb_7], inclusion_data: true }
  data_integrations: {}
`;
const SCALED = join(import.meta.dirname, '../../pipelines/scaled.yaml');

async function cli(args: string[]): Promise<{ out: string; err: string; code: number }> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    err += String(chunk);
    return true;
  });
  const before = process.exitCode;
  process.exitCode = 0;
  try {
    await main(['node', 'engage-etl', ...args]);
    return { out, err, code: Number(process.exitCode ?? 0) };
  } finally {
    o.mockRestore();
    e.mockRestore();
    process.exitCode = before;
  }
}

describe('engage-etl plan', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engage-plan-'));
    await writeFile(join(dir, 'explicit.yaml'), EXPLICIT_DEMO);
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("prints the demo pipeline's 2-year backfill per stream and per pool, at the minimum, without creating the database (--offline: sending nothing)", async () => {
    const db = join(dir, 'none.duckdb');
    const { out, code } = await cli([
      'plan',
      '--emulator',
      '--offline',
      '--pipeline',
      join(dir, 'explicit.yaml'),
      '--db',
      db,
      '--until',
      '2026-01-01',
      '--latency-ms',
      '100',
    ]);
    expect(code).toBe(0);
    // 731 days = 17,544 hours: 8 quantity and 4 revenue series × 8 windows, 4 hourly sessions × 176, 12 KPI series × 8, 3 campaigns × 8,
    // 6 segments × 8, 5 Canvases × ceil(731 / 14) = 53 data_series windows + 1 reconciliation each, 5 + 8 + 7 ids, and
    // one page each of the events and integrations lists; event_counts (events: all) has no listed name before a first run
    // (the events list is discovery's, estimated: one page).
    const row = (stream: string) =>
      out
        .split('\n')
        .find((l) => l.trimStart().startsWith(`${stream} `))
        ?.trim()
        .split(/\s+/)
        .slice(0, 5);
    expect(row('purchase_quantity')).toEqual(['purchase_quantity', '8', '64', '64', 'purchases_events']);
    expect(row('revenue')).toEqual(['revenue', '4', '32', '32', 'purchases_events']);
    expect(row('sessions')).toEqual(['sessions', '4', '704', '704', 'default']);
    expect(row('segment_size')).toEqual(['segment_size', '6', '48', '48', 'default']);
    expect(row('kpis')).toEqual(['kpis', '12', '96', '96', 'default']);
    expect(row('event_counts')).toEqual(['event_counts', '0', '0', '0', 'default']);
    expect(row('campaign_series')).toEqual(['campaign_series', '3', '24', '24', 'default']);
    expect(row('canvas_summary')).toEqual(['canvas_summary', '5', '270', '270', 'default']);
    expect(row('discovery:')).toEqual(['discovery:', 'custom_events', '0', '~1', '~1']);
    expect(row('custom_events')).toEqual(['custom_events', '0', '0', '0', 'purchases_events']);
    expect(row('total')).toEqual(['total', '~1,260', '~1,260']);
    // 69.4/s × 100 ms × 1.5 = 10.4, so the default pool keeps 11 in flight; the purchases pool keeps the least, 8.
    expect(out).toMatch(/default\s+1,162\s+250,000 \/ 1 h\s+1\s+11\s+10\.6 s \(rate\)/);
    expect(out).toMatch(/purchases_events\s+97\s+1,000 \/ 1 h\s+1\s+8\s+1\.3 s \(latency\)/);
    expect(out).toContain('estimated duration: ~10.6 s at 100 ms per request — bound by the rate of the default pool');
    expect(out).toContain('the plan sends exactly the minimum');
    expect(out).toContain('paged list: estimated');
    expect(out).toContain('no request sent');
    expect(out).toContain('NOT COUNTED: `all` — before a first run no list is known and this plan sent nothing');
    expect(existsSync(db)).toBe(false);
  });

  it('prints the same plan as JSON with --json, and with --offline says that it does not count `all`', async () => {
    const { out, code } = await cli([
      'plan',
      '--emulator',
      '--offline',
      '--pipeline',
      join(dir, 'explicit.yaml'),
      '--db',
      join(dir, 'none.duckdb'),
      '--until',
      '2026-01-01',
      '--json',
    ]);
    expect(code).toBe(0);
    const report = JSON.parse(out) as PlanReport;
    expect([
      report.requests,
      report.minimum,
      report.estimated,
      report.storedState,
      report.sent,
      report.countsAll,
    ]).toEqual([1260, 1260, true, 'none', 0, false]);
    expect(report.byPool.map((p) => [p.pool, p.requests, p.waves])).toEqual([
      ['default', 1162, 1],
      ['purchases_events', 97, 1],
      ['cdi', 1, 1],
    ]);
    expect(report.estimate).toMatchObject({ latencyMs: 200, maxInFlight: null, boundBy: 'rate', pool: 'default' });
    const capped = JSON.parse(
      (
        await cli([
          'plan',
          '--emulator',
          '--pipeline',
          join(dir, 'explicit.yaml'),
          '--db',
          join(dir, 'none.duckdb'),
          '--until',
          '2026-01-01',
          '--json',
          '--max-in-flight',
          '4',
        ])
      ).out,
    ) as PlanReport;
    expect(capped.estimate).toMatchObject({ maxInFlight: 4, boundBy: 'cap' });
  });

  it('needs no API key to plan against a real service, and refuses a bad --latency-ms naming the flag', async () => {
    const ok = await cli([
      'plan',
      '--base-url',
      'https://rest.example.com',
      '--pipeline',
      DEMO,
      '--db',
      join(dir, 'none.duckdb'),
      '--until',
      '2026-01-01',
    ]);
    expect(ok.code).toBe(0);
    let err = '';
    const cmd = makePlanCommand()
      .exitOverride()
      .configureOutput({ writeErr: (s) => (err += s), writeOut: () => undefined });
    await expect(
      cmd.parseAsync(['--emulator', '--pipeline', DEMO, '--latency-ms', 'fast'], { from: 'user' }),
    ).rejects.toThrow(/--latency-ms/);
    expect(err).toContain('"fast" is not a number of milliseconds ≥ 0; e.g. --latency-ms 200');
  });

  it("plans the scaled pipeline before a first run from the lists it reads (counted), spread at the purchases pool's rate", async () => {
    const { out, code } = await cli([
      'plan',
      '--emulator',
      '--pipeline',
      SCALED,
      '--db',
      join(dir, 'none.duckdb'),
      '--until',
      '2026-01-01',
    ]);
    expect(code).toBe(0);
    expect(out).toContain('14 list request(s) sent (to read the lists the run reads), nothing else');
    // 16 products + "*": 17 hourly quantity series × 176 windows + 17 daily revenue series × 8 + 2 product and 3 event
    // pages = 3,133: four waves of budget, spread at one request every 3.6 s (3,132 × 3.6 s + one round trip).
    expect(out).toMatch(/purchase_quantity\s+17\s+2,992\s+2,992\s+purchases_events/);
    expect(out).toMatch(/purchases_events\s+3,133\s+1,000 \/ 1 h\s+4\s+8\s+3 h 07 min \(rate\)/);
    expect(out).toMatch(/total\s+11,999\s+11,999/);
    expect(out).toContain('bound by the rate of the purchases_events pool (purchases + events list, 1,000/hour)');
  });

  it('plans a workspace with hundreds of series (420) at exactly the minimum, sending nothing', async () => {
    const apps = Array.from({ length: 12 }, (_, i) => `app_${i + 1}`);
    const products = Array.from({ length: 25 }, (_, i) => `product_${i + 1}`);
    const segments = Array.from({ length: 10 }, (_, i) => `segment_${i + 1}`);
    const file = join(dir, 'wide.yaml');
    await writeFile(
      file,
      [
        'name: wide',
        'start_date: 2024-01-01',
        'lookback_days: 3',
        'streams:',
        `  purchase_quantity: { unit: day, apps: [${apps.join(', ')}], products: [${products.join(', ')}] }`,
        `  sessions: { unit: hour, apps: [${apps.join(', ')}], segments: [${segments.join(', ')}] }`,
      ].join('\n'),
    );
    const { out, code } = await cli([
      'plan',
      '--base-url',
      'https://rest.example.com',
      '--pipeline',
      file,
      '--db',
      join(dir, 'none.duckdb'),
      '--until',
      '2026-01-01',
      '--json',
    ]);
    expect(code).toBe(0);
    const report = JSON.parse(out) as PlanReport;
    // 2024-01-01 … 2025-12-31: 731 days → 8 requests per daily series; 17,544 hours → 176 per hourly series.
    const expected = 300 * 8 + 120 * 176;
    expect(report.requests).toBe(expected);
    expect(report.minimum).toBe(expected);
    expect(report.streams.map((st) => st.series)).toEqual([300, 120]);
  });
});

describe('engage-etl plan over a stored database', () => {
  let fx: PipelineFixture;
  beforeEach(async () => {
    fx = await PipelineFixture.create({ now: '2025-03-10T05:30:00Z' });
  });
  afterEach(async () => {
    await fx.close();
  });

  it('reads the watermarks read-only, sends nothing, and predicts exactly what the next run sends', async () => {
    await fx.run({ until: '2025-03-08T05:30:00Z' });
    const sentBefore = fx.emulator.stats.requests;
    const opts = resolveRunOptions(
      {
        pipeline: fx.pipelinePath,
        baseUrl: fx.emulator.url,
        apiKey: fx.emulator.demoApiKey,
        db: fx.db,
        out: fx.out,
        until: '2025-03-10T05:30:00Z',
      },
      {},
      DateTime.fromISO('2025-03-10T05:31:00Z', { zone: 'utc' }),
    );
    const report = await buildPlanReport(opts, 50);
    expect(report.storedState).toBe('read');
    expect(fx.emulator.stats.requests).toBe(sentBefore);

    const next = await fx.run({ until: '2025-03-10T05:30:00Z' });
    expect(next.requests.planned).toBe(report.requests);
    expect(next.requests.minimum).toBe(report.minimum);
    // Paged lists were estimated from the rows the first run stored; the run's real count must match them here.
    expect(next.requests.sent - next.requests.followUps - next.requests.retries).toBe(report.requests);
  });
});

describe('engage-etl plan --discover before a first run', () => {
  let fx: PipelineFixture;
  beforeEach(async () => {
    fx = await PipelineFixture.create({ now: '2025-03-10T05:30:00Z' });
  });
  afterEach(async () => {
    await fx.close();
  });

  /** `plan --json` before a first run against the fixture's emulator, as a user types it (it reads the lists itself); then the run it planned. */
  async function planThenRun(
    pipeline: string,
    from: string,
  ): Promise<{ report: PlanReport; sentByPlan: number; summary: Awaited<ReturnType<PipelineFixture['run']>> }> {
    await writeFile(fx.pipelinePath, pipeline);
    const until = '2025-03-10T05:30:00Z';
    const before = fx.emulator.stats.requests;
    const { out, code, err } = await cli([
      'plan',
      '--base-url',
      fx.emulator.url,
      '--api-key',
      fx.emulator.demoApiKey,
      '--pipeline',
      fx.pipelinePath,
      '--db',
      fx.db,
      '--from',
      from,
      '--until',
      until,
      '--json',
    ]);
    expect(code, err).toBe(0);
    expect(out.trimEnd().split('\n')).toHaveLength(1);
    const sentByPlan = fx.emulator.stats.requests - before;
    expect(existsSync(fx.db)).toBe(false);
    const summary = await fx.run({ from, until });
    return { report: JSON.parse(out) as PlanReport, sentByPlan, summary };
  }

  it("counts the shipped nightly pipeline's run exactly: its requests equal the run's requests.sent, and it sent only list pages", async () => {
    // The shipped file, its report written into the fixture's folder rather than the working directory.
    const nightly = (await readFile(DEMO, 'utf8')).replace(
      /^report: .*$/m,
      `report: { path: ${JSON.stringify(join(fx.dir, 'report.html'))} }`,
    );
    const { report, sentByPlan, summary } = await planThenRun(nightly, '2025-03-05');
    const discovery = report.streams.filter((s) => s.stream.startsWith('discovery: '));
    expect(discovery.map((s) => s.stream).sort()).toEqual([
      'discovery: campaigns',
      'discovery: canvases',
      'discovery: content_blocks',
      'discovery: custom_events',
      'discovery: email_templates',
      'discovery: products',
      'discovery: segments',
    ]);
    expect(discovery.every((s) => !s.estimated && s.series > 0)).toBe(true);
    // The integrations list (23 in the demo workspace, 10 a page) is read too: its size is not known otherwise.
    const integrations = report.streams.find((s) => s.stream === 'data_integrations')!;
    expect([integrations.requests, integrations.estimated, report.estimated]).toEqual([3, false, false]);
    expect(report.sent).toBe(sentByPlan);
    expect(sentByPlan).toBe(discovery.reduce((n, s) => n + s.requests, 0) + integrations.requests);
    expect([summary.requests.retries, summary.requests.followUps]).toEqual([0, 0]);
    expect(report.requests).toBe(summary.requests.sent);
    expect(report.minimum).toBe(report.requests);
    // The run itself still estimates the integrations list before reading it (one page): only its count differs.
    expect(summary.requests.planned).toBe(report.requests - (integrations.requests - 1));
  }, 180_000);

  it('counts `event_counts: { events: all }` alone: one series per listed name, the same requests as the run', async () => {
    const { report, sentByPlan, summary } = await planThenRun(
      'name: t\nstart_date: 2025-01-01\nstreams:\n  event_counts: { events: all }\n',
      '2025-03-01',
    );
    const names = fx.emulator.state.analytics.eventNames.length;
    expect(report.streams.map((s) => [s.stream, s.series, s.requests, s.estimated])).toEqual([
      ['discovery: custom_events', names, 3, false],
      ['event_counts', names, names, false],
    ]);
    expect([sentByPlan, report.sent]).toEqual([3, 3]);
    expect(report.requests).toBe(summary.requests.sent);
    expect(summary.tables.find((t) => t.table === 'event_counts')!.rows).toBeGreaterThan(0);
  });

  it('needs a source: without a key it refuses before sending anything, as run does', async () => {
    const before = fx.emulator.stats.requests;
    const { out, code } = await cli([
      'plan',
      '--discover',
      '--base-url',
      fx.emulator.url,
      '--pipeline',
      DEMO,
      '--db',
      fx.db,
      '--json',
    ]);
    expect(code).toBe(2);
    expect(JSON.parse(out)).toMatchObject({ exit_code: 2, error: expect.stringMatching(/API key|ENGAGE_API_KEY/) });
    expect(fx.emulator.stats.requests).toBe(before);
  });
});
