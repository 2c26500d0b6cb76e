// How many requests one limit pool keeps on the wire: what its rate and the observed round trip call for (Little's law,
// rate × latency, with headroom), cut in half when the server answers 429/5xx or slows down, then grown back one
// request per round trip (AIMD). The pool's budget bounds it separately (limit-pool.ts): this only decides the pace.
//
// A slowdown is ambiguous: the server may have become slower by itself (a new latency level, which calls for *more* in
// flight at the same rate), or be slow because of our own load (which calls for fewer). Answers cannot tell the two
// apart at the load that caused them, so a slowdown cut is followed by a probe at the load the usual round trip was
// measured at: for one round trip no more requests are in flight than then, and the answers of those sent once our
// backlog has drained say which it is. As slow as at the cut, at the old load, the slowness is the server's own: that
// round trip becomes the usual one at once and the target follows it (rate × new round trip), with the ceiling from
// before the cut. As fast as before, it was our load: the cut stands and grows back one place per round trip. The
// latency the target is computed from is thus never one our own queueing made.

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
/** Answers a probe takes at most (their median): one stray answer decides nothing, and they come back in one round trip. */
export const PROBE_ANSWERS = 4;
// The least a probe keeps in flight, so that it has two answers to compare after one round trip.
const PROBE_MIN_IN_FLIGHT = 2;

/** What a slowdown cut left to find out: whether the server is as slow at a low load. */
interface Probe {
  /** The usual round trip before the slowdown. */
  usualMs: number;
  /** The AIMD ceiling before the cut, given back if the slowness is the server's own. */
  ceiling: number;
  /** In flight during the probe: the load the usual round trip was measured at (at most the cut's level). */
  level: number;
  /** When our backlog first fell under the cut level; what is sent after it meets only that level's load. */
  drainedAt: number | undefined;
  samples: number[];
}

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
  // Requests in flight when the usual round trip was measured, smoothed as it is.
  #loadAvg: number | undefined;
  #probe: Probe | undefined;

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
    return Math.max(1, Math.min(this.#cap, Math.floor(this.#congestion), this.#probe?.level ?? Infinity, target));
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
   * @param sentAmong requests in flight when this one was sent, itself included: the load its round trip was measured at.
   */
  finished(
    outcome: InFlightOutcome,
    roundTripMs: number,
    inFlight: number,
    now: number,
    sentAmong: number = inFlight + 1,
  ): void {
    if (outcome === 'overloaded') {
      // A refusal is about the rate, not the latency: whatever a probe would have found, the cut stands.
      this.#probe = undefined;
      this.#cut(inFlight + 1, now, 1);
      return;
    }
    const base = this.#baseMs;
    const usualLoad = this.#loadAvg;
    this.#baseMs = base === undefined ? roundTripMs : base + BASE_ALPHA * (roundTripMs - base);
    this.#loadAvg = usualLoad === undefined ? sentAmong : usualLoad + BASE_ALPHA * (sentAmong - usualLoad);
    this.#recentMs =
      this.#recentMs === undefined ? roundTripMs : this.#recentMs + RECENT_ALPHA * (roundTripMs - this.#recentMs);
    if (this.#probe !== undefined) {
      this.#observeProbe(this.#probe, roundTripMs, inFlight, now);
      return;
    }
    if (base !== undefined && this.#recentMs > slowdownMs(base)) {
      // A slower answer is no refusal: the least a pool keeps in flight stays.
      const ceiling = this.#congestion;
      if (this.#cut(inFlight + 1, now, MIN_IN_FLIGHT)) {
        const level = Math.max(PROBE_MIN_IN_FLIGHT, Math.min(Math.floor(this.#congestion), Math.ceil(usualLoad ?? 1)));
        this.#probe = { usualMs: base, ceiling, level, drainedAt: undefined, samples: [] };
        if (inFlight < this.limit()) this.#probe.drainedAt = now;
      }
      return;
    }
    // Additive increase: one more place per round trip's worth of answers.
    if (Number.isFinite(this.#congestion)) {
      this.#congestion += 1 / Math.max(1, this.#congestion);
      if (this.#congestion >= this.#cap) this.#congestion = Infinity;
    }
  }

  #observeProbe(probe: Probe, roundTripMs: number, inFlight: number, now: number): void {
    if (probe.drainedAt === undefined) {
      if (inFlight < this.limit()) probe.drainedAt = now;
      return;
    }
    // Sent before the backlog drained: it waited behind our own load, and says nothing about the server's.
    if (now - roundTripMs < probe.drainedAt - SAME_INSTANT_MS) return;
    probe.samples.push(roundTripMs);
    if (probe.samples.length < Math.min(PROBE_ANSWERS, probe.level)) return;
    this.#probe = undefined;
    const lowLoadMs = median(probe.samples);
    if (lowLoadMs <= slowdownMs(probe.usualMs)) return;
    // As slow at the usual load as at the cut: the server's new level. The target follows it at once.
    this.#baseMs = lowLoadMs;
    this.#recentMs = lowLoadMs;
    this.#congestion = probe.ceiling;
  }

  // Multiplicative decrease, at most once per round trip: the answers of requests sent before the cut say nothing new.
  #cut(inFlight: number, now: number, floor: number): boolean {
    if (now - this.#lastCutAt < (this.#baseMs ?? 0)) return false;
    this.#lastCutAt = now;
    this.#congestion = Math.max(floor, Math.floor(Math.min(this.#congestion, inFlight) / 2));
    return true;
  }
}

// A grant and the release before it may carry the same clock reading, rounded apart by a hair.
const SAME_INSTANT_MS = 0.001;

/** The round trip beyond which the server counts as slowing down, against the usual one. */
function slowdownMs(usualMs: number): number {
  return Math.max(SLOWDOWN_FLOOR_MS, SLOWDOWN_FACTOR * usualMs);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
