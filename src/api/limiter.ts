// The client-side limiter: one independent queue per limit pool of spec section 8, so endpoints that share a limit share
// a budget and a pool waiting for its window never holds up another pool.
import { LIMIT_POOLS, type PoolId } from './endpoints.js';
import {
  LimitPoolQueue,
  type LimiterClock,
  type PoolPermit,
  type PoolSnapshot,
  type PoolWaitPolicy,
} from './limit-pool.js';
import type { RateLimitAdvice } from './rate-limit-headers.js';
import { ConfigError } from '../errors.js';

/** A replacement limit for one pool (tests and the benchmark scale limits down). */
export interface PoolOverride {
  /** Requests allowed per window. */
  limit: number;
  /** Window length in milliseconds. */
  windowMs: number;
}

export type PoolOverrides = Partial<Record<PoolId, PoolOverride>>;

/** The longest --max-wait accepted: a day covers every pool's window (SCIM counts per day). */
export const MAX_WAIT_LIMIT_MS = 24 * 3_600_000;

/** A pool's limit and window with the overrides applied: one rule for the limiter and the duration estimate. */
export function effectivePool(pool: PoolId, overrides: PoolOverrides): { limit: number; windowMs: number } {
  const o = overrides[pool];
  return { limit: o?.limit ?? LIMIT_POOLS[pool].limit, windowMs: o?.windowMs ?? LIMIT_POOLS[pool].windowMs };
}

/** Per-pool budgets shared by every request of one client. */
export class Limiter {
  readonly #pools: Map<PoolId, LimitPoolQueue>;

  constructor(clock: LimiterClock, overrides: PoolOverrides = {}, signal?: AbortSignal, policy: PoolWaitPolicy = {}) {
    if (
      policy.maxWaitMs !== undefined &&
      (!Number.isFinite(policy.maxWaitMs) || policy.maxWaitMs < 0 || policy.maxWaitMs > MAX_WAIT_LIMIT_MS)
    ) {
      throw new ConfigError(
        'maxWaitMs',
        `must be a number of milliseconds from 0 to ${MAX_WAIT_LIMIT_MS} (24 h), got ${String(policy.maxWaitMs)}`,
      );
    }
    if (policy.maxInFlight !== undefined && (!Number.isInteger(policy.maxInFlight) || policy.maxInFlight < 1)) {
      throw new ConfigError('maxInFlight', `must be a whole number of requests ≥ 1, got ${String(policy.maxInFlight)}`);
    }
    for (const [id, override] of Object.entries(overrides)) {
      if (!(id in LIMIT_POOLS)) {
        throw new ConfigError(
          `pools.${id}`,
          `unknown limit pool "${id}"; use one of ${Object.keys(LIMIT_POOLS).join(', ')}`,
        );
      }
      if (!override) continue;
      if (!Number.isInteger(override.limit) || override.limit < 1) {
        throw new ConfigError(
          `pools.${id}.limit`,
          `must be a whole number of requests ≥ 1, got ${String(override.limit)}`,
        );
      }
      if (!Number.isFinite(override.windowMs) || override.windowMs <= 0) {
        throw new ConfigError(
          `pools.${id}.windowMs`,
          `must be a window length in milliseconds > 0, got ${String(override.windowMs)}`,
        );
      }
    }
    this.#pools = new Map(
      Object.values(LIMIT_POOLS).map((pool) => {
        return [
          pool.id,
          new LimitPoolQueue(
            { id: pool.id, ...effectivePool(pool.id, overrides), documented: overrides[pool.id] === undefined },
            clock,
            signal,
            policy,
          ),
        ] as const;
      }),
    );
  }

  /** Waits in the pool's queue until it can afford one more request; `withdraw` takes a waiting request back out. */
  acquire(pool: PoolId, withdraw?: AbortSignal): Promise<PoolPermit> {
    return this.#pool(pool).acquire(withdraw);
  }

  /**
   * The requests the run will still send per pool (its plan), replacing what was said before: a pool whose demand
   * exceeds its remaining budget spreads its requests at its sustained rate, the others send as fast as they may.
   */
  expect(byPool: Partial<Record<PoolId, number>>): void {
    for (const [id, pool] of this.#pools) pool.expect(byPool[id] ?? 0);
  }

  /** Feeds a response's X-RateLimit-* advice into the pool the request drew from. */
  observe(permit: PoolPermit, advice: RateLimitAdvice): void {
    this.#pool(permit.pool).observe(permit, advice);
  }

  /** Holds every request of a pool until an epoch ms (after a 429 that said how long). */
  blockUntil(pool: PoolId, until: number, because?: string): void {
    this.#pool(pool).blockUntil(until, because);
  }

  /** The longest wait a pool accepts (`--max-wait`, or its window + 5 minutes). */
  maxWaitMs(pool: PoolId): number {
    return this.#pool(pool).maxWaitMs;
  }

  /** Used, remaining and reset time of every pool. */
  snapshot(): Record<PoolId, PoolSnapshot> {
    const out = {} as Record<PoolId, PoolSnapshot>;
    for (const [id, pool] of this.#pools) out[id] = pool.snapshot();
    return out;
  }

  /** Rejects every queued request (client closing). */
  rejectWaiting(error: unknown): void {
    for (const pool of this.#pools.values()) pool.rejectWaiting(error);
  }

  #pool(id: PoolId): LimitPoolQueue {
    const pool = this.#pools.get(id);
    if (!pool)
      throw new ConfigError(
        'endpoint.pool',
        `unknown limit pool "${id}"; use one of ${[...this.#pools.keys()].join(', ')}`,
      );
    return pool;
  }
}
