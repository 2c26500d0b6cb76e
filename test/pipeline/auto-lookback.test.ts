// `lookback_days: auto` over eight nights against a workspace that is not the demo (uuid ids, seed 11) whose event
// counts are restated every night up to 5 days back, whose KPIs fill in with late data for a few days and whose segment
// sizes never change: the look-back follows what was seen (a probe on the stream's own night, then the deepest
// restatement plus the margin), nothing stored goes stale, a fixed look-back of 3 beside it does leave stale values, and
// `plan` shows the look-back the next run re-reads.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import { isProbeNight } from '../../src/pipeline/auto-lookback.js';
import { PipelineFixture } from './helpers/pipeline-fixture.js';
import { runCli } from '../reliability/reliability-helpers.js';

const FIRST_NIGHT = DateTime.fromISO('2025-03-10T12:34:00Z', { zone: 'utc' });
const NIGHTS = 8;
/** How deep the workspace restates: every night, each of the last 5 days changes again. */
const RESTATED_DAYS = 5;

function pipeline(lookback: string): string {
  return `
name: auto_lookback
start_date: 2025-02-20
lookback_days: ${lookback}
streams:
  custom_events: {}
  event_counts:  { events: all, unit: day, apps: ["*"] }
  kpis:          { metrics: [dau, new_users], apps: ["*"] }
  segment_size:  { segments: all }
`;
}

let f: PipelineFixture;
/** The same nights with `lookback_days: 3`. */
let fixedDb: string;
let fixedPipeline: string;
/** Per night, the look-back each stream of the auto pipeline re-read. */
const nights: { eventCounts: number; kpis: number; segmentSize: number; probe: boolean }[] = [];
/** event_counts' look-back after its probe: the deepest restatement it saw plus 2. */
let eventCountsAfterProbe = 0;

/** The first night after the first (nothing is re-read on the first) that is `stream`'s probe night. */
function probeNightOf(stream: string): number {
  for (let n = 1; n < NIGHTS; n++) if (isProbeNight(stream, FIRST_NIGHT.plus({ days: n }).toJSDate())) return n;
  throw new Error(`${stream} has no probe night within ${NIGHTS} nights`);
}
/** The nights' look-backs of a stream that probes on night `probe` and otherwise re-reads `after` days once it has probed. */
function expected(probe: number, before: number, after: number): number[] {
  return Array.from({ length: NIGHTS }, (_, n) => (n === 0 ? 2 : n < probe ? before : n === probe ? 28 : after));
}

/** event_counts of the last ten complete days before `until`, keyed, from `db`. */
async function lastTenDays(db: string, until: DateTime): Promise<Map<string, number>> {
  const day = (d: DateTime) => d.startOf('day').toISO({ includeOffset: false });
  const wh = await Warehouse.open(db, WAREHOUSE_TABLES, { readOnly: true });
  const rows = await wh
    .query(
      `SELECT "event", "app_id", "time", "count" FROM "event_counts" WHERE "time" >= TIMESTAMP '${day(until.minus({ days: 10 }))}' AND "time" < TIMESTAMP '${day(until)}'`,
    )
    .finally(() => wh.close());
  return new Map(
    rows.map((r) => [
      `${String(r['event'])}|${String(r['app_id'])}|${(r['time'] as Date).toISOString()}`,
      Number(r['count']),
    ]),
  );
}

function staleCount(stored: Map<string, number>, truth: Map<string, number>): number {
  return [...truth].filter(([key, value]) => stored.get(key) !== value).length;
}

