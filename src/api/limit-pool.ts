// One rate-limit pool as the client sees it: a sliding window of the requests it sent, the server's own view when the
// server shares it (X-RateLimit-*), and a FIFO queue of requests waiting for budget. Requests wait here, never on the wire.
import type { PoolId } from './endpoints.js';
import type { RateLimitAdvice } from './rate-limit-headers.js';
import { FatalError } from '../errors.js';

/** Time source and waiting, injectable so tests control both. */
export interface LimiterClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** A granted slot of a pool. Hand it back with `release()` once the response (or failure) is in. */
export interface PoolPermit {
  readonly pool: PoolId;
  /** Order of sending within the pool; tells which in-flight requests a server's count may not include yet. */
  readonly seq: number;
  release(): void;
}

/** The state of one pool, for the planner, the benchmark and `engage-etl status`. */
export interface PoolSnapshot {
  pool: PoolId;
  /** Requests allowed per window: the configured limit, or the server's `X-RateLimit-Limit` when lower. */
  limit: number;
  windowMs: number;
  /** Requests counted in the current window: in flight plus completed within the last `windowMs`. */
  used: number;
  inFlight: number;
  /** Requests that may still be sent now: the lower of the local and the server's view. */
  remaining: number;
  /** Epoch ms when budget is next replenished (oldest counted request leaves the window, or the server's reset); undefined when nothing is counted. */
  resetAt: number | undefined;
  /** Requests queued for this pool. */
  waiting: number;
}

interface ServerView {
  remaining: number;
  expiresAt: number;
}

interface Waiter {
  resolve(permit: PoolPermit): void;
  reject(error: unknown): void;
}

// Two server observations whose reset times differ by less than this describe the same window.
const SAME_WINDOW_TOLERANCE_MS = 1000;

/** The budget and queue of one pool. */
export class LimitPoolQueue {
  readonly id: PoolId;
  readonly windowMs: number;
  readonly #configuredLimit: number;
  readonly #clock: LimiterClock;
  readonly #signal: AbortSignal | undefined;
  // Completion times of requests still inside the window, oldest first; a request counts from its send until
  // `windowMs` after its response, which is after the server saw it, whatever the server's window alignment.
  #finished: number[] = [];
  #head = 0;
  readonly #inFlight = new Set<number>();
  #nextSeq = 0;
  readonly #waiters: Waiter[] = [];
  #pumping = false;
  #wakeOnRelease: (() => void) | undefined;
  #server: ServerView | undefined;
  #serverLimit: number | undefined;
  #blockedUntil = 0;

  constructor(pool: { id: PoolId; limit: number; windowMs: number }, clock: LimiterClock, signal?: AbortSignal) {
    this.id = pool.id;
    this.#configuredLimit = pool.limit;
    this.windowMs = pool.windowMs;
    this.#clock = clock;
    this.#signal = signal;
  }

