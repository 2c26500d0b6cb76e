// Wall-time ratio = wall / max(requests × latency / concurrency, requests / pool rate), against the emulator with 50 ms
// of latency and limits scaled down from hours to seconds, so that the purchases pool needs several budget windows.
import type { PoolOverrides } from '../src/api/limiter.js';
import { estimateDuration, theoreticalWallMs } from '../src/pipeline/plan-estimate.js';
import { EmulatorBench } from './emulator-run.js';
import { scaledPools } from '../src/api/endpoints.js';

export interface WallTimeFigures {
  requests: number;
  byPool: Record<string, number>;
  wallMs: number;
  theoreticalMs: number;
  ratio: number;
  /** What `engage-etl plan` would have predicted for these requests (budget waves). */
  estimateMs: number;
  rateLimited: number;
  latencyMs: number;
  concurrency: number;
  limits: string;
}

export const LATENCY_MS = 50;
const CONCURRENCY = 8;
// The emulator multiplies every limit by LIMIT_SCALE and every window by WINDOW_SCALE (windows of at least 1 s); the
// client is told the same limits (scaledPools), as it knows the real ones.
const LIMIT_SCALE = 0.02;
const WINDOW_SCALE = 1 / 1200;
const CLIENT_POOLS: PoolOverrides = scaledPools(LIMIT_SCALE, WINDOW_SCALE);

const PIPELINE = `
name: wall
start_date: 2024-01-01
lookback_days: 3
streams:
  purchase_quantity: { unit: day, apps: ["*", app_1, app_2, app_3], products: ["*", gems_small] }
  revenue:           { unit: day, apps: ["*", app_1], products: ["*", gems_small] }
  sessions:          { unit: hour, apps: ["*", app_1], segments: ["*"] }
  segment_size:      { segments: [seg_1, seg_2, seg_3] }
  custom_events:     {}
`;

export async function measureWallTime(): Promise<WallTimeFigures> {
  const bench = await EmulatorBench.create(PIPELINE, { now: '2026-01-01T06:00:00Z', latencyMs: LATENCY_MS, limitScale: LIMIT_SCALE, limitWindowScale: WINDOW_SCALE });
  try {
    const run = await bench.run('2026-01-01T06:00:00Z', { pools: CLIENT_POOLS, concurrency: CONCURRENCY });
    const byPool = Object.fromEntries(Object.entries(bench.emulator.stats.byPool).filter(([, n]) => n > 0));
    const opts = { latencyMs: LATENCY_MS, concurrency: CONCURRENCY, pools: CLIENT_POOLS };
    const theoreticalMs = theoreticalWallMs(byPool, opts);
    return {
      requests: run.received,
      byPool,
      wallMs: run.wallMs,
      theoreticalMs,
      ratio: run.wallMs / theoreticalMs,
      estimateMs: estimateDuration(byPool, opts).ms,
      rateLimited: run.rateLimited,
      latencyMs: LATENCY_MS,
      concurrency: CONCURRENCY,
      limits: 'purchases+events 20 / 3 s, default 5,000 / 3 s, cdi 1 / 1 s',
    };
  } finally {
    await bench.close();
  }
}
