// How many requests one limit pool keeps on the wire: what its rate and the observed round trip call for (Little's law,
// rate × latency, with headroom), cut in half when the server answers 429/5xx or slows down, then grown back one
// request per round trip (AIMD). A round trip that changes for good (the server moved, a path got slower) is no
// congestion: once answers sent after the last cut agree on a new level, the target is recomputed from it at once.
// The pool's budget bounds it separately (limit-pool.ts): this only decides the pace.

/** Requests a pool may keep in flight whatever its rate: a fast or local server is never fed one request at a time. */
export const MIN_IN_FLIGHT = 8;
/** The most a pool keeps in flight unless `--max-in-flight` says otherwise: sockets, memory and politeness. */
export const MAX_IN_FLIGHT = 256;
/** In flight = rate × round trip × this: room for jitter in the round trip, so the pool's rate, not latency, binds. */
export const IN_FLIGHT_HEADROOM = 1.5;
/** A round trip this many times the usual one means the server is slowing down: send fewer (but not under MIN_IN_FLIGHT). */
const SLOWDOWN_FACTOR = 2;
// Round trips under this are not a slowdown whatever their ratio (a local server's 2 ms against its 0.5 ms).
const SLOWDOWN_FLOOR_MS = 50;
// Smoothing of the usual round trip (slow, the base) and of the current one (fast, the signal).
const BASE_ALPHA = 0.02;
const RECENT_ALPHA = 0.3;
/**
 * Answers in a row, all sent after the last cut that lowered the limit, whose round trips all lie above (or all below)
 * the usual one by more than LEVEL_SHIFT_RATIO: the round trip has moved to a new level, and the usual one becomes their
 * median. As many as the least a pool keeps in flight, so a pool at its least sees a new level one round trip after it.
 */
const LEVEL_SHIFT_ANSWERS = MIN_IN_FLIGHT;
// Wider than the jitter of one server's answers; a slow drift within it is what the slow average follows.
const LEVEL_SHIFT_RATIO = 1.25;

/** What one response told about the server's health. */
export type InFlightOutcome = 'ok' | 'overloaded';

/** The adaptive in-flight limit of one pool. */
export class InFlightWindow {
  readonly #ratePerMs: () => number;
  readonly #cap: number;
  #baseMs: number | undefined;
  #recentMs: number | undefined;
  // The AIMD ceiling; Infinity until the first sign of trouble.
  #congestion = Infinity;
  #lastCutAt = -Infinity;
  // When a cut last lowered the limit: answers to requests sent before it cannot tell whether the cut helped.
  #lastEffectiveCutAt = -Infinity;
  // A slowdown cut is in force: at most one per slowdown, until the round trip comes back or settles at a new level.
  #slowdownCut = false;
  // The ceiling holds a cut the server asked for (429/5xx, no answer), not only slowdown cuts.
  #refused = false;
  // Round trips of the answers in a row that lie outside the usual level (all above it, or all below).
  #shift: number[] = [];
  #shiftUp = false;
  #peak = 0;

  /**
   * @param ratePerMs the pool's sustained rate (limit / window), read at each decision: the server may lower the limit.
   * @param cap `--max-in-flight`, or MAX_IN_FLIGHT.
   */
  constructor(ratePerMs: () => number, cap: number = MAX_IN_FLIGHT) {
    this.#ratePerMs = ratePerMs;
    this.#cap = cap;
  }

