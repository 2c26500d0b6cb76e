// Wall / bound at a given latency: a 2-year backfill of nine hourly session series (1,584 requests, all in the default
// pool at its real limit, 250,000 an hour) against the emulator holding each answer `latencyMs`. The bound is the time
// the pool's sustained rate imposes (requests × window / limit); the peak counts the requests in flight at once.
import type { ClientEvent } from '../src/api/api-client-options.js';
import { estimateDuration, poolRateBoundMs } from '../src/pipeline/plan-estimate.js';
import { EmulatorBench } from './emulator-run.js';

export interface WallTimeFigures {
  requests: number;
  byPool: Record<string, number>;
  wallMs: number;
  boundMs: number;
  ratio: number;
  /** What `engage-etl plan --latency-ms` would have predicted for these requests. */
  estimateMs: number;
  rateLimited: number;
  latencyMs: number;
  peakInFlight: number;
}

/** The latencies the bench runs at: a nearby server, and a distant one (250 ms). */
export const LATENCIES_MS = [50, 250] as const;

const PIPELINE = `
name: wall
start_date: 2024-01-01
lookback_days: 3
streams:
  sessions: { unit: hour, apps: ["*", app_1, app_2], segments: ["*", seg_1, seg_2] }
`;

export async function measureWallTime(latencyMs: number): Promise<WallTimeFigures> {
  const bench = await EmulatorBench.create(PIPELINE, { now: '2026-01-01T00:30:00Z', latencyMs });
  let active = 0;
  let peakInFlight = 0;
  const onEvent = (e: ClientEvent): void => {
    if (e.type === 'request-started') peakInFlight = Math.max(peakInFlight, ++active);
    if (e.type === 'request-finished') active--;
  };
  try {
    const run = await bench.run('2026-01-01T00:30:00Z', { onEvent });
    const byPool = Object.fromEntries(Object.entries(bench.emulator.stats.byPool).filter(([, n]) => n > 0));
    const boundMs = poolRateBoundMs(byPool);
    return {
      requests: run.received,
      byPool,
      wallMs: run.wallMs,
      boundMs,
      ratio: run.wallMs / boundMs,
      estimateMs: estimateDuration(byPool, { latencyMs }).ms,
      rateLimited: run.rateLimited,
      latencyMs,
      peakInFlight,
    };
  } finally {
    await bench.close();
  }
}
