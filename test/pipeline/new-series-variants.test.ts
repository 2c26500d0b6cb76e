// The event, KPI, campaign and Canvas data series through the alternate-reading server: other readings of `length`/`ending_at`,
// one unit fewer than asked, other time and number spellings, extra and missing fields. The pipeline must load exactly
// the rows of a run straight against the emulator, with at most one follow-up request per window.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { createEmulator } from '../../src/emulator/server.js';
import type { RunSummary } from '../../src/pipeline/run-pipeline.js';
import { differences, PipelineRuns } from './alt-server/pipeline-runs.js';
import type { VariantOptions } from './alt-server/variant-server.js';
import { VariantServer } from './alt-server/variant-server.js';

// On a day boundary: every planned unit is complete, so a server that returns only whole units can return them all.
const NOW = '2025-03-10T00:00:00Z';
const FROM = '2024-12-01';
const PIPELINE = `
name: new-series
start_date: 2024-01-01
lookback_days: 3
streams:
  kpis:           { metrics: [dau, mau, new_users, uninstalls], apps: ["*", app_1] }
  event_counts:   { events: [achievement_bought, achievement_claimed], unit: hour, apps: ["*"], segments: ["*", seg_1] }
  canvas_summary: { canvases: [cv_1, cv_2], variant_breakdown: true, step_breakdown: true }
  campaign_series: { campaigns: [cmp_1, cmp_2] }
`;

let emulator: Emulator;
let runs: PipelineRuns;
let direct: RunSummary;
let windows: number;

function runThrough(name: string, options: VariantOptions): Promise<{ summary: RunSummary; variant: VariantServer }> {
  return runs.runThrough(emulator, { name, from: FROM, until: NOW }, options);
}

beforeAll(async () => {
  emulator = await createEmulator({ seed: 1, now: NOW, rateLimits: false });
  runs = await PipelineRuns.create(PIPELINE);
  direct = await runs.run({
    name: 'direct',
    baseUrl: emulator.url,
    apiKey: emulator.demoApiKey,
    from: FROM,
    until: NOW,
  });
  windows = runs.seriesWindows(FROM, NOW);
}, 120_000);

afterAll(async () => {
  await emulator?.close();
  await runs?.close();
});

describe('the reference run of the new series', () => {
  it('fills the new tables and needs no follow-up', async () => {
    const counts = await runs.counts('direct');
    // 99 days, 2,376 hours: 8 KPI series, 4 hourly event series, 2 Canvases, 2 campaigns.
    expect([counts['kpi_series'], counts['event_counts'], counts['canvas_summary'], counts['campaign_series']]).toEqual(
      [8 * 99, 4 * 2376, 2 * 99, 2 * 99],
    );
    expect(counts['campaign_message_series']).toBeGreaterThan(0);
    expect(direct.requests.followUps).toBe(0);
    // Windows: 8 × 1 (99 days), 4 × 24 (2,376 hours), 2 × ceil(99 / 14) = 8 (every Canvas window asks with length), 2 × 1.
    expect(windows).toBe(8 + 4 * 24 + 2 * 8 + 2);
    expect(direct.warnings).toEqual([]);
  });
});

describe('a server that reads a window as the whole units before ending_at', () => {
  it('loads the same rows, with one follow-up per window (the last unit, which it leaves out)', async () => {
    const { summary, variant } = await runThrough('whole', { prefix: '/rest/v1', windows: 'whole' });
    expect(differences(await runs.diff('direct', 'whole'))).toEqual([]);
    expect(summary.requests.followUps).toBe(windows);
    expect(summary.warnings).toEqual([]);
    expect(variant.stats.byPath['/canvas/data_series']).toBe(2 * 8 * 2);
  }, 120_000);
});

describe('a server that returns one unit fewer than length, dropping the oldest', () => {
  it('under either reading: the same rows, one follow-up per window', async () => {
    for (const reading of ['contains', 'whole'] as const) {
      const name = `fewer-${reading}`;
      const { summary } = await runThrough(name, { windows: reading, fewerAtOldEnd: true });
      expect(differences(await runs.diff('direct', name)), reading).toEqual([]);
      expect(summary.requests.followUps, reading).toBe(windows);
      expect(summary.warnings, reading).toEqual([]);
    }
  }, 120_000);
});

describe('a server that spells times and numbers its own way', () => {
  it('loads the same rows: every time form, floats and numeric strings, extra fields, empty breakdowns left out', async () => {
    const { summary, variant } = await runThrough('spellings', {
      prefix: '/api',
      timeForm: ['millis-z', 'plus-zero', 'space', 'offset-east', 'offset-west', 'emulator'],
      numberForm: ['string', 'float', 'json'],
      extraFields: true,
      dropOptional: true,
    });
    expect(differences(await runs.diff('direct', 'spellings'))).toEqual([]);
    expect(summary.requests.followUps).toBe(0);
    // Offsets rotating point by point are offset changes: one warning per daily stream, and the days keep their dates.
    expect(summary.warnings.map((w) => [w.code, w.stream]).sort()).toEqual(
      ['campaign_series', 'canvas_summary', 'kpis'].map((s) => ['series_offset_changed', s]),
    );
    expect(variant.stats.byPath['/canvas/data_series']).toBe(2 * 8);
  }, 120_000);
});

describe('the variant server on the Canvas data series', () => {
  it("rewrites each day's time and figures and reads the window as asked", async () => {
    const variant = await VariantServer.create(emulator, {
      windows: 'whole',
      timeForm: 'offset-west',
      numberForm: 'string',
    });
    try {
      const q = 'canvas/data_series?canvas_id=cv_1&length=3&ending_at=2025-03-05T23:59:59Z';
      const res = await fetch(`${variant.url}/${q}`, { headers: { Authorization: `Bearer ${emulator.demoApiKey}` } });
      const plain = (await (
        await fetch(`${emulator.url}/${q}`, { headers: { Authorization: `Bearer ${emulator.demoApiKey}` } })
      ).json()) as { data: { stats: { time: string; total_stats: { entries: number } }[] } };
      const body = (await res.json()) as { data: { stats: { time: string; total_stats: { entries: string } }[] } };
      // Whole units before ending_at: 03-02 … 03-04, where the emulator answers 03-03 … 03-05.
      // Each day as the local midnight that starts it, at -05:00: the date stays the day's.
      expect(body.data.stats.map((d) => d.time)).toEqual([
        '2025-03-02T00:00:00-05:00',
        '2025-03-03T00:00:00-05:00',
        '2025-03-04T00:00:00-05:00',
      ]);
      expect(plain.data.stats.map((d) => d.time)).toEqual(['2025-03-03', '2025-03-04', '2025-03-05']);
      expect(typeof body.data.stats[1]!.total_stats.entries).toBe('string');
      expect(Number(body.data.stats[1]!.total_stats.entries)).toBe(plain.data.stats[0]!.total_stats.entries);
    } finally {
      await variant.close();
    }
  });
});