  /** Requests the pool may have in flight now. */
  limit(): number {
    const latency = this.#baseMs ?? 0;
    const target = Math.max(MIN_IN_FLIGHT, Math.ceil(this.#ratePerMs() * latency * IN_FLIGHT_HEADROOM));
    return Math.max(1, Math.min(this.#cap, Math.floor(this.#congestion), target));
  }

  /** The most requests this pool had in flight at once. */
  get peak(): number {
    return this.#peak;
  }

  /** Records the in-flight count after a grant, for `peak`. */
  sent(inFlight: number): void {
    if (inFlight > this.#peak) this.#peak = inFlight;
  }

  /**
   * Takes one finished request into account.
   * @param roundTripMs from grant to release: what a place in flight was held for.
   * @param inFlight requests still in flight, the count a cut halves.
   */
  finished(outcome: InFlightOutcome, roundTripMs: number, inFlight: number, now: number): void {
    if (outcome === 'overloaded') {
      this.#shift = [];
      this.#refused = true;
      this.#cut(now - roundTripMs, inFlight + 1, now, 1);
      return;
    }
    const base = this.#baseMs;
    if (base !== undefined && this.#levelShifted(base, roundTripMs, now)) return;
    this.#baseMs = base === undefined ? roundTripMs : base + BASE_ALPHA * (roundTripMs - base);
    this.#recentMs = this.#recentMs === undefined ? roundTripMs : this.#recentMs + RECENT_ALPHA * (roundTripMs - this.#recentMs);
    if (base !== undefined && this.#recentMs > Math.max(SLOWDOWN_FLOOR_MS, SLOWDOWN_FACTOR * base)) {
      // One cut per slowdown, and a slower answer is no refusal: the least a pool keeps in flight stays. Answers sent
      // after the cut tell the rest: faster ones end the slowdown (the cut stays, grown back one place per round trip),
      // as slow ones are a new level (#levelShifted gives the ceiling back).
      if (!this.#slowdownCut) {
        this.#slowdownCut = true;
        this.#cut(now - roundTripMs, inFlight + 1, now, MIN_IN_FLIGHT);
      }
      return;
    }
    // The round trip came back: the slowdown was ours, and what the cut took is grown back by additive increase.
    this.#slowdownCut = false;
    // Additive increase: one more place per round trip's worth of answers.
    if (Number.isFinite(this.#congestion)) {
      this.#congestion += 1 / Math.max(1, this.#congestion);
      if (this.#congestion >= this.#cap) {
        this.#congestion = Infinity;
        this.#refused = false;
      }
    }
  }

  /**
   * Whether this answer completes a level shift: LEVEL_SHIFT_ANSWERS in a row, sent after the last effective cut, all
   * above or all below the usual round trip by more than LEVEL_SHIFT_RATIO. The usual round trip becomes their median.
   * A higher level gives back what slowdown cuts took (halving our load did not bring the old round trip back, so our
   * load was not its cause); a lower one leaves them to grow back. A ceiling a refusal set is kept as the rate it
   * allowed, so scaled by the new round trip (Little's law).
   */
  #levelShifted(base: number, roundTripMs: number, now: number): boolean {
    const up = roundTripMs > Math.max(SLOWDOWN_FLOOR_MS, LEVEL_SHIFT_RATIO * base);
    const down = base > SLOWDOWN_FLOOR_MS && roundTripMs * LEVEL_SHIFT_RATIO < base;
    if ((!up && !down) || now - roundTripMs < this.#lastEffectiveCutAt) {
      if (!up && !down) this.#shift = [];
      return false;
    }
    if (this.#shift.length > 0 && this.#shiftUp !== up) this.#shift = [];
    this.#shiftUp = up;
    this.#shift.push(roundTripMs);
    if (this.#shift.length < LEVEL_SHIFT_ANSWERS) return false;
    const sorted = [...this.#shift].sort((a, b) => a - b);
    const level = sorted[Math.floor(sorted.length / 2)] as number;
    if (this.#refused) this.#congestion = Math.max(1, this.#congestion * (level / base));
    else if (up) this.#congestion = Infinity;
    this.#baseMs = level;
    this.#recentMs = level;
    this.#shift = [];
    this.#slowdownCut = false;
    return true;
  }

  // Multiplicative decrease, at most once per round trip: the answers of requests sent before the cut say nothing new
  // (judged by when each was sent, not by the usual round trip, which a jump in latency has made too short).
  #cut(sentAt: number, inFlight: number, now: number, floor: number): void {
    if (sentAt < this.#lastCutAt) return;
    const before = this.limit();
    this.#lastCutAt = now;
    this.#congestion = Math.max(floor, Math.floor(Math.min(this.#congestion, inFlight) / 2));
    if (this.limit() < before) {
      this.#lastEffectiveCutAt = now;
      this.#shift = [];
    }
  }
}
