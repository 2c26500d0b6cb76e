// Holes over HTTP: a server that leaves units out of its answers — an outage (`data: []`), a point sent under a time far
// outside the window, a unit missing in the middle of a window, one time with two values — makes the run complete with
// exit 3 and the units listed by `status`; the next run against a healthy server fills them in no more requests than
// the minimum, exits 0, and leaves tables equal to a clean run's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeriesFault } from '../../src/emulator/series-faults.js';
import type { RunSummary } from '../../src/pipeline/run-pipeline.js';
import { runCli } from '../reliability/reliability-helpers.js';
import { PipelineFixture } from './helpers/pipeline-fixture.js';

const NOW = '2025-03-10T06:00:00Z';
const PIPELINE = `
name: holes
start_date: 2025-01-01
lookback_days: 3
streams:
  segment_size: { segments: [seg_1] }
  sessions:     { unit: hour, apps: ["*"], segments: ["*"] }
`;

let clean: PipelineFixture;
let cleanData: Record<string, Record<string, unknown>[]>;

beforeAll(async () => {
  clean = await PipelineFixture.create({ now: NOW, pipeline: PIPELINE, emulator: { rateLimits: false } });
  await clean.run();
  cleanData = { segment_size: await clean.tableData('segment_size'), sessions: await clean.tableData('sessions') };
}, 120_000);

afterAll(async () => clean?.close());

interface Case {
  name: string;
  fault: SeriesFault;
  /** Units the first run must list as holes (ISO instants). */
  holes: string[];
  reason: RegExp;
  warning?: string;
}

// Segment size asks 2025-01-01 → 2025-03-10 in one 69-day window; the outage empties it and its follow-up.
const outageDays = Array.from({ length: 68 }, (_, i) => new Date(Date.UTC(2025, 0, 1 + i)).toISOString());

const CASES: Case[] = [
  {
    name: 'an answer with no points (an outage)',
    fault: { endpoint: 'segmentsDataSeries', mode: 'drop_all', times: 100 },
    holes: outageDays,
    reason: /did not return .* \(follow-up asked\)/,
    warning: 'in_progress_units_absent',
  },
  {
    name: 'a unit missing in the middle of a window',
    fault: { endpoint: 'segmentsDataSeries', mode: 'drop_point', atTime: '2025-02-10', times: 100 },
    holes: ['2025-02-10T00:00:00.000Z'],
    reason: /did not return 2025-02-10T00:00:00.000Z of unit=day\|segment_id=seg_1/,
  },
  {
    name: 'a point sent under a time far outside the window',
    fault: { endpoint: 'segmentsDataSeries', mode: 'misplaced_point', atTime: '2025-02-10', times: 100 },
    holes: ['2025-02-10T00:00:00.000Z'],
    reason: /did not return/,
    warning: 'points_outside_window',
  },
  {
    name: 'one time with two different values, in every answer',
    fault: { endpoint: 'segmentsDataSeries', mode: 'conflicting_duplicate', atTime: '2025-02-10', times: 100 },
    holes: ['2025-02-10T00:00:00.000Z'],
    reason:
      /\/segments\/data_series answered 2025-02-10T00:00:00.000Z of unit=day\|segment_id=seg_1 with 2 different values/,
  },
  {
    name: 'an hour missing from an hourly series',
    fault: { endpoint: 'sessionsDataSeries', mode: 'drop_point', atTime: '2025-02-10T05:00:00Z', times: 100 },
    holes: ['2025-02-10T05:00:00.000Z'],
    reason: /did not return 2025-02-10T05:00:00.000Z of unit=hour/,
  },
];

describe.each(CASES)('a server that sends $name', (c) => {
  let fx: PipelineFixture;
  let first: RunSummary;

  beforeAll(async () => {
    fx = await PipelineFixture.create({
      now: NOW,
      pipeline: PIPELINE,
      emulator: { rateLimits: false, seriesFaults: [c.fault] },
    });
    first = await fx.run();
  }, 120_000);

  afterAll(async () => fx?.close());

  it('completes with the units listed as holes, never loads them, and warns', async () => {
    expect(first.status).toBe('completed_with_holes');
    expect(first.holes.open).toBe(c.holes.length);
    const stored = await fx.query(`SELECT unit_start, status, attempts, reason FROM _etl_holes ORDER BY unit_start`);
    expect(stored.map((h) => (h['unit_start'] as Date).toISOString())).toEqual(c.holes);
    for (const h of stored) {
      expect(h).toMatchObject({ status: 'open', attempts: 1 });
      expect(String(h['reason'])).toMatch(c.reason);
    }
    const table = c.fault.endpoint === 'sessionsDataSeries' ? 'sessions' : 'segment_size';
    const loaded = await fx.query(
      `SELECT time FROM ${table} WHERE time IN (${c.holes.map((t) => `TIMESTAMP '${t.slice(0, 19).replace('T', ' ')}'`).join(', ')})`,
    );
    expect(loaded).toEqual([]);
    expect(first.warnings.map((w) => w.code)).toEqual([...(c.warning ? [c.warning] : []), 'units_missing']);
  });

  it('says so to a scheduler: status lists the holes and the CLI exits 3', async () => {
    const status = await runCli(['status', '--db', fx.db, '--json']);
    expect(status.code).toBe(0);
    const listed = (JSON.parse(status.stdout) as { holes: { unitStart: string; status: string }[] }).holes;
    expect(listed.map((h) => h.unitStart)).toEqual(c.holes);
    const again = await runCli(
      [
        'run',
        '--pipeline',
        fx.pipelinePath,
        '--db',
        fx.db,
        '--out',
        fx.out,
        '--base-url',
        fx.emulator.url,
        '--until',
        NOW,
      ],
      { ENGAGE_API_KEY: fx.emulator.demoApiKey },
    );
    expect(again.code, again.stderr.slice(-500)).toBe(3);
    expect(again.stdout).toMatch(/missing units: \d+ still open/);
  }, 60_000);

  it('fills them on the next run against a healthy server, in the minimum of requests, and equals a clean run', async () => {
    fx.emulator.clearSeriesFaults();
    const healed = await fx.run();
    expect(healed.status).toBe('succeeded');
    expect(healed.holes).toMatchObject({ open: 0, filled: c.holes.length });
    expect(healed.requests.sent).toBe(healed.requests.minimum);
    expect(await fx.query('SELECT * FROM _etl_holes')).toEqual([]);
    expect({ segment_size: await fx.tableData('segment_size'), sessions: await fx.tableData('sessions') }).toEqual(
      cleanData,
    );
  }, 60_000);
});
