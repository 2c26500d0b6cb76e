// How long a plan takes under the limit pools of spec section 8 and a given latency and concurrency: the figure
// `engage-etl plan` prints before a backfill, and the theoretical bound the benchmark compares wall time with.
import { DEFAULT_CONCURRENCY } from '../api/api-client-options.js';
import type { PoolId } from '../api/endpoints.js';
import { LIMIT_POOLS } from '../api/endpoints.js';
import type { PoolOverrides } from '../api/limiter.js';
import { effectivePool } from '../api/limiter.js';
import { ConfigError } from '../errors.js';

/** Round trip of one request to the real service when nothing else is said, in milliseconds. */
export const DEFAULT_ESTIMATE_LATENCY_MS = 200;

export interface EstimateOptions {
  /** Round trip of one request, in milliseconds. @default 200 */
  latencyMs?: number;
  /** Requests in flight at once, across all pools. @default DEFAULT_CONCURRENCY (8), the client's own */
  concurrency?: number;
  /** Pool limits replacing those of spec section 8 (scaled-down tests and benchmarks). @default {} */
  pools?: PoolOverrides;
}

export interface PoolEstimate {
  pool: PoolId;
  /** What the spec calls the pool, e.g. `purchases + events list, 1,000/hour`. */
  label: string;
  requests: number;
  limit: number;
  windowMs: number;
  /** Budget windows the pool's requests need: ceil(requests / limit). More than one means the run waits for budget. */
  waves: number;
  /** This pool's requests alone, within its budget and the concurrency, in milliseconds. */
  ms: number;
}

export interface PlanEstimate {
  latencyMs: number;
  concurrency: number;
  /** Every request one after another in `concurrency` lanes: ceil(requests / concurrency) × latency. */
  latencyBoundMs: number;
  pools: PoolEstimate[];
  /** The longer of the latency bound and the slowest pool. */
  ms: number;
  /** What sets the duration: 'latency' or the pool whose budget windows take longest. */
  boundBy: 'latency' | PoolId;
}

function options(opts: EstimateOptions): { latencyMs: number; concurrency: number } {
  const latencyMs = opts.latencyMs ?? DEFAULT_ESTIMATE_LATENCY_MS;
  const concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isFinite(latencyMs) || latencyMs < 0) {
    throw new ConfigError('--latency-ms', `must be a number of milliseconds ≥ 0, got ${String(latencyMs)}; e.g. --latency-ms 200`);
  }
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new ConfigError('concurrency', `must be a whole number of requests ≥ 1, got ${String(concurrency)}`);
  }
  return { latencyMs, concurrency };
}


/**
 * Estimated duration of sending `byPool` requests. A pool spends its whole budget at once, then waits until its oldest
 * requests leave the window (the client counts a request until `windowMs` after its response, so each wave starts one
 * window plus one round trip after the previous one); pools run side by side, sharing the concurrency.
 */
export function estimateDuration(byPool: Partial<Record<PoolId, number>>, opts: EstimateOptions = {}): PlanEstimate {
  const { latencyMs, concurrency } = options(opts);
  const overrides = opts.pools ?? {};
  const total = Object.values(byPool).reduce<number>((n, r) => n + (r ?? 0), 0);
  const latencyBoundMs = Math.ceil(total / concurrency) * latencyMs;
  const pools: PoolEstimate[] = [];
  for (const [id, requests] of Object.entries(byPool) as [PoolId, number | undefined][]) {
    if (!requests) continue;
    const { limit, windowMs } = effectivePool(id, overrides);
    const waves = Math.ceil(requests / limit);
    const lastWave = requests - (waves - 1) * limit;
    const ms = (waves - 1) * (windowMs + latencyMs) + Math.ceil(lastWave / concurrency) * latencyMs;
    pools.push({ pool: id, label: LIMIT_POOLS[id].label, requests, limit, windowMs, waves, ms });
  }
  pools.sort((a, b) => b.ms - a.ms);
  const slowest = pools[0];
  const poolBound = slowest && slowest.ms > latencyBoundMs ? slowest : undefined;
  return { latencyMs, concurrency, latencyBoundMs, pools, ms: poolBound ? poolBound.ms : latencyBoundMs, boundBy: poolBound ? poolBound.pool : 'latency' };
}

/**
 * The benchmark's yardstick: max(requests × latency / concurrency, requests / pool rate), the rate of a pool being
 * limit / window. A run cannot beat it by much (only the first wave of a pool escapes its rate), so wall / this is
 * the share of time lost to waiting that the limits did not impose.
 */
export function theoreticalWallMs(byPool: Partial<Record<PoolId, number>>, opts: EstimateOptions = {}): number {
  const { latencyMs, concurrency } = options(opts);
  const overrides = opts.pools ?? {};
  let total = 0;
  let poolBound = 0;
  for (const [id, requests] of Object.entries(byPool) as [PoolId, number | undefined][]) {
    if (!requests) continue;
    total += requests;
    const { limit, windowMs } = effectivePool(id, overrides);
    poolBound = Math.max(poolBound, (requests * windowMs) / limit);
  }
  return Math.max((total * latencyMs) / concurrency, poolBound);
}

/** `1 h 02 min`, `3 min 05 s`, `4.2 s`, `120 ms`: a duration as a person reads it. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const totalSeconds = Math.round(s);
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const sec = totalSeconds % 60;
  if (h > 0) return `${h} h ${String(m).padStart(2, '0')} min`;
  return `${m} min ${String(sec).padStart(2, '0')} s`;
}
