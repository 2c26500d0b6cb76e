// The scale bench's pure arithmetic: its spans, its pipeline (read by the project's own parser), and the figures it
// derives per 1,000 requests, per million rows and as multiples of the yardstick.
import { describe, expect, it } from 'vitest';
import { parsePipelineText } from '../../src/config/load-pipeline-file.js';
import type { Yardstick } from '../../bench/scale-figures.js';
import {
  scaledCost,
  scalePipeline,
  scaleSpan,
  uploadShare,
  yardstickPerMillionRows,
  yardstickPerThousandRequests,
} from '../../bench/scale-figures.js';

const yardstick: Yardstick = {
  requests: 2_000,
  responseBytes: 10_000_000,
  rows: 500_000,
  parseCpuSeconds: 0.6,
  readJsonCpuSeconds: 0.4,
};

describe('the scale bench span', () => {
  it('covers 17 months, 2024-06-01 to 2025-11-01, with the next night one day later', () => {
    expect(scaleSpan(17)).toEqual({
      start: '2024-06-01',
      until: '2025-11-01T00:00:00Z',
      next: '2025-11-02T00:00:00Z',
      now: '2025-11-02T06:00:00Z',
      months: 17,
    });
  });

  it('shortens the history from the same end, across a year boundary too', () => {
    expect(scaleSpan(3).start).toBe('2025-08-01');
    expect(scaleSpan(12).start).toBe('2024-11-01');
    expect(scaleSpan(11).start).toBe('2024-12-01');
  });

  it('refuses a span that is not a whole number of months from 1 to 120', () => {
    for (const bad of [0, 1.5, -3, 121, Number.NaN])
      expect(() => scaleSpan(bad)).toThrow(/--months must be a whole number/);
  });
});

describe('the scale pipeline', () => {
  it('is a valid pipeline of Canvas summaries with variants, steps and reconciliation, Canvas details and campaigns, all listed', () => {
    const p = parsePipelineText(scalePipeline('2024-06-01'), 'scale.yaml');
    expect(p.startDate.toISODate()).toBe('2024-06-01');
    expect(Object.keys(p.streams).sort()).toEqual(['campaign_series', 'campaigns', 'canvas_details', 'canvas_summary']);
    expect(p.streams.canvas_summary).toMatchObject({
      canvases: { all: true },
      source: 'data_series',
      reconcile: true,
      variantBreakdown: true,
      stepBreakdown: true,
    });
    expect(p.streams.canvas_details).toMatchObject({ canvases: { all: true } });
    expect(p.streams.campaign_series).toMatchObject({ campaigns: { all: true } });
  });
});

describe('figures against the yardstick', () => {
  it('states the yardstick per 1,000 requests and per million rows', () => {
    expect(yardstickPerThousandRequests(yardstick)).toBeCloseTo(0.5);
    expect(yardstickPerMillionRows(yardstick)).toBeCloseTo(2);
  });

  it('divides a run by the yardstick per request, per row, and its wall by the yardstick for as many requests', () => {
    const cost = scaledCost({ cpuSeconds: 60, wallMs: 120_000, requests: 20_000, rows: 10_000_000 }, yardstick);
    expect(cost.cpuPerThousandRequests).toBeCloseTo(3);
    expect(cost.requestRatio).toBeCloseTo(6);
    expect(cost.cpuPerMillionRows).toBeCloseTo(6);
    expect(cost.rowRatio).toBeCloseTo(3);
    // 20,000 requests are 10 s of yardstick: 120 s of wall is 12 of them.
    expect(cost.wallRatio).toBeCloseTo(12);
  });

  it('leaves the per-row figure out of a command that loaded no row (plan)', () => {
    const cost = scaledCost({ cpuSeconds: 3, wallMs: 5_000, requests: 1_000 }, yardstick);
    expect(cost.cpuPerMillionRows).toBeUndefined();
    expect(cost.rowRatio).toBeUndefined();
    expect(cost.requestRatio).toBeCloseTo(6);
  });
});

describe('the upload of a nightly increment', () => {
  it('gives the database object its share of the bytes', () => {
    expect(uploadShare(90, 10)).toEqual({ total: 100, databaseShare: 0.9 });
    expect(uploadShare(0, 0)).toEqual({ total: 0, databaseShare: 0 });
  });
});
