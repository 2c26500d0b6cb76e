// How long a plan takes under the limit pools of spec section 8 and a given latency, by the rule the client follows
// (src/api/in-flight-window.ts, limit-pool.ts): the figure `engage-etl plan` prints before a backfill, and the bound the
// benchmark compares wall time with.
import type { PoolId } from '../api/endpoints.js';
import { LIMIT_POOLS } from '../api/endpoints.js';
import { IN_FLIGHT_HEADROOM, MAX_IN_FLIGHT, MIN_IN_FLIGHT } from '../api/in-flight-window.js';
import type { PoolOverrides } from '../api/limiter.js';
import { effectivePool } from '../api/limiter.js';
import { ConfigError } from '../errors.js';

/** Round trip of one request to the real service when nothing else is said, in milliseconds. */
export const DEFAULT_ESTIMATE_LATENCY_MS = 200;

export interface EstimateOptions {
  /** Round trip of one request, in milliseconds. @default 200 */
  latencyMs?: number;
  /** `--max-in-flight`: requests in flight at once across all pools. @default undefined (each pool's own rule) */
  maxInFlight?: number;
  /** Pool limits replacing those of spec section 8 (scaled-down tests and benchmarks). @default {} */
  pools?: PoolOverrides;
}

/**
 * What sets a duration: `rate` — a pool's sustained rate (it spreads its requests, or keeps rate × latency in flight);
 * `latency` — round trips at the least a pool keeps in flight (MIN_IN_FLIGHT); `cap` — `--max-in-flight`.
 */
export type EstimateBound = 'rate' | 'latency' | 'cap';

export interface PoolEstimate {
  pool: PoolId;
  /** What the spec calls the pool, e.g. `purchases + events list, 1,000/hour`. */
  label: string;
  requests: number;
  limit: number;
  windowMs: number;
  /** Budget windows the pool's requests need: ceil(requests / limit). More than one means the pool spreads them. */
  waves: number;
  /** Requests this pool keeps in flight: max(MIN_IN_FLIGHT, ceil(rate × latency × headroom)), within the cap. */
  inFlight: number;
  /** This pool's requests alone, in milliseconds. */
  ms: number;
  boundBy: EstimateBound;
}

export interface PlanEstimate {
  latencyMs: number;
  maxInFlight: number | undefined;
  /** Every request one after another in `maxInFlight` lanes; 0 without a cap. */
  latencyBoundMs: number;
  pools: PoolEstimate[];
  /** The longer of the cap's bound and the slowest pool. */
  ms: number;
  boundBy: EstimateBound;
  /** The slowest pool, when a pool sets the duration. */
  pool: PoolId | undefined;
}

function options(opts: EstimateOptions): { latencyMs: number; maxInFlight: number | undefined } {
  const latencyMs = opts.latencyMs ?? DEFAULT_ESTIMATE_LATENCY_MS;
  if (!Number.isFinite(latencyMs) || latencyMs < 0) {
    throw new ConfigError(
      '--latency-ms',
      `must be a number of milliseconds ≥ 0, got ${String(latencyMs)}; e.g. --latency-ms 200`,
    );
  }
  const max = opts.maxInFlight;
  if (max !== undefined && (!Number.isInteger(max) || max < 1)) {
    throw new ConfigError(
      '--max-in-flight',
      `must be a whole number of requests ≥ 1, got ${String(max)}; e.g. --max-in-flight 16`,
    );
  }
  return { latencyMs, maxInFlight: max };
}

/**
 * Estimated duration of sending `byPool` requests, pools side by side. A pool whose requests fit its budget keeps
 * max(MIN_IN_FLIGHT, ceil(rate × latency × headroom)) in flight (within the cap): ceil(requests / that) round trips. A
 * pool that needs more than its budget spreads its requests at its sustained rate: requests × window / limit.
 */
