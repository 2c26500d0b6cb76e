// A series whose quiet days only its objects' details tell apart, with no details stream configured: four nights of
// `campaign_series: { campaigns: all }` alone over a workspace (its own seed and UUID ids) whose server leaves out a
// campaign's days after its last send. The series reads the details of the campaigns whose windows left days out, once,
// stores them as the campaigns stream would, and no night opens a hole or asks them again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { createEmulator } from '../../src/emulator/server.js';
import type { RunSummary } from '../../src/pipeline/run-pipeline.js';
import { PipelineRuns } from './alt-server/pipeline-runs.js';
import type { VariantOptions } from './alt-server/variant-server.js';

const FIRST_NIGHT = Date.parse('2025-03-10T00:00:00Z');
const DAY = 86_400_000;
const NIGHTS = 4;

const PIPELINE = `
name: quiet-alone
start_date: 2025-01-15
lookback_days: 2
streams:
  campaign_series: { campaigns: all }
`;

type Point = { time: string };

/** The server of a platform that writes no day for a campaign after its last send. */
function quietAfterLastSend(emulator: Emulator): VariantOptions {
  const lastSendDay = new Map(emulator.state.analytics.campaigns.map((c) => [c.id, c.lastSendDayMs]));
  return {
    rewriteBody: (path, query, body) => {
      if (path !== '/campaigns/data_series') return body;
      const last = lastSendDay.get(query.get('campaign_id') ?? '');
      if (last === undefined) return body;
      return {
        ...body,
        data: (body['data'] as Point[]).filter((p) => Date.parse(`${p.time.slice(0, 10)}T00:00:00Z`) <= last),
      };
    },
  };
}

interface Night {
  summary: RunSummary;
  holes: number;
  detailsRequests: number;
  seriesRequests: number;
}

let emulator: Emulator;
let runs: PipelineRuns;
const nights: Night[] = [];
/** Campaigns of the series whose stored days stop before the first night's last complete day: the quiet ones. */
let quiet: string[] = [];
let series: number;

beforeAll(async () => {
  emulator = await createEmulator({
    seed: 11,
    idStyle: 'uuid',
    size: { campaigns: 24 },
    now: new Date(FIRST_NIGHT).toISOString(),
    rateLimits: false,
  });
  runs = await PipelineRuns.create(PIPELINE);
  for (let night = 0; night < NIGHTS; night++) {
    const until = new Date(FIRST_NIGHT + night * DAY).toISOString();
    emulator.clock.set(until);
    const { summary, variant } = await runs.runThrough(
      emulator,
      { name: 'nightly', from: '2025-01-15', until },
      quietAfterLastSend(emulator),
    );
    const [count] = await runs.query('nightly', 'SELECT count(*) AS n FROM _etl_holes');
    nights.push({
      summary,
      holes: Number(count!['n']),
      detailsRequests: variant.stats.byPath['/campaigns/details'] ?? 0,
      seriesRequests: variant.stats.byPath['/campaigns/data_series'] ?? 0,
    });
    if (night === 0) {
      // A series with no day stored at all is quiet too: its campaign last sent before start_date.
      const rows = await runs.query(
        'nightly',
        `SELECT s.series_key, max(c.time) AS last FROM _etl_series_state s LEFT JOIN campaign_series c ON s.series_key = 'unit=day|campaign_id=' || c.campaign_id WHERE s.stream = 'campaign_series' GROUP BY s.series_key`,
      );
      series = rows.length;
      quiet = rows
        .filter((r) => r['last'] === null || (r['last'] as Date).getTime() < FIRST_NIGHT - DAY)
        .map((r) => String(r['series_key']).split('=').at(-1)!)
        .sort();
    }
  }
}, 300_000);

afterAll(async () => {
  await emulator?.close();
  await runs?.close();
});

describe('campaign_series alone over campaigns that went quiet, four nights in a row', () => {
  it('has quiet campaigns and active ones to tell apart', () => {
    expect(quiet.length).toBeGreaterThanOrEqual(2);
    expect(quiet.length).toBeLessThan(series);
    expect(quiet.every((id) => /^[0-9a-f-]{36}$/.test(id))).toBe(true);
  });

  it('exits 0 every night with no hole stored', () => {
    expect(nights.map((n) => [n.summary.status, n.holes])).toEqual(nights.map(() => ['succeeded', 0]));
  });

  it('reads the details of the quiet campaigns only, once each, the first night', async () => {
    expect(nights[0]!.detailsRequests).toBe(quiet.length);
    const stored = await runs.query(
      'nightly',
      `SELECT campaign_id, last_sent, _list_version FROM campaigns ORDER BY campaign_id`,
    );
    expect(stored.map((r) => String(r['campaign_id']))).toEqual(quiet);
    expect(stored.every((r) => r['last_sent'] instanceof Date && r['_list_version'] !== null)).toBe(true);
  });

  it('counts them as follow-ups beyond the plan, beside one edge follow-up per quiet campaign asked before its details', () => {
    const first = nights[0]!.summary.requests;
    expect(first.followUps).toBe(2 * quiet.length);
    expect(first.sent).toBe(first.planned + first.followUps);
  });

  it('asks no details on the later nights: the stored ones tell the quiet days', () => {
    for (const n of nights.slice(1)) {
      expect(n.detailsRequests).toBe(0);
      expect(n.summary.requests.sent).toBe(n.summary.requests.planned);
      // One window a series, and no follow-up for the quiet campaigns' days.
      expect(n.seriesRequests).toBe(series);
    }
  });
});
