// Runs within the limit pools: with the emulator's limiter on and limits scaled down to seconds, a backfill larger than
// a pool's budget finishes in budgeted waves without a single 429, other pools keep going while one waits, and a run
// stopped half-way resumes without re-fetching what it had finished.
import { afterEach, describe, expect, it } from 'vitest';
import type { ClientEvent } from '../../src/api/api-client-options.js';
import type { PoolId } from '../../src/api/endpoints.js';
import type { PoolOverrides } from '../../src/api/limiter.js';
import { PipelineFixture } from './helpers/pipeline-fixture.js';
import { VirtualClock } from '../helpers/virtual-clock.js';
import { scaledPools } from '../../src/api/endpoints.js';

// The emulator multiplies limits by SCALE and windows by WINDOW_SCALE (fixed windows of at least 1 s); the client is
// told the same limits, as `engage-etl run` would know the real ones.
const SCALE = 0.005;
const WINDOW_SCALE = 1 / 1800;
const CLIENT_POOLS: PoolOverrides = scaledPools(SCALE, WINDOW_SCALE);

const PIPELINE = `
name: limits
start_date: 2024-06-01
lookback_days: 3
streams:
  purchase_quantity: { unit: day, apps: ["*", app_1], products: ["*", gems_small] }
  revenue:           { unit: day, apps: ["*"], products: ["*", gems_small] }
  sessions:          { unit: hour, apps: ["*"], segments: ["*"] }
  custom_events:     {}
  canvas_summary:    { canvases: [cv_1] }
  data_integrations: {}
`;

/** A request as it started: its pool and the virtual time. */
interface Started {
  pool: PoolId;
  at: number;
}

describe('runs within the rate-limit pools', () => {
  let fx: PipelineFixture | undefined;
  afterEach(async () => {
    await fx?.close();
    fx = undefined;
  });

  it("finishes a backfill larger than the purchases pool's budget in waves, with zero 429s, while the default pool keeps going", async () => {
    // The emulator's windows and the client's limiter read one virtual clock: the waits are real waits of the run, only
    // the test does not spend them.
    const clock = new VirtualClock();
    fx = await PipelineFixture.create({
      now: '2025-03-10T05:30:00Z',
      pipeline: PIPELINE,
      emulator: { limitScale: SCALE, limitWindowScale: WINDOW_SCALE, rateLimitNow: clock.now },
    });
    const starts: Started[] = [];
    const onEvent = (e: ClientEvent): void => {
      clock.observe(e);
      if (e.type === 'request-started') starts.push({ pool: e.pool, at: clock.now() });
    };
    const summary = await fx.run(
      {},
      {
        client: { onEvent, now: clock.now, sleep: clock.sleep },
        scheduler: { pools: CLIENT_POOLS, now: clock.now, sleep: clock.sleep },
      },
    );

    // 2024-06-01 → 2025-03-11 is 283 days: 3 windows × 6 purchase series + 3 events pages (612 names, read by discovery
    // and counted as read) = 21 requests, 5 waves of 5.
    expect(summary.requests.byPool.purchases_events).toBe(21);
    // Every planned request went out once; only the integrations list, a paged list the plan can only estimate before
    // its first run, took more pages (23 integrations, 10 a page).
    expect(fx.emulator.stats.byPool.default).toBe(summary.requests.byPool.default);
    expect(fx.emulator.stats.byPool.cdi).toBe(3);
    expect(fx.emulator.stats.rateLimited).toBe(0);
    expect(summary.requests.retries).toBe(0);
    // 18 series windows plus the pages of the events list (250 names a page, one more page when the count divides).
    const [events] = await fx.query('SELECT count(*) AS n FROM custom_events');
    expect(fx.emulator.stats.byPool.purchases_events).toBe(18 + Math.floor(Number(events!['n']) / 250) + 1);
    expect(fx.emulator.stats.requests).toBe(summary.requests.sent);

    // Spread at the pool's rate (it needs more than its budget): no window ever holds more than the pool's limit of
    // starts, so its 21 requests (3 of them the events list's pages) span more than 3 windows.
    const { limit, windowMs } = CLIENT_POOLS.purchases_events!;
    const purchaseAt = starts.filter((e) => e.pool === 'purchases_events').map((e) => e.at);
    for (let i = limit; i < purchaseAt.length; i++)
      expect(purchaseAt[i]! - purchaseAt[i - limit]!).toBeGreaterThanOrEqual(windowMs);
    expect(purchaseAt.at(-1)! - purchaseAt[0]!).toBeGreaterThanOrEqual(3 * windowMs);
    // The default pool never waits for the purchases pool: its requests are all out while that one is still spreading.
    const defaultAt = starts.filter((e) => e.pool === 'default').map((e) => e.at);
    expect(Math.max(...defaultAt)).toBeLessThan(purchaseAt[limit]!);
    expect(summary.status).toBe('succeeded');
  });

  it('resumes a stopped backfill re-fetching no more than the windows that were in flight and one look-back request per started series', async () => {
    fx = await PipelineFixture.create({
      now: '2025-03-10T05:30:00Z',
      pipeline: `
name: resume
start_date: 2023-01-01
lookback_days: 3
streams:
  purchase_quantity: { unit: day, apps: ["*", app_1, app_2, app_3], products: ["*", gems_small, gems_medium] }
`,
    });
    const CONCURRENCY = 4;
    const firstQueries: string[] = [];
    let calls = 0;
    const STOP_AFTER = 30;
    // Stands for a crash: from the 31st request on, the service refuses the key (a 401 stops the whole run, keeping what
    // was committed; a failure of one stream alone would undo that stream's progress instead).
    const failingFetch: typeof fetch = async (input, init) => {
      calls += 1;
      if (calls > STOP_AFTER)
        return new Response(JSON.stringify({ message: 'stopped by the test' }), {
          status: 401,
          headers: { 'content-type': 'application/json' },
        });
      const url = String(input);
      const res = await fetch(input, init);
      if (res.ok) firstQueries.push(new URL(url).search);
      return res;
    };
    await expect(
      fx.run({}, { client: { fetch: failingFetch }, scheduler: { maxInFlight: CONCURRENCY } }),
    ).rejects.toThrow(/stopped by the test/);

    const secondQueries: string[] = [];
    const recordingFetch: typeof fetch = async (input, init) => {
      secondQueries.push(new URL(String(input)).search);
      return fetch(input, init);
    };
    const resumed = await fx.run({}, { client: { fetch: recordingFetch }, scheduler: { maxInFlight: CONCURRENCY } });
    expect(resumed.status).toBe('succeeded');

    // 12 series × ceil(800 days / 100) = 96 windows in all; the first run fetched up to 30 of them (the fatal answer
    // closes the client, so requests still in flight then are cut off).
    const total = 12 * Math.ceil(800 / 100);
    expect(firstQueries.length).toBeGreaterThan(STOP_AFTER - CONCURRENCY);
    expect(firstQueries.length).toBeLessThanOrEqual(STOP_AFTER);
    const startedSeries = new Set(
      firstQueries.map((q) => {
        const p = new URLSearchParams(q);
        return `${p.get('app_id')}|${p.get('product')}`;
      }),
    ).size;
    const budget = total - firstQueries.length + CONCURRENCY + startedSeries;
    expect(secondQueries.length).toBeLessThanOrEqual(budget);

    const rows = await fx.query(
      `SELECT count(*) AS n, count(DISTINCT app_id || product || CAST(time AS VARCHAR)) AS k FROM purchase_quantity`,
    );
    expect(rows[0]).toEqual({ n: 12 * 800, k: 12 * 800 });
  });
});
