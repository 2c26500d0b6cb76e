// The in-flight rule of one pool: rate × round trip × 1.5 (at least 8, at most the cap), halved when the server answers
// 429/5xx or slows down, then grown back one place per round trip — decided by the answers alone, so tested on numbers.
import { describe, expect, it } from 'vitest';
import { InFlightWindow, MIN_IN_FLIGHT } from '../../src/api/in-flight-window.js';

// 250,000 an hour, in requests per millisecond.
const DEFAULT_RATE = 250_000 / 3_600_000;

/** Feeds `n` answers of `ms` each, `inFlight` still in flight at each, one every ms / inFlight (a steady pipeline). */
function answer(window: InFlightWindow, n: number, ms: number, t0: number, outcome: 'ok' | 'overloaded' = 'ok'): number {
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
});