  /** Waits (in this pool's own queue) until the pool can afford one more request, then counts it as in flight. */
  acquire(): Promise<PoolPermit> {
    if (this.#signal?.aborted) return Promise.reject(closedError(this.id));
    return new Promise<PoolPermit>((resolve, reject) => {
      this.#waiters.push({ resolve, reject });
      void this.#pump();
    });
  }

  /** Takes the server's view of this pool into account; called with the permit of the request whose response said it. */
  observe(permit: PoolPermit, advice: RateLimitAdvice): void {
    const now = this.#clock.now();
    if (advice.limit !== undefined && advice.limit > 0) this.#serverLimit = advice.limit;
    if (advice.remaining === undefined) return;
    // Requests sent after this one may have reached the server before it counted; assume they were not counted.
    let sentLater = 0;
    for (const seq of this.#inFlight) if (seq > permit.seq) sentLater++;
    const remaining = advice.remaining - sentLater;
    const expiresAt = advice.resetAt ?? now + this.windowMs;
    const current = this.#currentServerView(now);
    if (current === undefined || expiresAt > current.expiresAt + SAME_WINDOW_TOLERANCE_MS) {
      this.#server = { remaining, expiresAt };
    } else if (expiresAt >= current.expiresAt - SAME_WINDOW_TOLERANCE_MS) {
      current.remaining = Math.min(current.remaining, remaining);
    }
  }

  /** Holds every request of this pool until the given epoch ms (a 429 told us the server's budget is spent). */
  blockUntil(until: number): void {
    this.#blockedUntil = Math.max(this.#blockedUntil, until);
  }

  snapshot(): PoolSnapshot {
    const now = this.#clock.now();
    this.#prune(now);
    const limit = this.#limit();
    const counted = this.#finished.length - this.#head;
    const used = this.#inFlight.size + counted;
    const server = this.#currentServerView(now);
    let remaining = Math.max(0, limit - used);
    if (server) remaining = Math.min(remaining, Math.max(0, server.remaining));
    if (this.#blockedUntil > now) remaining = 0;
    let resetAt = counted > 0 ? (this.#finished[this.#head] as number) + this.windowMs : undefined;
    if (server && server.remaining <= 0) resetAt = Math.max(resetAt ?? 0, server.expiresAt);
    if (this.#blockedUntil > now) resetAt = Math.max(resetAt ?? 0, this.#blockedUntil);
    return { pool: this.id, limit, windowMs: this.windowMs, used, inFlight: this.#inFlight.size, remaining, resetAt, waiting: this.#waiters.length };
  }

  /** Rejects every queued request; used by `close()`. */
  rejectWaiting(error: unknown): void {
    for (const waiter of this.#waiters.splice(0)) waiter.reject(error);
    this.#wakeOnRelease?.();
  }

  #limit(): number {
    return Math.min(this.#configuredLimit, this.#serverLimit ?? Infinity);
  }

  #currentServerView(now: number): ServerView | undefined {
    if (this.#server && this.#server.expiresAt <= now) this.#server = undefined;
    return this.#server;
  }

  #prune(now: number): void {
    while (this.#head < this.#finished.length && (this.#finished[this.#head] as number) + this.windowMs <= now) this.#head++;
    // Compact now and then so a long run does not keep every timestamp of the day.
    if (this.#head > 1024 && this.#head * 2 > this.#finished.length) {
      this.#finished = this.#finished.slice(this.#head);
      this.#head = 0;
    }
  }

  /** Milliseconds until the next request may go, 0 when it may go now, or 'release' when only a completion can help. */
  #waitNeeded(now: number): number | 'release' {
    this.#prune(now);
    if (this.#blockedUntil > now) return this.#blockedUntil - now;
    const server = this.#currentServerView(now);
    if (server && server.remaining <= 0) return Math.max(1, server.expiresAt - now);
    const counted = this.#finished.length - this.#head;
    if (this.#inFlight.size + counted < this.#limit()) return 0;
    if (counted === 0) return 'release';
    return Math.max(1, (this.#finished[this.#head] as number) + this.windowMs - now);
  }

  #grant(): PoolPermit {
    const seq = this.#nextSeq++;
    this.#inFlight.add(seq);
    if (this.#server) this.#server.remaining--;
    let released = false;
    return {
      pool: this.id,
      seq,
      release: () => {
        if (released) return;
        released = true;
        this.#inFlight.delete(seq);
        this.#finished.push(this.#clock.now());
        const wake = this.#wakeOnRelease;
        this.#wakeOnRelease = undefined;
        wake?.();
      },
    };
  }

  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (this.#waiters.length > 0) {
        if (this.#signal?.aborted) throw closedError(this.id);
        const wait = this.#waitNeeded(this.#clock.now());
        if (wait === 0) {
          (this.#waiters.shift() as Waiter).resolve(this.#grant());
        } else if (wait === 'release') {
          await new Promise<void>((resolve) => {
            this.#wakeOnRelease = resolve;
          });
        } else {
          await this.#clock.sleep(wait, this.#signal);
        }
      }
    } catch (error) {
      this.rejectWaiting(this.#signal?.aborted ? closedError(this.id) : error);
    } finally {
      this.#pumping = false;
    }
  }
}

function closedError(pool: PoolId): FatalError {
  return new FatalError(`the API client was closed while the request waited for its rate-limit window (pool "${pool}"); no request was sent`);
}
