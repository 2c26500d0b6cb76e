// One rate-limit pool as the client sees it: a sliding window of the requests it sent, the server's own view when the
// server shares it (X-RateLimit-*), and a FIFO queue of requests waiting for budget. Requests wait here, never on the wire.
import type { PoolId } from './endpoints.js';
import { InFlightWindow, MAX_IN_FLIGHT, type InFlightOutcome } from './in-flight-window.js';
import type { RateLimitAdvice } from './rate-limit-headers.js';
import { FatalError } from '../errors.js';

/** Time source and waiting, injectable so tests control both. */
export interface LimiterClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** A wait for budget long enough to tell the user about. */
export interface PoolWait {
  pool: PoolId;
  /** Requests the pool may still send now (0 while it waits for its window). */
  remaining: number;
  /** Epoch ms when requests resume. */
  resumesAt: number;
  waitMs: number;
  /** Why, with the server's words when they are the cause. */
  reason: string;
}

/** How long a pool may wait, who hears about long waits, and how many requests it may keep in flight. */
export interface PoolWaitPolicy {
  /** `--max-in-flight`: the most requests this pool keeps in flight, whatever its rate and latency call for. @default MAX_IN_FLIGHT (256) */
  maxInFlight?: number;
  /** Longest wait for budget; a longer one fails at once. @default the pool's window + DEFAULT_MAX_WAIT_SLACK_MS */
  maxWaitMs?: number;
  /** Told of every wait of ANNOUNCE_WAIT_MS or more. @default none */
  onWait?: (wait: PoolWait) => void;
}

/** A wait for budget this long or longer is announced (TTY line, JSON event). */
export const ANNOUNCE_WAIT_MS = 5_000;
/** The default cap on a wait for budget is the pool's own window plus this: the longest wait a well-behaved server asks. */
export const DEFAULT_MAX_WAIT_SLACK_MS = 5 * 60_000;

/** A granted slot of a pool. Hand it back with `release()` once the response (or failure) is in. */
export interface PoolPermit {
  readonly pool: PoolId;
  /** Order of sending within the pool; tells which in-flight requests a server's count may not include yet. */
  readonly seq: number;
  /**
   * `overloaded` for a 429, a 5xx or no answer: the pool then keeps fewer requests in flight for a while. `not-sent` for
   * an attempt that never reached the server (connection refused, no such host): overloaded, and not counted against
   * the pool's window, since the server counted nothing. @default 'ok'
   */
  release(outcome?: ReleaseOutcome): void;
}

/** How a permit's request ended, for the pool (see {@link PoolPermit.release}). */
export type ReleaseOutcome = InFlightOutcome | 'not-sent';

/** The state of one pool, for the planner, the benchmark and `engage-etl status`. */
export interface PoolSnapshot {
  pool: PoolId;
  /**
   * Requests allowed per window: the server's `X-RateLimit-Limit` when it declares one over the pool's window, else the
   * documented limit; a configured limit (`pools` override) is a cap the server's can only lower.
   */
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
  /** Requests the pool may keep in flight now (rate × round trip with headroom, after any backoff, within the cap). */
  inFlightLimit: number;
  /** The most requests the pool had in flight at once so far. */
  peakInFlight: number;
  /** Whether the pool spreads its requests at its sustained rate (its known demand exceeds its remaining budget). */
  pacing: boolean;
}

interface ServerView {
  remaining: number;
  expiresAt: number;
  /** The headers that set this view, quoted in messages. */
  said: string | undefined;
}

interface Waiter {
  resolve(permit: PoolPermit): void;
  reject(error: unknown): void;
  /** The caller's signal that takes this waiter out of the queue. */
  withdraw: AbortSignal | undefined;
}

// Two server observations whose reset times differ by less than this describe the same window.
const SAME_WINDOW_TOLERANCE_MS = 1000;

/**
 * How far behind its pace a pacing pool may catch up at once. Without it every late timer lowered the rate for good: a
 * 20k first backfill paced at 69.4 a second sent 57 (its event loop busy parsing answers and committing).
 */
export const PACE_CATCH_UP_MS = 1000;