beforeAll(async () => {
  f = await PipelineFixture.create({
    now: FIRST_NIGHT.toISO()!,
    pipeline: pipeline('auto'),
    emulator: {
      seed: 11,
      idStyle: 'uuid',
      size: { apps: 2, products: 3, segments: 3, events: 4, canvases: 2, campaigns: 2 },
      rateLimits: false,
    },
  });
  fixedDb = join(f.dir, 'fixed.duckdb');
  fixedPipeline = join(f.dir, 'fixed.yaml');
  await writeFile(fixedPipeline, pipeline('3'));
  for (let night = 0; night < NIGHTS; night++) {
    const until = FIRST_NIGHT.plus({ days: night });
    f.emulator.clock.set(until.toISO()!);
    if (night > 0) {
      for (let age = 1; age <= RESTATED_DAYS; age++) {
        f.emulator.state.analytics.restate({
          series: 'events',
          day: until.startOf('day').minus({ days: age }).toISODate()!,
          factor: 1.1,
        });
      }
    }
    const run = await f.run();
    await f.run({ pipeline: fixedPipeline, db: fixedDb, out: join(f.dir, 'fixed-parquet') });
    const recorded = await f.query(
      `SELECT "stream", "lookback_days", "probe" FROM "_etl_lookback" WHERE "run_id" = '${run.runId}'`,
    );
    const of = (stream: string) => recorded.find((r) => r['stream'] === stream);
    nights.push({
      eventCounts: Number(of('event_counts')?.['lookback_days']),
      kpis: Number(of('kpis')?.['lookback_days']),
      segmentSize: Number(of('segment_size')?.['lookback_days']),
      probe: Boolean(of('event_counts')?.['probe']),
    });
  }
  const [seen] = await f.query(
    `SELECT max("age_days") AS "age" FROM "_etl_restatements" WHERE "stream" = 'event_counts'`,
  );
  eventCountsAfterProbe = Number(seen?.['age']) + 2;
}, 600_000);
afterAll(async () => f?.close());

