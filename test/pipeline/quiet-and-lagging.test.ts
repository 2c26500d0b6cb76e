// Holes that can close (issue 24.5): night after night (the emulator's clock and --until moving a day at a time), a
// campaign that stopped sending answers `data: []` for its quiet days and a segment series lags two days behind. The
// quiet days are no holes once the campaign's details say when it last sent (the first night's close on the second),
// the lagging days are waited for with one warning a night, every later night exits 0, and `_etl_holes` stays bounded.
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
      if (path === '/campaigns/data_series') return { ...body, data: (body['data'] as Point[]).filter((p) => Date.parse(`${p.time.slice(0, 10)}T00:00:00Z`) < QUIET_FROM) };
      if (path === '/segments/data_series') {
        const today = Math.floor(emulator.clock.nowMs() / DAY) * DAY;
        return { ...body, data: (body['data'] as Point[]).filter((p) => Date.parse(`${p.time.slice(0, 10)}T00:00:00Z`) < today - 2 * DAY) };
      }
      return body;
    },
  };
}

let emulator: Emulator;
let runs: PipelineRuns;
const nights: { summary: RunSummary; holes: number; watermark: Date }[] = [];

beforeAll(async () => {
  emulator = await createEmulator({ seed: 1, now: new Date(FIRST_NIGHT).toISOString(), rateLimits: false });
  runs = await PipelineRuns.create(PIPELINE);
  for (let night = 0; night < NIGHTS; night++) {
    const until = new Date(FIRST_NIGHT + night * DAY).toISOString();
    emulator.clock.set(until);
    const { summary } = await runs.runThrough(emulator, { name: 'nightly', from: '2025-02-01', until }, twists(emulator));
    const [count] = await runs.query('nightly', 'SELECT count(*) AS n FROM _etl_holes');
    const [state] = await runs.query('nightly', `SELECT watermark FROM _etl_series_state WHERE stream = 'segment_size'`);
    nights.push({ summary, holes: Number(count!['n']), watermark: state!['watermark'] as Date });
  }
}, 300_000);

afterAll(async () => {
  await emulator?.close();
  await runs?.close();
});

describe('a dormant campaign and a lagging source, six nights in a row', () => {
  it('opens holes for the quiet days only on the first night, before the campaign\'s details are known', () => {
    expect(nights[0]!.summary.status).toBe('completed_with_holes');
    expect(nights[0]!.summary.holes.units.every((u) => u.stream === 'campaign_series')).toBe(true);
  });

  it('closes them the next night from the details, and every later night exits 0 with no hole left', () => {
    expect(nights[1]!.summary.holes.filled).toBe(nights[0]!.holes);
    for (const n of nights.slice(1)) {
      expect(n.summary.status).toBe('succeeded');
      expect(n.holes).toBe(0);
    }
  });

  it('waits for the lagging days with one warning a night, keeping the watermark before them', () => {
    nights.forEach((n, i) => {
      expect(n.summary.warnings.filter((w) => w.code === 'source_lagging').map((w) => w.stream)).toEqual(['segment_size']);
      // The two complete days before --until are not there yet: the watermark stays at the first of them.
      expect(n.watermark.toISOString()).toBe(new Date(FIRST_NIGHT + (i - 2) * DAY).toISOString());
    });
    expect(nights[0]!.summary.warnings.find((w) => w.code === 'source_lagging')!.message).toMatch(/has no data yet for unit=day\|segment_id=seg_1 from 2025-03-08T00:00:00.000Z on .* asked again by the next runs/);
  });

  it('loads the lagging days once they come: the segment series has every day up to three before the last night', async () => {
    const [row] = await runs.query('nightly', `SELECT count(*) AS n, max(time) AS last FROM segment_size`);
    const lastNight = FIRST_NIGHT + (NIGHTS - 1) * DAY;
    expect((row!['last'] as Date).toISOString()).toBe(new Date(lastNight - 3 * DAY).toISOString());
    expect(Number(row!['n'])).toBe((lastNight - 3 * DAY - Date.parse('2025-02-01T00:00:00Z')) / DAY + 1);
  });
});
