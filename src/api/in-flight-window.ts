// How many requests one limit pool keeps on the wire: what its rate and the observed round trip call for (Little's law,
// rate × latency, with headroom), cut in half when the server answers 429/5xx or slows down, then grown back one
// request per round trip (AIMD). The pool's budget bounds it separately (limit-pool.ts): this only decides the pace.

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
      this.#cut(inFlight + 1, now, 1);
      return;
    }
    const base = this.#baseMs;
    this.#baseMs = base === undefined ? roundTripMs : base + BASE_ALPHA * (roundTripMs - base);
    this.#recentMs = this.#recentMs === undefined ? roundTripMs : this.#recentMs + RECENT_ALPHA * (roundTripMs - this.#recentMs);
    if (base !== undefined && this.#recentMs > Math.max(SLOWDOWN_FLOOR_MS, SLOWDOWN_FACTOR * base)) {
      // A slower answer is no refusal: the least a pool keeps in flight stays.
      this.#cut(inFlight + 1, now, MIN_IN_FLIGHT);
      return;
    }
    // Additive increase: one more place per round trip's worth of answers.
    if (Number.isFinite(this.#congestion)) {
      this.#congestion += 1 / Math.max(1, this.#congestion);
      if (this.#congestion >= this.#cap) this.#congestion = Infinity;
    }
  }

  // Multiplicative decrease, at most once per round trip: the answers of requests sent before the cut say nothing new.
  #cut(inFlight: number, now: number, floor: number): void {
    if (now - this.#lastCutAt < (this.#baseMs ?? 0)) return;
    this.#lastCutAt = now;
    this.#congestion = Math.max(floor, Math.floor(Math.min(this.#congestion, inFlight) / 2));
  }
}