describe('lookback_days: auto against a workspace restating 5 days back', () => {
  it("probes at lookback_max_days on the stream's own night, then re-reads the deepest restatement seen plus 2 days: 5 to 10", async () => {
    // Night 0 stores everything (nothing to re-read); before its probe night a stream re-reads what it has seen plus 2,
    // and the probe also finds the values restated deeper than that in the nights before it.
    const probe = probeNightOf('event_counts');
    expect(nights.map((n) => n.probe)).toEqual(Array.from({ length: NIGHTS }, (_, n) => n === probe));
    expect(nights[probe]!.eventCounts).toBe(28);
    expect(eventCountsAfterProbe).toBeGreaterThanOrEqual(RESTATED_DAYS);
    expect(eventCountsAfterProbe).toBeLessThanOrEqual(10);
    expect(nights.slice(probe + 1).map((n) => n.eventCounts)).toEqual(
      Array<number>(NIGHTS - probe - 1).fill(eventCountsAfterProbe),
    );
    for (const n of nights.slice(1, probe)) expect(n.eventCounts).toBeLessThan(eventCountsAfterProbe);
  });

  it("re-reads no more than 3 days of a stream that never restates, except on its probe night, which is not the restating streams'", async () => {
    const probe = probeNightOf('segment_size');
    expect(probe).not.toBe(probeNightOf('event_counts'));
    expect(nights.map((n) => n.segmentSize)).toEqual(expected(probe, 2, 2));
    expect(await f.query(`SELECT * FROM "_etl_restatements" WHERE "stream" = 'segment_size'`)).toEqual([]);
  });

  it('sets the look-back of a stream whose late data arrives for days from the oldest change it showed', async () => {
    const [seen] = await f.query(`SELECT max("age_days") AS "age" FROM "_etl_restatements" WHERE "stream" = 'kpis'`);
    const age = Number(seen?.['age']);
    expect(age).toBeGreaterThan(0);
    const probe = probeNightOf('kpis');
    expect(nights.slice(probe).map((n) => n.kpis)).toEqual(expected(probe, 2, age + 2).slice(probe));
  });

  it('leaves no stored value of the last ten days stale, where a fixed look-back of 3 leaves some', async () => {
    const until = FIRST_NIGHT.plus({ days: NIGHTS - 1 });
    const truthDb = join(f.dir, 'truth.duckdb');
    await f.run({ db: truthDb, out: join(f.dir, 'truth-parquet') });
    const truth = await lastTenDays(truthDb, until);
    expect(truth.size).toBe(4 * 10);
    expect(staleCount(await lastTenDays(f.db, until), truth)).toBe(0);
    expect(staleCount(await lastTenDays(fixedDb, until), truth)).toBeGreaterThan(0);
  }, 120_000);

  it("shows each stream's look-back in status --json, and in status when and why it changed", async () => {
    const json = await runCli(['status', '--db', f.db, '--json']);
    expect(json.code, json.stderr).toBe(0);
    const streamsOf = (stdout: string) =>
      (JSON.parse(stdout) as { streams: { stream: string; lookback_days: number | null; lookback: string | null }[] })
        .streams;
    const streams = streamsOf(json.stdout);
    const of = (name: string) => streams.find((s) => s.stream === name);
    expect(of('event_counts')).toMatchObject({ lookback_days: eventCountsAfterProbe, lookback: 'auto' });
    expect(of('segment_size')).toMatchObject({ lookback_days: 2, lookback: 'auto' });
    expect(of('custom_events')).toMatchObject({ lookback_days: null, lookback: null });
    const fixed = streamsOf((await runCli(['status', '--db', fixedDb, '--json'])).stdout);
    expect(fixed.find((s) => s.stream === 'event_counts')).toMatchObject({ lookback_days: 3, lookback: 'fixed' });

    const text = await runCli(['status', '--db', f.db]);
    const afterProbe = FIRST_NIGHT.plus({ days: probeNightOf('event_counts') + 1 });
    expect(text.stdout).toContain(
      `look-back of event_counts: ${eventCountsAfterProbe} d (auto, was 28 d) since the run up to ${afterProbe.toFormat('yyyy-MM-dd HH:mm')} UTC: restatements seen up to ${eventCountsAfterProbe - 2} day(s) old in the last 56 days, plus 2 days' margin`,
    );
    expect(text.stdout).toContain('look-back of segment_size: 2 d (auto, was 28 d) since');
    expect(text.stdout).toMatch(
      /look-back of segment_size: .*: no restatement seen in the last 56 days, plus 2 days' margin/,
    );
  });

  it('shows in plan, as text and as JSON, the look-back the next run re-reads per stream, auto or fixed, and why', async () => {
    const next = FIRST_NIGHT.plus({ days: NIGHTS }).toISO()!;
    const json = await runCli([
      'plan',
      '--db',
      f.db,
      '--pipeline',
      f.pipelinePath,
      '--base-url',
      f.emulator.url,
      '--offline',
      '--until',
      next,
      '--json',
    ]);
    expect(json.code, json.stderr).toBe(0);
    const lookbacks = (
      JSON.parse(json.stdout) as {
        lookbacks: { stream: string; lookbackDays: number; lookback: string; probe: boolean; reason: string }[];
      }
    ).lookbacks;
    const of = (name: string) => lookbacks.find((l) => l.stream === name);
    expect(of('event_counts')).toMatchObject({ lookbackDays: eventCountsAfterProbe, lookback: 'auto', probe: false });
    expect(of('event_counts')!.reason).toContain(`restatements seen up to ${eventCountsAfterProbe - 2} day(s) old`);
    expect(of('segment_size')).toMatchObject({ lookbackDays: 2, lookback: 'auto', probe: false });
    expect(of('custom_events')).toBeUndefined();
    const fixed = await runCli([
      'plan',
      '--db',
      fixedDb,
      '--pipeline',
      fixedPipeline,
      '--base-url',
      f.emulator.url,
      '--offline',
      '--until',
      next,
      '--json',
    ]);
    expect(
      (JSON.parse(fixed.stdout) as { lookbacks: { stream: string }[] }).lookbacks.find(
        (l) => l.stream === 'event_counts',
      ),
    ).toMatchObject({ lookbackDays: 3, lookback: 'fixed' });

    const text = await runCli([
      'plan',
      '--db',
      f.db,
      '--pipeline',
      f.pipelinePath,
      '--base-url',
      f.emulator.url,
      '--offline',
      '--until',
      next,
    ]);
    expect(text.stdout).toMatch(/^look-back \(complete days re-read before the stored watermarks\):$/m);
    expect(text.stdout).toMatch(
      new RegExp(
        `^ {2}event_counts +${eventCountsAfterProbe} d {2}auto {3}restatements seen up to ${eventCountsAfterProbe - 2} day\\(s\\) old`,
        'm',
      ),
    );
    expect(text.stdout).toMatch(/^ {2}segment_size +2 d {2}auto {3}no restatement seen/m);
  });
});