/** The budget and queue of one pool. */
export class LimitPoolQueue {
  readonly id: PoolId;
  readonly windowMs: number;
  readonly #configuredLimit: number;
  // Whether #configuredLimit is the spec's documented limit, which is a default: the server's declared limit replaces it.
  readonly #documented: boolean;
  readonly #clock: LimiterClock;
  readonly #signal: AbortSignal | undefined;
  // Completion times of requests still inside the window, oldest first; a request counts from its send until
  // `windowMs` after its response, which is after the server saw it, whatever the server's window alignment.
  #finished: number[] = [];
  #head = 0;
  // The first of #finished inside the server's shorter window when it was last counted, at #serverCounted: it moves
  // forward with the clock, so that counting costs what left the window since, not every request inside it.
  #serverHead = 0;
  #serverCountedAt = 0;
  #serverCountedWindowMs = 0;
  readonly #inFlight = new Set<number>();
  #nextSeq = 0;
  readonly #waiters: Waiter[] = [];
  readonly #watched = new WeakSet<AbortSignal>();
  #pumping = false;
  #wakeOnRelease: (() => void) | undefined;
  #server: ServerView | undefined;
  #serverLimit: number | undefined;
  // The window the server's X-RateLimit-Limit counts over, as far as its reset times show (a gateway may count per
  // second where the spec says per hour); undefined until a response says limit and reset together.
  #serverWindowMs: number | undefined;
  // Whether a reset was further away than our window: the server counts over a longer one, and a limit it declares there
  // is no number per our window.
  #serverWindowLonger = false;
  #blockedUntil = 0;
  #blockedBecause: string | undefined;
  // Until a first answer tells the server's limit and window, one request goes alone: a gateway counting 10 per second
  // would otherwise meet a burst of the pool's whole hourly budget and answer most of it with 429.
  #heardFromServer = false;
  /** Longest wait for budget (`--max-wait`); a 429's Retry-After is honoured up to it too. */
  readonly maxWaitMs: number;
  readonly #onWait: ((wait: PoolWait) => void) | undefined;
  readonly #window: InFlightWindow;
  // Requests the run still means to send through this pool (its plan), beyond those already queued here.
  #demand = 0;
  // While pacing, the earliest instant the next request may go: one every window / limit.
  #nextPacedAt = 0;
  // The turn a pacing pool's next grant takes (#waitNeeded set it): its grant counts the next turn from it.
  #pacedTurn: number | undefined;
  // When the last request was granted: a declared limit larger than the one its pace was set by brings the next closer.
  #lastGrantAt = 0;

  constructor(
    pool: { id: PoolId; limit: number; windowMs: number; documented?: boolean },
    clock: LimiterClock,
    signal?: AbortSignal,
    policy: PoolWaitPolicy = {},
  ) {
    this.id = pool.id;
    this.#configuredLimit = pool.limit;
    this.#documented = pool.documented ?? false;
    this.windowMs = pool.windowMs;
    this.#clock = clock;
    this.#signal = signal;
    this.maxWaitMs = policy.maxWaitMs ?? pool.windowMs + DEFAULT_MAX_WAIT_SLACK_MS;
    this.#onWait = policy.onWait;
    this.#window = new InFlightWindow(() => this.#ratePerMs(), policy.maxInFlight ?? MAX_IN_FLIGHT);
  }

  /**
   * Tells the pool how many requests the run will still send through it (its plan), replacing what was said before. A
   * pool whose demand exceeds its remaining budget spreads its requests at its sustained rate (limit / window) instead
   * of spending the budget at once and then idling until the window frees; one whose demand fits sends as fast as its
   * in-flight limit allows.
   */
  expect(requests: number): void {
    this.#demand = Math.max(0, Math.floor(requests));
  }

