// The in-flight rule of one pool: rate × round trip × 1.5 (at least 8, at most the cap), halved when the server answers
// 429/5xx or slows down, then grown back one place per round trip; after a slowdown, a probe at the usual load tells a
// server that became slower (the target follows its new round trip at once) from one our load slowed (the cut stands) —
// decided by the answers alone, so tested on numbers and on a pool simulated in virtual time.
import { describe, expect, it } from 'vitest';
import { InFlightWindow, MIN_IN_FLIGHT } from '../../src/api/in-flight-window.js';
import { fixedLatency, queueingServer, simulatePool } from './helpers/pool-simulation.js';

// 250,000 an hour, in requests per millisecond.
const DEFAULT_RATE = 250_000 / 3_600_000;

/** Feeds `n` answers of `ms` each, `inFlight` still in flight at each, one every ms / inFlight (a steady pipeline). */
function answer(
  window: InFlightWindow,
  n: number,
  ms: number,
  t0: number,
  outcome: 'ok' | 'overloaded' = 'ok',
): number {
  let t = t0;
  for (let i = 0; i < n; i++) {
    const inFlight = window.limit();
    t += ms / inFlight;
    window.finished(outcome, ms, inFlight - 1, t);
  }
  return t;
}

describe('the in-flight window of a pool', () => {
  it('keeps at least 8 before any answer and for a fast server, and rate × round trip × 1.5 for a slow one', () => {
    const w = new InFlightWindow(() => DEFAULT_RATE);
    expect(w.limit()).toBe(MIN_IN_FLIGHT);
    answer(w, 50, 5, 0);
    expect(w.limit()).toBe(MIN_IN_FLIGHT);
    const slow = new InFlightWindow(() => DEFAULT_RATE);
    answer(slow, 50, 250, 0);
    // 69.4/s × 0.25 s × 1.5 = 26.04
    expect(slow.limit()).toBe(27);
  });

  it('never exceeds the cap (--max-in-flight)', () => {
    const w = new InFlightWindow(() => DEFAULT_RATE, 5);
    answer(w, 50, 1_000, 0);
    expect(w.limit()).toBe(5);
  });

  it('halves on a 429 or 5xx at most once per round trip, then grows back by one per round trip', () => {
    const w = new InFlightWindow(() => DEFAULT_RATE);
    let t = answer(w, 100, 250, 0);
    expect(w.limit()).toBe(27);
    // A burst of 503s within one round trip halves the window once.
    t = answer(w, 10, 25, t, 'overloaded');
    const cut = w.limit();
    expect(cut).toBe(13);
    // Two round trips of good answers add about two places.
    t = answer(w, 13 + 14, 250, t);
    expect(w.limit()).toBeGreaterThanOrEqual(14);
    expect(w.limit()).toBeLessThanOrEqual(15);
    answer(w, 500, 250, t);
    expect(w.limit()).toBe(27);
  });

  it('sends fewer when the round trip grows to twice the usual, but never fewer than 8', () => {
    const w = new InFlightWindow(() => DEFAULT_RATE);
    const t = answer(w, 100, 250, 0);
    expect(w.limit()).toBe(27);
    answer(w, 5, 1_500, t);
    expect(w.limit()).toBeLessThanOrEqual(13);
    answer(w, 200, 5_000, t + 10_000);
    expect(w.limit()).toBeGreaterThanOrEqual(MIN_IN_FLIGHT);
  });

  describe('after a slowdown', () => {
    // 69.4/s × 2 s × 1.5 = 208.3
    const TARGET_AT_2S = 209;

    it('follows a round trip that jumps from 20 ms to 2 s for good within three round trips, sending 90 % of a constant 2 s pool', () => {
      const jump = simulatePool(new InFlightWindow(() => DEFAULT_RATE), {
        ratePerMs: DEFAULT_RATE,
        untilMs: 40_000,
        server: fixedLatency((t) => (t < 10_000 ? 20 : 2_000)),
      });
      const steady = simulatePool(new InFlightWindow(() => DEFAULT_RATE), {
        ratePerMs: DEFAULT_RATE,
        untilMs: 30_000,
        server: fixedLatency(() => 2_000),
      });
      expect(jump.limitAt(9_999)).toBe(MIN_IN_FLIGHT);
      // The first slow answers come back at 12 s (the cut), the probe's at 14 s (the new level).
      expect(jump.limitAt(16_000)).toBe(TARGET_AT_2S);
      // Grown back one place per round trip, the pool sent 165 in those 30 s (peaking at 12 in flight).
      expect(jump.sentBetween(10_000, 40_000)).toBeGreaterThanOrEqual(0.9 * steady.sentBetween(0, 30_000));
    });

    it('does not take a client stall for a new level: two seconds of answers read late leave the window where it was', () => {
      const stall = simulatePool(new InFlightWindow(() => DEFAULT_RATE), {
        ratePerMs: DEFAULT_RATE,
        untilMs: 40_000,
        server: fixedLatency(() => 20),
        stall: { from: 10_000, to: 12_000 },
      });
      expect(stall.answers.some((a) => a.roundTripMs >= 1_900)).toBe(true);
      expect(Math.max(...stall.limits.filter((l) => l.t > 10_000).map((l) => l.limit))).toBe(MIN_IN_FLIGHT);
      expect(stall.limitAt(40_000)).toBe(MIN_IN_FLIGHT);
    });

    it('does not take the queueing our own load causes for a new level: the window never leaps, it grows one place at a time', () => {
      // One request at a time, 50 ms each: 20 a second, below the pool's 69.4. Every request more in flight only
      // waits longer; a rule that read that wait as the server's new latency would raise the target with it.
      const sim = simulatePool(new InFlightWindow(() => DEFAULT_RATE), {
        ratePerMs: DEFAULT_RATE,
        untilMs: 120_000,
        server: queueingServer(50, 20),
      });
      // The first answer sets the usual round trip (the window goes from 8 to the target at once). From there on the
      // window grows one place at a time, or goes back from a probe's level to its cut's — never above where it stood
      // before that cut (a new level adopted would put it at least twice as high).
      let beforeCut = 0;
      const leaps: string[] = [];
      const first = sim.answers[0]!;
      const later = sim.limits.filter((l) => l.t > first.sentAt + first.roundTripMs);
      for (const [i, l] of later.slice(1).entries()) {
        const before = later[i]!.limit;
        if (l.limit < before && beforeCut < before) beforeCut = before;
        if (l.limit > before + 1 && l.limit > beforeCut) leaps.push(`${before} → ${l.limit} at ${Math.round(l.t)} ms`);
        if (l.limit > beforeCut) beforeCut = 0;
      }
      expect(leaps).toEqual([]);
      expect(Math.max(...sim.limits.map((l) => l.limit))).toBeLessThanOrEqual(80);
    });

    it('keeps the cut after a 503 whatever the round trip does next: a refusal is about the rate', () => {
      const w = new InFlightWindow(() => DEFAULT_RATE);
      let t = answer(w, 100, 250, 0);
      t = answer(w, 5, 25, t, 'overloaded');
      expect(w.limit()).toBe(13);
      answer(w, 40, 2_000, t);
      expect(w.limit()).toBeLessThanOrEqual(16);
    });
  });
});
