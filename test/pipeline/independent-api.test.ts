// The pipeline follows the spec, not our emulator: the same run against the emulator directly and against variant servers
// that answer differently wherever the spec leaves room must load the same data, at a bounded extra cost.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { createEmulator } from '../../src/emulator/server.js';
import type { RunSummary } from '../../src/pipeline/run-pipeline.js';
import { differences, PipelineRuns } from './alt-server/pipeline-runs.js';
import type { VariantOptions } from './alt-server/variant-server.js';
import { VariantServer } from './alt-server/variant-server.js';

// --until on a day boundary: every planned unit is complete, so even a server that only returns whole units can return
// all of them, and the two runs must agree row for row.
const NOW = '2025-03-10T00:00:00Z';
const FROM = '2024-11-01';
const PIPELINE = `
name: independent
start_date: 2024-01-01
lookback_days: 3
streams:
  purchase_quantity: { unit: day, apps: ["*", app_1], products: ["*", gems_small] }
  revenue:           { unit: day, apps: ["*"], products: ["*", gems_small] }
  sessions:          { unit: hour, apps: ["*", app_2], segments: ["*", seg_1] }
  segment_size:      { segments: [seg_1, seg_2] }
  custom_events:     {}
  canvas_summary:    { canvases: [cv_1], variant_breakdown: true, step_breakdown: true }
  canvas_details:    { canvases: [cv_1, cv_2, cv_3] }
  email_templates:   { ids: [tpl_1, tpl_2] }
  content_blocks:    { ids: [cb_1, cb_2], inclusion_data: true }
  data_integrations: {}
`;

let emulator: Emulator;
let runs: PipelineRuns;
let direct: RunSummary;
let windows: number;

async function runThrough(name: string, options: VariantOptions, until = NOW): Promise<{ summary: RunSummary; variant: VariantServer }> {
  const variant = await VariantServer.create(emulator, options);
  try {
    const summary = await runs.run({ name, baseUrl: variant.url, apiKey: emulator.demoApiKey, from: FROM, until });
    return { summary, variant };
  } finally {
    await variant.close();
  }
}

beforeAll(async () => {
  emulator = await createEmulator({ seed: 1, now: NOW, rateLimits: false });
  // Exactly two full pages of event names: the last full page must be followed by an empty one, not end the list.
  const names = Array.from({ length: 500 }, (_, i) => `event_${String(i).padStart(3, '0')}`);
  (emulator.state.analytics as { eventNames: readonly string[] }).eventNames = names;
  runs = await PipelineRuns.create(PIPELINE);
  direct = await runs.run({ name: 'direct', baseUrl: emulator.url, apiKey: emulator.demoApiKey, from: FROM, until: NOW });
  windows = runs.seriesWindows(FROM, NOW);
}, 120_000);

afterAll(async () => {
  await emulator?.close();
  await runs?.close();
});

describe('the reference run straight against the emulator', () => {
  it('loads every table and needs no follow-up request', async () => {
    const counts = await runs.counts('direct');
    for (const [table, n] of Object.entries(counts)) expect(n, table).toBeGreaterThan(0);
    expect(counts['custom_events']).toBe(500);
    expect(direct.requests.followUps).toBe(0);
    expect(direct.warnings).toEqual([]);
  });
});

describe('a server that returns only whole units before ending_at, under a path prefix, with absolute links', () => {
  it('loads the same rows, with exactly one follow-up per window (the last unit, which an S2 server leaves out)', async () => {
    const { summary, variant } = await runThrough('whole-units', {
      prefix: '/rest/v1', windows: 'whole', link: { target: 'absolute', headerName: 'LINK', quoteRel: true },
    });
    expect(differences(await runs.diff('direct', 'whole-units'))).toEqual([]);
    expect(summary.requests.followUps).toBe(windows);
    expect(summary.warnings).toEqual([]);
    // Every integration page was reached through the absolute next links, each one once.
    expect(variant.stats.byPath['/cdi/integrations']).toBe(Math.ceil(emulator.state.analytics.integrations.length / 10));
  }, 120_000);
});

describe('a server that returns one unit fewer than length, dropping the oldest', () => {
  it('under the containing-unit reading: same rows, one follow-up per window for its first unit', async () => {
    const { summary } = await runThrough('fewer-s1', { windows: 'contains', fewerAtOldEnd: true });
    expect(differences(await runs.diff('direct', 'fewer-s1'))).toEqual([]);
    expect(summary.requests.followUps).toBe(windows);
    expect(summary.warnings).toEqual([]);
  }, 120_000);

  it('under the whole-units reading: same rows, one follow-up per window for its last unit', async () => {
    const { summary } = await runThrough('fewer-s2', { windows: 'whole', fewerAtOldEnd: true });
    expect(differences(await runs.diff('direct', 'fewer-s2'))).toEqual([]);
    expect(summary.requests.followUps).toBe(windows);
    expect(summary.warnings).toEqual([]);
  }, 120_000);
});