  /**
   * Waits (in this pool's own queue) until the pool can afford one more request, then counts it as in flight.
   * `withdraw` takes a waiting request out of the queue (its client closed): it is rejected, and nothing was sent.
   */
  acquire(withdraw?: AbortSignal): Promise<PoolPermit> {
    if (this.#signal?.aborted || withdraw?.aborted) return Promise.reject(closedError(this.id));
    return new Promise<PoolPermit>((resolve, reject) => {
      this.#waiters.push({ resolve, reject, withdraw });
      // One listener per signal, not per waiter: an EventTarget checks each new listener against all it holds, so a
      // listener per waiter costs the square of the queue's length.
      if (withdraw && !this.#watched.has(withdraw)) {
        this.#watched.add(withdraw);
        withdraw.addEventListener('abort', () => this.#withdraw(withdraw), { once: true });
      }
      void this.#pump();
    });
  }

  /** Takes the waiters that came with `signal` out of the queue, rejected: nothing was sent for them. */
  #withdraw(signal: AbortSignal): void {
    const waiting = this.#waiters.splice(0);
    for (const waiter of waiting) {
      if (waiter.withdraw === signal) waiter.reject(closedError(this.id));
      else this.#waiters.push(waiter);
    }
  }

  /** Takes the server's view of this pool into account; called with the permit of the request whose response said it. */
  observe(permit: PoolPermit, advice: RateLimitAdvice): void {
    const now = this.#clock.now();
    this.#heardFromServer = true;
    if (advice.limit !== undefined && advice.limit > 0) {
      this.#serverLimit = advice.limit;
      if (advice.resetAt !== undefined && advice.resetAt - now > this.windowMs + SAME_WINDOW_TOLERANCE_MS)
        this.#serverWindowLonger = true;
      if (advice.resetAt !== undefined && advice.resetAt > now) {
        // The longest time to a reset seen so far is the best lower bound of the server's window (whole seconds, as
        // servers round); never longer than our own, so an absurd reset cannot stretch the local count.
        const span = Math.min(this.windowMs, Math.ceil((advice.resetAt - now) / 1000) * 1000);
        this.#serverWindowMs = Math.max(this.#serverWindowMs ?? 0, span);
      }
      this.#nextPacedAt = Math.min(this.#nextPacedAt, this.#lastGrantAt + 1 / this.#ratePerMs());
    }
    if (advice.remaining === undefined) return;
    // Requests sent after this one may have reached the server before it counted; assume they were not counted.
    let sentLater = 0;
    for (const seq of this.#inFlight) if (seq > permit.seq) sentLater++;
    const remaining = advice.remaining - sentLater;
    const expiresAt = advice.resetAt ?? now + this.windowMs;
    const current = this.#currentServerView(now);
    const tolerance = Math.min(SAME_WINDOW_TOLERANCE_MS, (this.#serverWindowMs ?? this.windowMs) / 2);
    if (current === undefined || expiresAt > current.expiresAt + tolerance) {
      this.#server = { remaining, expiresAt, said: advice.said };
    } else if (expiresAt >= current.expiresAt - tolerance) {
      current.remaining = Math.min(current.remaining, remaining);
      current.said = advice.said ?? current.said;
    }
  }

  /**
   * Holds every request of this pool until the given epoch ms (a 429 told us the server's budget is spent).
   * @param because the server's words (`Retry-After: 120`), quoted if the hold is announced or refused.
   */
  blockUntil(until: number, because?: string): void {
    if (until > this.#blockedUntil) {
      this.#blockedUntil = until;
      this.#blockedBecause = because;
    }
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
    return {
      pool: this.id,
      limit,
      windowMs: this.windowMs,
      used,
      inFlight: this.#inFlight.size,
      remaining,
      resetAt,
      waiting: this.#waiters.length,
      inFlightLimit: this.#window.limit(),
      peakInFlight: this.#window.peak,
      pacing: this.#pacing(Math.max(0, this.#remainingInWindow(counted, server))),
    };
  }

  /** Rejects every queued request; used by `close()`. */
  rejectWaiting(error: unknown): void {
    for (const waiter of this.#waiters.splice(0)) waiter.reject(error);
    this.#wakeOnRelease?.();
  }

  #limit(): number {
    // A limit the server counts over a shorter window than ours is checked over that window (#serverCountWait), not ours.
    const serverOverOurWindow =
      this.#serverLimit !== undefined && (this.#serverWindowMs ?? this.windowMs) >= this.windowMs;
    const server = this.#serverLimit;
    if (server === undefined) return this.#configuredLimit;
    // The spec documents a default ("default 250,000 requests per hour") and leaves other customers' limits unshown: a
    // workspace whose limit was raised says so in every answer, and the run uses it. A configured limit stays a cap.
    // A limit over a longer window than ours (250,000 an hour where the spec says 5,000 a minute) raises nothing.
    const raise = this.#documented && !this.#serverWindowLonger;
    if (serverOverOurWindow) return raise ? server : Math.min(this.#configuredLimit, server);
    // Over a window that may be shorter than ours (a fixed hourly window shows less than an hour to its reset) the
    // server allows at least its limit per our window too; its own window is checked by #serverCountWait.
    return raise ? Math.max(this.#configuredLimit, server) : this.#configuredLimit;
  }

  /** The sustained rate, requests per ms: the lower of ours and the server's declared limit over its own window. */
  #ratePerMs(): number {
    const ours = this.#limit() / this.windowMs;
    const serverWindow = this.#serverWindowMs;
    if (this.#serverLimit === undefined || serverWindow === undefined || serverWindow >= this.windowMs) return ours;
    return Math.min(ours, this.#serverLimit / serverWindow);
  }

  /**
   * Whether what the run still needs from this pool is more than the budget left in the pool's window (`remaining`: by
   * our count, or by the server's when it counts over the same window; a gateway's shorter window is paced by its count).
   */
  #pacing(remaining: number): boolean {
    return Math.max(this.#demand, this.#waiters.length) > remaining;
  }

  /** The budget left in the pool's own window, by our count and the server's view of that window. */
  #remainingInWindow(counted: number, server: ServerView | undefined): number {
    const ours = this.#limit() - this.#inFlight.size - counted;
    const sameWindow = this.#serverWindowMs === undefined || this.#serverWindowMs >= this.windowMs;
    return server && sameWindow ? Math.min(ours, server.remaining) : ours;
  }

  /** Milliseconds until the server's own (shorter) window has room, 0 when it has, by our count of what we sent. */
  #serverCountWait(now: number): number | 'release' {
    const limit = this.#serverLimit;
    const window = this.#serverWindowMs;
    if (limit === undefined || window === undefined || window >= this.windowMs) return 0;
    // #finished is sorted; the requests completed within the last `window` are its tail from `first`. A window that
    // grew, or a clock that went back, counts again from the start of ours.
    if (now < this.#serverCountedAt || window !== this.#serverCountedWindowMs || this.#serverHead < this.#head)
      this.#serverHead = this.#head;
    this.#serverCountedAt = now;
    this.#serverCountedWindowMs = window;
    let first = this.#serverHead;
    while (first < this.#finished.length && (this.#finished[first] as number) + window <= now) first++;
    this.#serverHead = first;
    const counted = this.#finished.length - first;
    if (this.#inFlight.size + counted < limit) return 0;
    if (counted === 0) return 'release';
    const needed = this.#inFlight.size + counted - limit + 1;
    const freedAt = this.#finished[first + Math.min(needed, counted) - 1] as number;
    return Math.max(1, freedAt + window - now);
  }

  #currentServerView(now: number): ServerView | undefined {
    if (this.#server && this.#server.expiresAt <= now) this.#server = undefined;
    return this.#server;
  }

  #prune(now: number): void {
    while (this.#head < this.#finished.length && (this.#finished[this.#head] as number) + this.windowMs <= now)
      this.#head++;
    // Compact now and then so a long run does not keep every timestamp of the day.
    if (this.#head > 1024 && this.#head * 2 > this.#finished.length) {
      this.#finished = this.#finished.slice(this.#head);
      this.#serverHead = Math.max(0, this.#serverHead - this.#head);
      this.#head = 0;
    }
  }

  /**
   * Milliseconds until the next request may go and why, 0 when it may go now, or 'release' when only a completion can
   * help (every counted request is still in flight).
   */
  #waitNeeded(now: number): { ms: number; reason: string; paced?: true } | 0 | 'release' {
    this.#prune(now);
    if (this.#blockedUntil > now) {
      return {
        ms: this.#blockedUntil - now,
        reason: `the server answered 429${this.#blockedBecause ? ` with ${this.#blockedBecause}` : ''}`,
      };
    }
    const server = this.#currentServerView(now);
    if (server && server.remaining <= 0) {
      return {
        ms: Math.max(1, server.expiresAt - now),
        reason: `the server said ${server.said ?? 'its budget is spent'}`,
      };
    }
    if (!this.#heardFromServer && this.#inFlight.size > 0) return 'release';
    const counted = this.#finished.length - this.#head;
    if (this.#inFlight.size + counted >= this.#limit()) {
      if (counted === 0) return 'release';
      const ms = Math.max(1, (this.#finished[this.#head] as number) + this.windowMs - now);
      return {
        ms,
        reason: `${this.#limit()} requests per ${describeMs(this.windowMs)} already sent (the pool's limit)`,
      };
    }
    const serverWait = this.#serverCountWait(now);
    if (serverWait === 'release') return 'release';
    if (serverWait > 0) {
      const limit = this.#serverLimit as number;
      return {
        ms: serverWait,
        reason: `${limit} requests per ${describeMs(this.#serverWindowMs as number)} already sent (the window the server declares)`,
      };
    }
    if (this.#inFlight.size >= this.#window.limit()) return 'release';
    if (this.#pacing(this.#remainingInWindow(counted, server))) {
      // The turn this request takes, kept by its grant even when the grant comes late.
      this.#pacedTurn = this.#nextPacedAt;
      if (this.#nextPacedAt > now)
        return { ms: this.#nextPacedAt - now, reason: 'the pace of its sustained rate', paced: true };
    }
    return 0;
  }

  #grant(now: number): PoolPermit {
    const seq = this.#nextSeq++;
    this.#inFlight.add(seq);
    const sentAmong = this.#inFlight.size;
    this.#window.sent(sentAmong);
    const server = this.#server;
    if (server) server.remaining--;
    if (this.#demand > 0) this.#demand--;
    // A paced grant later than its turn (a timer fired late on a busy event loop) keeps its turn: up to PACE_CATCH_UP_MS
    // of turns missed go at once, so lag does not lower the sustained rate (the window's count still bounds it).
    const turn = this.#pacedTurn;
    this.#pacedTurn = undefined;
    const from =
      turn !== undefined && seq > 0 ? Math.max(turn, now - PACE_CATCH_UP_MS) : Math.max(now, this.#nextPacedAt);
    this.#nextPacedAt = from + 1 / this.#ratePerMs();
    this.#lastGrantAt = now;
    let released = false;
    return {
      pool: this.id,
      seq,
      release: (outcome = 'ok') => {
        if (released) return;
        released = true;
        this.#inFlight.delete(seq);
        const at = this.#clock.now();
        // An attempt that never reached the server spends none of its budget: counted, a server gone away during a
        // long run filled the client's own tally with refused connections, and the run then waited out the pool's
        // window (an hour) before its retries could fail.
        if (outcome === 'not-sent') {
          if (server && this.#server === server) server.remaining++;
        } else this.#finished.push(at);
        this.#window.finished(
          outcome === 'not-sent' ? 'overloaded' : outcome,
          at - now,
          this.#inFlight.size,
          at,
          sentAmong,
        );
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
        const now = this.#clock.now();
        const wait = this.#waitNeeded(now);
        if (wait === 0) {
          (this.#waiters.shift() as Waiter).resolve(this.#grant(now));
        } else if (wait === 'release') {
          await new Promise<void>((resolve) => {
            this.#wakeOnRelease = resolve;
          });
        } else {
          // A paced wait is the pool's ordinary rhythm, one request every window / limit: never refused nor announced.
          if (wait.paced) {
            await this.#clock.sleep(wait.ms, this.#signal);
            continue;
          }
          if (wait.ms > this.maxWaitMs) {
            // Every waiter would meet the same wall: fail them all now rather than one per wake-up.
            this.rejectWaiting(this.#tooLong(wait, now));
            continue;
          }
          if (wait.ms >= ANNOUNCE_WAIT_MS) {
            this.#onWait?.({
              pool: this.id,
              remaining: 0,
              resumesAt: now + wait.ms,
              waitMs: wait.ms,
              reason: wait.reason,
            });
          }
          await this.#clock.sleep(wait.ms, this.#signal);
        }
      }
    } catch (error) {
      this.rejectWaiting(this.#signal?.aborted ? closedError(this.id) : error);
    } finally {
      this.#pumping = false;
    }
  }
  #tooLong(wait: { ms: number; reason: string }, now: number): FatalError {
    const resumes = now + wait.ms;
    const when = Number.isFinite(resumes) && Math.abs(resumes) <= 8.64e15 ? new Date(resumes).toISOString() : 'never';
    return new FatalError(
      `limit pool "${this.id}": ${wait.reason}; the next request could go at ${when}, a wait of ${describeMs(wait.ms)}, over the longest wait allowed (--max-wait, maxWaitMs: ${describeMs(this.maxWaitMs)}); no request was sent — retry later, or raise --max-wait if the server's advice is right`,
    );
  }
}

/** `250 ms`, `45 s`, `12 min`, `3.5 h`, `40 days` — enough precision for a person. */
export function describeMs(ms: number): string {
  if (!Number.isFinite(ms)) return 'for ever';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 2 * 3_600_000) return `${Math.round(ms / 60_000)} min`;
  if (ms < 2 * 86_400_000) return `${Math.round(ms / 360_000) / 10} h`;
  return `${Math.round(ms / 86_400_000)} days`;
}

function closedError(pool: PoolId): FatalError {
  return new FatalError(
    `the API client was closed while the request waited for its rate-limit window (pool "${pool}"); no request was sent`,
  );
}
