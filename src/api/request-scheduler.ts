// Which request may go now: its limit pool's permit (budget, the server's view, pace) and then its place among the
// requests in flight. Whoever runs the requests makes one scheduler and hands it to the ApiClient, which asks it before
// each attempt and tells it what each answer said; the client keeps no limits of its own.
import { ConcurrencyGate } from './concurrency-gate.js';
import type { PoolId } from './endpoints.js';
import type { LimiterClock, PoolPermit, PoolSnapshot, PoolWait } from './limit-pool.js';
import { Limiter, type PoolOverrides } from './limiter.js';
import type { RateLimitAdvice } from './rate-limit-headers.js';
import { sleep as defaultSleep } from './sleep.js';
import { FatalError } from '../errors.js';

export interface RequestSchedulerOptions {
  /**
   * Replacement limits per pool (the benchmark and tests scale them down).
   * @default {} (the limits of spec section 8, LIMIT_POOLS)
   */
  pools?: PoolOverrides;
  /**
   * Longest wait for a pool's budget (its window, the server's X-RateLimit-Reset, a 429's Retry-After). A longer wait
   * fails at once with the server's advice quoted, instead of hanging; at most 24 h.
   * @default the pool's own window + 5 minutes (65 min for hourly pools, 6 min for per-minute ones)
   */
  maxWaitMs?: number;
  /**
   * `--max-in-flight`: the most requests on the wire at once, across all pools, for a user who must cap them. Without it
   * each pool keeps what its rate and the observed round trip call for (src/api/in-flight-window.ts).
   * @default undefined (no cap beyond each pool's own, at most MAX_IN_FLIGHT = 256)
   */
  maxInFlight?: number;
  /**
   * Told of every wait for a pool's budget of ANNOUNCE_WAIT_MS or more (a progress line, a JSON event).
   * @default undefined (waits are not announced)
   */
  onWait?: (wait: PoolWait) => void;
  /**
   * How the pools wait for their windows; tests inject a fake to keep long waits instant.
   * @default a cancellable timer (node:timers/promises)
   */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * The clock in epoch milliseconds of the pools' windows and of X-RateLimit-Reset; inject with a fake `sleep`.
   * @default Date.now
   */
  now?: () => number;
}

/** The pools of spec section 8 and the cap on requests in flight, shared by every request of its clients. */
export class RequestScheduler {
  /** `maxInFlight` if given: the most requests in flight at once, across all pools. */
  readonly maxInFlight: number | undefined;
  /** The pool limits it was given in place of the spec's (the duration estimate reads them). */
  readonly pools: PoolOverrides;
  readonly #limiter: Limiter;
  readonly #gate: ConcurrencyGate | undefined;
  readonly #closing = new AbortController();

  protected constructor(opts: RequestSchedulerOptions) {
    const clock: LimiterClock = { now: opts.now ?? Date.now, sleep: opts.sleep ?? defaultSleep };
    this.pools = opts.pools ?? {};
    const onWait = opts.onWait;
    this.#limiter = new Limiter(clock, this.pools, this.#closing.signal, {
      ...(opts.maxWaitMs !== undefined ? { maxWaitMs: opts.maxWaitMs } : {}),
      ...(opts.maxInFlight !== undefined ? { maxInFlight: opts.maxInFlight } : {}),
      ...(onWait ? { onWait: (wait: PoolWait) => announce(onWait, wait) } : {}),
    });
    this.maxInFlight = opts.maxInFlight;
    this.#gate = opts.maxInFlight === undefined ? undefined : new ConcurrencyGate(opts.maxInFlight);
  }

  /** Validates the options (ConfigError naming the option) and builds a scheduler; `create()` has the spec's limits. */
  static create(opts: RequestSchedulerOptions = {}): RequestScheduler {
    return new RequestScheduler(opts);
  }

  /**
   * Waits for a permit of `pool`, then for a place in flight (`maxInFlight`): a pool waiting for its window holds no
   * place another pool could use. Releasing the permit gives both back. `withdraw` takes a request still waiting for its
   * permit back out (its client closed), rejected with nothing sent.
   */
  async admit(pool: PoolId, withdraw?: AbortSignal): Promise<PoolPermit> {
    const permit = await this.#limiter.acquire(pool, withdraw);
    if (!this.#gate) return permit;
    const leave = await this.#gate.enter();
    return {
      pool: permit.pool,
      seq: permit.seq,
      release: (outcome) => {
        leave();
        permit.release(outcome);
      },
    };
  }

  /** Feeds a response's X-RateLimit-* advice into the pool the request drew from. */
  observe(permit: PoolPermit, advice: RateLimitAdvice): void {
    this.#limiter.observe(permit, advice);
  }

  /** Holds every request of a pool until an epoch ms (after a 429 that said how long). */
  blockUntil(pool: PoolId, until: number, because?: string): void {
    this.#limiter.blockUntil(pool, until, because);
  }

  /** The longest wait a pool accepts (`--max-wait`, or its window + 5 minutes). */
  maxWaitMs(pool: PoolId): number {
    return this.#limiter.maxWaitMs(pool);
  }

  /**
   * The requests the caller will still send per pool (its plan), replacing what was said before: a pool whose demand
   * exceeds its remaining budget spreads its requests at its sustained rate, the others send as fast as they may.
   */
  expect(byPool: Partial<Record<PoolId, number>>): void {
    this.#limiter.expect(byPool);
  }

  /** Used, remaining and reset time of every pool. */
  snapshot(): Record<PoolId, PoolSnapshot> {
    return this.#limiter.snapshot();
  }

  /** Rejects every request waiting for its pool with `error` (a deadline passed): none of them is sent. */
  rejectWaiting(error: unknown): void {
    this.#limiter.rejectWaiting(error);
  }

  /** Rejects what still waits and stops the pools' timers; idempotent. */
  close(): void {
    if (this.#closing.signal.aborted) return;
    this.#closing.abort(new FatalError('the request scheduler was closed'));
    this.#limiter.rejectWaiting(
      new FatalError(
        'the API client was closed while the request waited for its rate-limit window; no request was sent',
      ),
    );
  }
}

function announce(onWait: (wait: PoolWait) => void, wait: PoolWait): void {
  try {
    onWait(wait);
  } catch {
    // A broken progress reporter must not fail a request; announcements are advisory.
  }
}
