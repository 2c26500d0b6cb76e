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
