// Days keep their dates: a platform whose days are its workspace's local days writes each day as its local
// midnight with an offset (`2025-03-01T00:00:00+02:00`). The pipeline files every day under the date written — east,
// west, UTC and across a daylight-saving change — records the offset per series, warns once when it moves, and asks
// later windows in the platform's own days.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { createEmulator } from '../../src/emulator/server.js';
import { differences, PipelineRuns } from './alt-server/pipeline-runs.js';
import type { TimeForm } from './alt-server/wire-forms.js';

// 2025-03-30 is the day Central European time moves from +01:00 to +02:00.
const NOW = '2025-04-10T00:00:00Z';
const EARLIER = '2025-04-05T00:00:00Z';
const FROM = '2025-03-01';
const PIPELINE = `
name: days
start_date: 2025-03-01
lookback_days: 2
streams:
  kpis:            { metrics: [dau], apps: ["*"] }
  segment_size:    { segments: [seg_1] }
  campaign_series: { campaigns: [cmp_1] }
`;

let emulator: Emulator;
let runs: PipelineRuns;

beforeAll(async () => {
  emulator = await createEmulator({ seed: 3, now: NOW, rateLimits: false });
  runs = await PipelineRuns.create(PIPELINE);
  await runs.run({
    name: 'direct-earlier',
    baseUrl: emulator.url,
    apiKey: emulator.demoApiKey,
    from: FROM,
    until: EARLIER,
  });
  await runs.run({ name: 'direct-now', baseUrl: emulator.url, apiKey: emulator.demoApiKey, from: FROM, until: NOW });
}, 120_000);

afterAll(async () => {
  await emulator?.close();
  await runs?.close();
});

const CASES: { form: TimeForm; offsets: string[]; warned: boolean }[] = [
  { form: 'offset-east', offsets: ['+02:00'], warned: false },
  { form: 'offset-west', offsets: ['-05:00'], warned: false },
  { form: 'millis-z', offsets: ['+00:00'], warned: false },
  { form: 'zone-berlin', offsets: ['+01:00', '+02:00'], warned: true },
];

describe.each(CASES)('a platform that writes its days as local midnights ($form)', ({ form, offsets, warned }) => {
  it('files every day under the date written, records the offset, and warns only when it moves', async () => {
    const { summary } = await runs.runThrough(emulator, { name: form, from: FROM, until: EARLIER }, { timeForm: form });
    expect(differences(await runs.diff('direct-earlier', form))).toEqual([]);
    const [first] = await runs.query(form, `SELECT min(time) AS t FROM segment_size`);
    expect((first!['t'] as Date).toISOString()).toBe('2025-03-01T00:00:00.000Z');
    const recorded = await runs.query(form, `SELECT DISTINCT utc_offset FROM _etl_series_state WHERE unit = 'day'`);
    expect(recorded.map((r) => r['utc_offset'])).toEqual([offsets.at(-1)]);
    const changed = summary.warnings.filter((w) => w.code === 'series_offset_changed');
    expect(changed.map((w) => w.stream).sort()).toEqual(warned ? ['campaign_series', 'kpis', 'segment_size'] : []);
    if (warned)
      expect(changed[0]!.message).toMatch(
        /with offset \+02:00, where earlier days came with \+01:00 .*kept under the date the platform wrote/,
      );
    expect(summary.warnings.filter((w) => w.code !== 'series_offset_changed')).toEqual([]);
  }, 120_000);

  it("asks the next run's windows in the platform's days, and loads the same rows as a direct run", async () => {
    const { summary, variant } = await runs.runThrough(
      emulator,
      { name: form, from: FROM, until: NOW },
      { timeForm: form },
    );
    expect(differences(await runs.diff('direct-now', form))).toEqual([]);
    const local = offsets.at(-1) === '+00:00' ? 'Z' : offsets.at(-1);
    expect(variant.stats.dayEndingAts.length).toBeGreaterThan(0);
    for (const endingAt of variant.stats.dayEndingAts) expect(endingAt).toBe(`2025-04-09T23:59:59${local}`);
    expect(summary.requests.followUps).toBe(0);
    expect(summary.warnings).toEqual([]);
  }, 120_000);
});