describe('a server that spells everything the spec leaves open its own way', () => {
  it('loads the same rows: every time form, floats and numeric strings, extra and missing fields, other header cases', async () => {
    const { summary, variant } = await runThrough('spellings', {
      prefix: '/api',
      timeForm: ['millis-z', 'plus-zero', 'space', 'offset-east', 'offset-west', 'emulator'],
      metadataTimeForm: ['offset-east', 'space', 'millis-z', 'offset-west', 'plus-zero'],
      numberForm: ['string', 'float', 'json'],
      extraFields: true,
      dropOptional: true,
      link: { target: 'prefixed', headerName: 'link', quoteRel: false },
      rateLimitHeaderCase: 'upper',
    });
    expect(differences(await runs.diff('direct', 'spellings'))).toEqual([]);
    expect(summary.requests.followUps).toBe(0);
    expect(summary.warnings).toEqual([]);
    expect(variant.stats.byPath['/events/list']).toBe(3);
  }, 120_000);
});

describe('a server with faults the emulator never makes', () => {
  it('loads the same rows after retrying 429 with an HTTP-date Retry-After, HTML 502 pages and a stalled answer', async () => {
    const { summary, variant } = await runThrough('faults', {
      prefix: '/v1',
      faults: { every: 7, kinds: ['429-http-date', '502-html', 'slow-first-byte', 'stall'], max: 8, slowMs: 200, stallMs: 3000 },
    }, NOW);
    expect(differences(await runs.diff('direct', 'faults'))).toEqual([]);
    expect(variant.stats.faults).toEqual({ '429-http-date': 2, '502-html': 2, 'slow-first-byte': 2, stall: 2 });
    // A slow first byte within the timeout is an answer; the other six faults each cost exactly one retry.
    expect(summary.requests.retries).toBe(6);
    expect(summary.requests.followUps).toBe(0);
  }, 120_000);
});

describe('a server that leaves zero-valued points out', () => {
  // Its own emulator: days restated to zero change the data, so it needs its own reference run.
  let zeroEmulator: Emulator;
  // 2025-01-15 lies inside a window (days and hours); 2024-11-30 starts the newer day window and an hour window.
  const ZERO_DAYS = ['2024-11-30', '2025-01-15'];

  beforeAll(async () => {
    zeroEmulator = await createEmulator({ seed: 1, now: NOW, rateLimits: false });
    for (const day of ZERO_DAYS) {
      zeroEmulator.state.analytics.restate({ series: 'purchases', day, factor: 0 });
      zeroEmulator.state.analytics.restate({ series: 'sessions', day, factor: 0 });
    }
    await runs.run({ name: 'zeros-direct', baseUrl: zeroEmulator.url, apiKey: zeroEmulator.demoApiKey, from: FROM, until: NOW });
  }, 120_000);
  afterAll(async () => zeroEmulator?.close());

  it('loads every non-zero row and nothing else, spending no request on the points left out inside a window', async () => {
    const variant = await VariantServer.create(zeroEmulator, { omitZeros: true, windows: 'whole' });
    let summary: RunSummary;
    try {
      summary = await runs.run({ name: 'zeros-variant', baseUrl: variant.url, apiKey: zeroEmulator.demoApiKey, from: FROM, until: NOW });
    } finally {
      await variant.close();
    }
    const [zeros] = await runs.query('zeros-direct', `
      SELECT (SELECT count(*) FROM purchase_quantity WHERE purchase_quantity = 0) + (SELECT count(*) FROM revenue WHERE revenue = 0)
           + (SELECT count(*) FROM sessions WHERE sessions = 0) + (SELECT count(*) FROM segment_size WHERE size = 0) AS n`);
    // 4 purchase series + 2 revenue series, one row per zero day; 4 session series, 24 rows per zero day.
    expect(Number(zeros!['n'])).toBe(ZERO_DAYS.length * (4 + 2 + 4 * 24));
    // The comparison sees the left-out points (so it can fail)…
    const strict = await runs.diff('zeros-direct', 'zeros-variant');
    expect(strict.reduce((n, d) => n + d.onlyLeft, 0)).toBe(Number(zeros!['n']));
    expect(strict.reduce((n, d) => n + d.onlyRight, 0)).toBe(0);
    // …and they are the only difference.
    expect(differences(await runs.diff('zeros-direct', 'zeros-variant', {
      purchase_quantity: 'purchase_quantity <> 0', revenue: 'revenue <> 0', sessions: 'sessions <> 0', segment_size: 'size <> 0',
    }))).toEqual([]);
    // Only the S2 follow-up of each window's last unit: the zero runs, bracketed by returned points, cost nothing.
    expect(summary.requests.followUps).toBe(windows);
    expect(summary.warnings).toEqual([]);
  }, 120_000);
});