export function estimateDuration(byPool: Partial<Record<PoolId, number>>, opts: EstimateOptions = {}): PlanEstimate {
  const { latencyMs, maxInFlight } = options(opts);
  const overrides = opts.pools ?? {};
  const total = Object.values(byPool).reduce<number>((n, r) => n + (r ?? 0), 0);
  const latencyBoundMs = maxInFlight === undefined ? 0 : Math.ceil(total / maxInFlight) * latencyMs;
  const cap = maxInFlight ?? MAX_IN_FLIGHT;
  const pools: PoolEstimate[] = [];
  for (const [id, requests] of Object.entries(byPool) as [PoolId, number | undefined][]) {
    if (!requests) continue;
    const { limit, windowMs } = effectivePool(id, overrides);
    const waves = Math.ceil(requests / limit);
    const byRate = Math.ceil((limit / windowMs) * latencyMs * IN_FLIGHT_HEADROOM);
    const inFlight = Math.min(cap, Math.max(MIN_IN_FLIGHT, byRate));
    const lanes = Math.ceil(requests / inFlight) * latencyMs;
    const spread = requests > limit ? Math.round(((requests - 1) * windowMs) / limit) + latencyMs : 0;
    const ms = Math.max(lanes, spread);
    const boundBy: EstimateBound =
      spread >= lanes
        ? 'rate'
        : inFlight === cap && cap < Math.max(MIN_IN_FLIGHT, byRate)
          ? 'cap'
          : byRate > MIN_IN_FLIGHT
            ? 'rate'
            : 'latency';
    pools.push({ pool: id, label: LIMIT_POOLS[id].label, requests, limit, windowMs, waves, inFlight, ms, boundBy });
  }
  pools.sort((a, b) => b.ms - a.ms);
  const slowest = pools[0];
  if (slowest && slowest.ms >= latencyBoundMs)
    return {
      latencyMs,
      maxInFlight,
      latencyBoundMs,
      pools,
      ms: slowest.ms,
      boundBy: slowest.boundBy,
      pool: slowest.pool,
    };
  return { latencyMs, maxInFlight, latencyBoundMs, pools, ms: latencyBoundMs, boundBy: 'cap', pool: undefined };
}

/**
 * The benchmark's yardstick, the time the pools' sustained rates impose: max over pools of requests × window / limit.
 * A run that keeps rate × latency in flight with headroom meets it at any latency; wall / this is the share of time
 * lost to waiting the limits did not impose (below 1 when a pool's budget lets its requests go faster than its rate).
 */
export function poolRateBoundMs(byPool: Partial<Record<PoolId, number>>, pools: PoolOverrides = {}): number {
  let bound = 0;
  for (const [id, requests] of Object.entries(byPool) as [PoolId, number | undefined][]) {
    if (!requests) continue;
    const { limit, windowMs } = effectivePool(id, pools);
    bound = Math.max(bound, (requests * windowMs) / limit);
  }
  return bound;
}

/** One pool's share of a backfill spread over nights. */
export interface PoolNights {
  pool: PoolId;
  requests: number;
  limit: number;
  windowMs: number;
  /** Requests the pool's rate allows in one night's budget: limit × budget / window, at least one window's limit. */
  perNight: number;
  nights: number;
}

/**
 * Nights a backfill of `byPool` requests takes when each night may spend `budgetMs` (`--time-budget`) at the pools'
 * sustained rates: per pool ceil(requests / perNight), the run as many nights as its slowest pool. What `init` prints
 * and writes into the file, and the figure the benchmark reports for a first night.
 */
export function nightsUnderBudget(
  byPool: Partial<Record<PoolId, number>>,
  budgetMs: number,
  pools: PoolOverrides = {},
): { nights: number; pools: PoolNights[] } {
  const out: PoolNights[] = [];
  for (const [id, requests] of Object.entries(byPool) as [PoolId, number | undefined][]) {
    if (!requests) continue;
    const { limit, windowMs } = effectivePool(id, pools);
    // A night shorter than the pool's window still has the window's whole budget (the pool starts each night full).
    const perNight = Math.max(limit, Math.floor((limit * budgetMs) / windowMs));
    out.push({ pool: id, requests, limit, windowMs, perNight, nights: Math.ceil(requests / perNight) });
  }
  out.sort((a, b) => b.nights - a.nights || b.requests / b.perNight - a.requests / a.perNight);
  return { nights: Math.max(1, ...out.map((p) => p.nights)), pools: out };
}

/**
 * Nights a plan takes when each may spend `budgetMs` (`time_budget:`): the more of what the pools' sustained rates allow
 * (nightsUnderBudget) and of the estimated duration (`estimateMs`, round trips included) cut into budgets. A lower bound:
 * every later night also re-reads the look-back of the series loaded by the nights before.
 */
export function nightsAtBudget(
  byPool: Partial<Record<PoolId, number>>,
  estimateMs: number,
  budgetMs: number,
  pools: PoolOverrides = {},
): number {
  if (Object.values(byPool).every((r) => !r)) return 0;
  return Math.max(nightsUnderBudget(byPool, budgetMs, pools).nights, Math.ceil(estimateMs / budgetMs));
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
