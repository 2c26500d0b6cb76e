// Holes that can close: night after night (the emulator's clock and --until moving a day at a time), a
// campaign that stopped sending answers `data: []` for its quiet days and a segment series lags two days behind. The
// quiet days are no holes: the campaign's details say when it last sent, read once by the campaigns stream beside the
// series (never twice). The lagging days are waited for with one warning a night, every night exits 0, and
// `_etl_holes` stays empty.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { createEmulator } from '../../src/emulator/server.js';
import type { RunSummary } from '../../src/pipeline/run-pipeline.js';
import { PipelineRuns } from './alt-server/pipeline-runs.js';
import type { VariantOptions } from './alt-server/variant-server.js';

const FIRST_NIGHT = Date.parse('2025-03-10T00:00:00Z');
const DAY = 86_400_000;
const NIGHTS = 6;
/** The campaign's last send: from the next day on, the server answers its series with nothing. */
const LAST_SENT = '2025-02-19T10:00:00.000Z';
const QUIET_FROM = Date.parse('2025-02-20T00:00:00Z');

const PIPELINE = `
name: quiet
start_date: 2025-02-01
lookback_days: 2
streams:
  campaigns:       {}
  campaign_series: { campaigns: [cmp_1] }
  segment_size:    { segments: [seg_1] }
`;

type Point = { time: string };

/** The twisting server: cmp_1 dormant since LAST_SENT, and the segment series two days behind the server's now. */
function twists(emulator: Emulator): VariantOptions {
  return {
    rewriteBody: (path, _query, body) => {
      if (path === '/campaigns/details') return { ...body, last_sent: LAST_SENT };
      if (path === '/campaigns/data_series')
        return {
          ...body,
          data: (body['data'] as Point[]).filter((p) => Date.parse(`${p.time.slice(0, 10)}T00:00:00Z`) < QUIET_FROM),
        };
      if (path === '/segments/data_series') {
        const today = Math.floor(emulator.clock.nowMs() / DAY) * DAY;
        return {
          ...body,
          data: (body['data'] as Point[]).filter(
            (p) => Date.parse(`${p.time.slice(0, 10)}T00:00:00Z`) < today - 2 * DAY,
          ),
        };
      }
      return body;
    },
  };
}

let emulator: Emulator;
let runs: PipelineRuns;
const nights: { summary: RunSummary; holes: number; watermark: Date; details: number }[] = [];

beforeAll(async () => {
  emulator = await createEmulator({ seed: 1, now: new Date(FIRST_NIGHT).toISOString(), rateLimits: false });
  runs = await PipelineRuns.create(PIPELINE);
  for (let night = 0; night < NIGHTS; night++) {
    const until = new Date(FIRST_NIGHT + night * DAY).toISOString();
    emulator.clock.set(until);
    const { summary, variant } = await runs.runThrough(
      emulator,
      { name: 'nightly', from: '2025-02-01', until },
      twists(emulator),
    );
    const [count] = await runs.query('nightly', 'SELECT count(*) AS n FROM _etl_holes');
    const [state] = await runs.query(
      'nightly',
      `SELECT watermark FROM _etl_series_state WHERE stream = 'segment_size'`,
    );
    nights.push({
      summary,
      holes: Number(count!['n']),
      watermark: state!['watermark'] as Date,
      details: variant.stats.byPath['/campaigns/details'] ?? 0,
    });
  }
}, 300_000);

afterAll(async () => {
  await emulator?.close();
  await runs?.close();
});

describe('a dormant campaign and a lagging source, six nights in a row', () => {
  it('opens no hole for the quiet days, the first night included: the series waits for the details its windows need', () => {
    for (const n of nights) {
      expect(n.summary.status).toBe('succeeded');
      expect(n.holes).toBe(0);
    }
  });

  it("asks no details beyond the campaigns stream's, and follows up the quiet days only before the details are known", () => {
    expect(nights[0]!.details).toBeGreaterThan(0);
    // Every request beyond the plan is an edge follow-up: the lagging segment's tail, each night; the quiet campaign's
    // tail, the first night only (from the second its stored details say the days are quiet, worth no follow-up).
    expect(nights.map((n) => n.summary.requests.followUps)).toEqual([2, 1, 1, 1, 1, 1]);
    for (const n of nights)
      expect(n.summary.requests.sent).toBe(n.summary.requests.planned + n.summary.requests.followUps);
  });

  it('waits for the lagging days with one warning a night, keeping the watermark before them', () => {
    nights.forEach((n, i) => {
      expect(n.summary.warnings.filter((w) => w.code === 'source_lagging').map((w) => w.stream)).toEqual([
        'segment_size',
      ]);
      // The two complete days before --until are not there yet: the watermark stays at the first of them.
      expect(n.watermark.toISOString()).toBe(new Date(FIRST_NIGHT + (i - 2) * DAY).toISOString());
    });
    expect(nights[0]!.summary.warnings.find((w) => w.code === 'source_lagging')!.message).toMatch(
      /has no data yet for unit=day\|segment_id=seg_1 from 2025-03-08T00:00:00.000Z on .* asked again by the next runs/,
    );
  });

  it('loads the lagging days once they come: the segment series has every day up to three before the last night', async () => {
    const [row] = await runs.query('nightly', `SELECT count(*) AS n, max(time) AS last FROM segment_size`);
    const lastNight = FIRST_NIGHT + (NIGHTS - 1) * DAY;
    expect((row!['last'] as Date).toISOString()).toBe(new Date(lastNight - 3 * DAY).toISOString());
    expect(Number(row!['n'])).toBe((lastNight - 3 * DAY - Date.parse('2025-02-01T00:00:00Z')) / DAY + 1);
  });
});
