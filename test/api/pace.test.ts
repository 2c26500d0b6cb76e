// A pacing pool (its run needs more than its window's budget) spreads its requests at limit / window. Its turns are
// timers, and on a busy event loop a timer fires late: the pool must not lose the rate those late turns cost.
import { describe, expect, it } from 'vitest';
import { LimitPoolQueue, PACE_CATCH_UP_MS } from '../../src/api/limit-pool.js';

/** A clock whose every sleep ends `lateMs` after it was due, as timers do on a busy event loop. */
function lateClock(lateMs: number) {
  let t = Date.parse('2026-01-01T00:00:00Z');
  return {
    now: () => t,
    sleep: async (ms: number) => {
      t += ms + lateMs;
      await Promise.resolve();
    },
  };
}

/** Sends `n` requests one after another through a pool of 100 a minute (a turn every 600 ms); returns the span. */
async function paced(lateMs: number, n: number): Promise<number> {
  const clock = lateClock(lateMs);
  const pool = new LimitPoolQueue({ id: 'default', limit: 100, windowMs: 60_000 }, clock);
  pool.expect(1_000);
  const starts: number[] = [];
  for (let i = 0; i < n; i++) {
    const permit = await pool.acquire();
    starts.push(clock.now());
    permit.release();
  }
  return starts.at(-1)! - starts[0]!;
}

describe('a pacing pool', () => {
  it('keeps its rate when every timer fires 200 ms late (50 turns of 600 ms in 29.4 s, not 39.2 s)', async () => {
    expect(await paced(0, 50)).toBe(49 * 600);
    const late = await paced(200, 50);
    expect(late).toBeGreaterThanOrEqual(49 * 600);
    expect(late).toBeLessThanOrEqual(49 * 600 + 200);
  });

  it(`catches up at most ${PACE_CATCH_UP_MS} ms of missed turns: a 5 s stall is not paid back with a burst`, async () => {
    const clock = lateClock(0);
    const pool = new LimitPoolQueue({ id: 'default', limit: 100, windowMs: 60_000 }, clock);
    pool.expect(1_000);
    (await pool.acquire()).release();
    (await pool.acquire()).release();
    await clock.sleep(5_000);
    const starts: number[] = [];
    for (let i = 0; i < 6; i++) {
      (await pool.acquire()).release();
      starts.push(clock.now());
    }
    // Turns missed during the stall: only the last second's (one, at 600 ms a turn) goes at once with the first.
    expect(starts.filter((t) => t === starts[0]).length).toBeLessThanOrEqual(1 + Math.floor(PACE_CATCH_UP_MS / 600));
    expect(starts.at(-1)! - starts[0]!).toBeGreaterThanOrEqual(3 * 600);
  });
});

describe("a pool under a server's shorter window", () => {
  /**
   * Sends `n` requests one after another through a pool of 100,000 an hour whose server declares 10 a window, the
   * window's reset `resetMs(i)` after the i-th answer, the next request asked for `gapMs(i)` after it; returns each
   * request's start.
   */
  async function underServerWindow(
    n: number,
    resetMs: (i: number) => number,
    gapMs: (i: number) => number = (i) => (i % 7 === 0 ? 130 : 10),
  ): Promise<number[]> {
    const clock = lateClock(0);
    const pool = new LimitPoolQueue({ id: 'default', limit: 100_000, windowMs: 3_600_000 }, clock);
    const starts: number[] = [];
    for (let i = 0; i < n; i++) {
      const permit = await pool.acquire();
      starts.push(clock.now());
      pool.observe(permit, { limit: 10, resetAt: clock.now() + resetMs(i) });
      permit.release();
      await clock.sleep(gapMs(i));
    }
    return starts;
  }

  /** The most requests started within any `windowMs` of `starts` (sorted). */
  function busiest(starts: readonly number[], windowMs: number, from = 0): number {
    let most = 0;
    for (let i = from; i < starts.length; i++)
      most = Math.max(most, starts.filter((t, j) => j <= i && t > starts[i]! - windowMs).length);
    return most;
  }

  it('sends at most its limit within any window of the server, and close to the limit', async () => {
    const starts = await underServerWindow(300, () => 1_000);
    expect(busiest(starts, 1_000)).toBe(10);
    // 300 requests at 10 a second: about 29 s, not held longer than the window asks.
    expect(starts.at(-1)! - starts[0]!).toBeLessThan(31_000);
  });

  it('counts over the longer window once a reset shows one, including what it sent before', async () => {
    // Slow at first (well under 10 a second), then as fast as the pool allows.
    const starts = await underServerWindow(
      300,
      (i) => (i < 150 ? 1_000 : 3_000),
      (i) => (i < 150 ? 400 : 10),
    );
    // From the answer that showed 3 s on, no 3 s holds more than 10 requests (counting those sent before it).
    expect(busiest(starts, 3_000, 151)).toBe(10);
  });
});
