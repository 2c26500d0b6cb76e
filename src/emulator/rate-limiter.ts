// Fixed-window rate limits per pool of spec section 8. Windows are aligned to their length on real time (not the
// emulator clock, which may be frozen), so a client's limiter can trust `X-RateLimit-Reset`.
import type { PoolId } from '../api/endpoints.js';
import { scaledPool } from '../api/endpoints.js';

export interface PoolState {
  limit: number;
  remaining: number;
  /** End of the current window, epoch seconds. */
  resetEpochSeconds: number;
}

export interface RateLimiterOptions {
  /** Multiplies every pool's limit (rounded, at least 1). @default 1 */
  limitScale?: number;
  /** Multiplies every pool's window length (at least 1 s). @default 1 */
  windowScale?: number;
  /**
   * When false nothing is refused, and headers declare a full budget of UNENFORCED_LIMIT_FACTOR times the pool's limit:
   * what a workspace whose limits were raised far past the documented ones answers. @default true
   */
  enabled?: boolean;
  /** Real time source, replaceable for tests. @default Date.now */
  now?: () => number;
}

/** How far past a pool's limit the budget goes that an emulator enforcing no limits declares. */
export const UNENFORCED_LIMIT_FACTOR = 100;

export class RateLimiter {
  readonly #limitScale: number;
  readonly #windowScale: number;
  readonly #enabled: boolean;
  readonly #now: () => number;
  readonly #windows = new Map<PoolId, { start: number; used: number }>();

  constructor(opts: RateLimiterOptions = {}) {
    this.#limitScale = opts.limitScale ?? 1;
    this.#windowScale = opts.windowScale ?? 1;
    this.#enabled = opts.enabled ?? true;
    this.#now = opts.now ?? Date.now;
  }

  limitOf(pool: PoolId): number {
    return scaledPool(pool, this.#limitScale, this.#windowScale).limit;
  }

  windowMsOf(pool: PoolId): number {
    return scaledPool(pool, this.#limitScale, this.#windowScale).windowMs;
  }

  #window(pool: PoolId): { start: number; used: number } {
    const size = this.windowMsOf(pool);
    const start = Math.floor(this.#now() / size) * size;
    let w = this.#windows.get(pool);
    if (!w || w.start !== start) {
      w = { start, used: 0 };
      this.#windows.set(pool, w);
    }
    return w;
  }

  #state(pool: PoolId, w: { start: number; used: number }): PoolState {
    const limit = this.#enabled ? this.limitOf(pool) : this.limitOf(pool) * UNENFORCED_LIMIT_FACTOR;
    return {
      limit,
      remaining: this.#enabled ? Math.max(0, limit - w.used) : limit,
      resetEpochSeconds: Math.ceil((w.start + this.windowMsOf(pool)) / 1000),
    };
  }

  /** The pool's state without spending anything (for answers that do not count: 401, 403, 404). */
  peek(pool: PoolId): PoolState {
    return this.#state(pool, this.#window(pool));
  }

  /** Spend one request of the pool; `allowed` is false when the window's budget is exhausted. */
  take(pool: PoolId): { allowed: boolean; state: PoolState } {
    const w = this.#window(pool);
    if (!this.#enabled) return { allowed: true, state: this.#state(pool, w) };
    if (w.used >= this.limitOf(pool)) return { allowed: false, state: this.#state(pool, w) };
    w.used += 1;
    return { allowed: true, state: this.#state(pool, w) };
  }
}
