// As fast as the rate limits allow, at any latency: against an emulator that holds every answer 250 ms, the default pool
// keeps rate × latency in flight and beats its sustained rate without a 429; a pool the run needs more of than its budget
// spreads its requests at that rate and never goes over it.
import { afterEach, describe, expect, it } from 'vitest';
import type { ClientEvent } from '../../src/api/api-client-options.js';
import { scaledPools } from '../../src/api/endpoints.js';
import { poolRateBoundMs } from '../../src/pipeline/plan-estimate.js';
import { HostileProxy } from '../hostile/hostile-proxy.js';
import { PipelineFixture } from './helpers/pipeline-fixture.js';
import { VirtualClock } from '../helpers/virtual-clock.js';

// Nine hourly series over two years: 9 × ceil(17,544 h / 100) = 1,584 requests, all in the default pool.
const PIPELINE = `
name: pace
start_date: 2024-01-01
lookback_days: 3
streams:
  sessions: { unit: hour, apps: ["*", app_1, app_2], segments: ["*", seg_1, seg_2] }
`;
const NOW = '2026-01-01T00:30:00Z';

/** Counts requests in flight from the client's events. */
function inFlightCounter(): { onEvent: (e: ClientEvent) => void; peak: () => number } {
  let active = 0;
  let peak = 0;
  return {
    onEvent: (e) => {
      if (e.type === 'request-started') peak = Math.max(peak, ++active);
      if (e.type === 'request-finished') active--;
    },
    peak: () => peak,
  };
}

describe('pace within the limit pools', () => {
  const fixtures: PipelineFixture[] = [];
  afterEach(async () => {
    for (const fx of fixtures.splice(0)) await fx.close();
  });

  it("finishes 1,584 default-pool requests at 250 ms within 1.15× the pool's rate bound, with no 429 and the same tables as without latency", async () => {
    const slow = await PipelineFixture.create({ now: NOW, pipeline: PIPELINE, emulator: { latencyMs: 250 } });
    const fast = await PipelineFixture.create({ now: NOW, pipeline: PIPELINE });
    fixtures.push(slow, fast);
    // The same run without latency first: on a machine shared with other work, the CPU alone may need longer than the
    // pool's rate allows, and no number of requests in flight helps with that.
    let started = performance.now();
    await fast.run();
    const cpuMs = performance.now() - started;
    const counter = inFlightCounter();
    started = performance.now();
    const summary = await slow.run({}, { client: { onEvent: counter.onEvent } });
    const wallMs = performance.now() - started;

    expect(summary.status).toBe('succeeded');
    expect(summary.requests.byPool).toEqual({ default: 1_584 });
    expect(slow.emulator.stats.rateLimited).toBe(0);
    expect(summary.requests.retries).toBe(0);
    // 250,000 an hour is 69.4 a second: 1,584 requests take 22.8 s at that rate. Eight in flight would take 49.5 s.
    const boundMs = poolRateBoundMs(summary.requests.byPool);
    expect(boundMs).toBeCloseTo(22_810, -1);
    expect(wallMs).toBeLessThanOrEqual(1.15 * Math.max(boundMs, cpuMs));
    // rate × latency × 1.5 = 26 in flight at least: more than the fixed 8 of old, far below the pool's budget.
    expect(counter.peak()).toBeGreaterThanOrEqual(20);
    expect(await slow.allTablesData()).toEqual(await fast.allTablesData());
  }, 180_000);

  it('spreads a pool of 100 requests a minute over the run when it needs more than that, never over the limit', async () => {
    // The emulator's default pool scaled from 250,000 an hour to 100 a minute; its windows and the client's limiter read
    // one virtual clock, so the run's minutes pass at once yet in order.
    const limitScale = 100 / 250_000;
    const windowScale = 1 / 60;
    const clock = new VirtualClock();
    const fx = await PipelineFixture.create({
      now: NOW,
      pipeline: PIPELINE.replace(
        'apps: ["*", app_1, app_2], segments: ["*", seg_1, seg_2]',
        'apps: ["*", app_1], segments: ["*"]',
      ),
      emulator: { limitScale, limitWindowScale: windowScale, rateLimitNow: clock.now },
    });
    fixtures.push(fx);
    const pools = scaledPools(limitScale, windowScale);
    expect(pools.default).toEqual({ limit: 100, windowMs: 60_000 });
    const starts: number[] = [];
    const onEvent = (e: ClientEvent): void => {
      clock.observe(e);
      if (e.type === 'request-started') starts.push(clock.now());
    };
    const summary = await fx.run(
      {},
      {
        client: { onEvent, now: clock.now, sleep: clock.sleep },
        scheduler: { pools, now: clock.now, sleep: clock.sleep },
      },
    );

    expect(summary.status).toBe('succeeded');
    expect(summary.requests.byPool).toEqual({ default: 352 });
    expect(fx.emulator.stats.rateLimited).toBe(0);
    // Never more than 100 starts within any minute, and spread: at most 11 within any 6 s (one every 0.6 s).
    const within = (ms: number) => Math.max(...starts.map((t) => starts.filter((u) => u >= t && u < t + ms).length));
    expect(within(60_000)).toBeLessThanOrEqual(100);
    expect(within(6_000)).toBeLessThanOrEqual(11);
    // 352 requests at 100 a minute: 211 s of the pool's rate. Bursting 100 at a time would have taken 3 windows, 180 s.
    const boundMs = poolRateBoundMs(summary.requests.byPool, pools);
    expect(starts.at(-1)! - starts[0]!).toBeGreaterThanOrEqual(0.95 * boundMs);
  });

  it("recovers the rule's pace within a few round trips after the round trip jumps from 20 ms to 2 s: within 1.2× of a constant 2 s run", async () => {
    // The default pool scaled to 80,000 an hour (22.2 a second), so that 352 requests take about 16 s of the pool's
    // rate: the runs last long enough for the round trips the rule spends on the jump to be measured against them.
    // At 20 ms the rule keeps its least, 8 in flight; at 2 s, 22.2/s × 2 s × 1.5 = 67.
    const limitScale = 80_000 / 250_000;
    const pools = scaledPools(limitScale, 1);
    const pipeline = PIPELINE.replace(
      'apps: ["*", app_1, app_2], segments: ["*", seg_1, seg_2]',
      'apps: ["*", app_1], segments: ["*"]',
    );
    const constant = await PipelineFixture.create({ now: NOW, pipeline });
    const jumping = await PipelineFixture.create({ now: NOW, pipeline });
    fixtures.push(constant, jumping);
    const [steady, jump] = [
      await HostileProxy.create(constant.emulator.url),
      await HostileProxy.create(jumping.emulator.url),
    ];
    try {
      steady.latencyMs = 2_000;
      const steadyCounter = inFlightCounter();
      let started = performance.now();
      const steadySummary = await constant.run(
        { baseUrl: steady.url },
        { client: { onEvent: steadyCounter.onEvent }, scheduler: { pools } },
      );
      const steadyMs = performance.now() - started;

      // 20 ms for the first 16 requests, 2 s for every later one.
      jump.latencyMs = 20;
      let sent = 0;
      const counter = inFlightCounter();
      const onEvent = (e: ClientEvent): void => {
        counter.onEvent(e);
        if (e.type === 'request-started' && ++sent === 16) jump.latencyMs = 2_000;
      };
      started = performance.now();
      const jumpSummary = await jumping.run({ baseUrl: jump.url }, { client: { onEvent }, scheduler: { pools } });
      const jumpMs = performance.now() - started;

      expect(steadySummary.requests.byPool).toEqual({ default: 352 });
      expect(jumpSummary.requests.byPool).toEqual({ default: 352 });
      expect(jumpSummary.requests.retries).toBe(0);
      // Grown back one place per round trip from 8, the 336 requests after the jump would have peaked near 30 in flight
      // and taken about 40 s.
      expect(
        counter.peak(),
        `peak in flight ${counter.peak()} (constant 2 s: ${steadyCounter.peak()})`,
      ).toBeGreaterThanOrEqual(50);
      expect(
        jumpMs,
        `constant 2 s: ${Math.round(steadyMs)} ms, 20 ms → 2 s: ${Math.round(jumpMs)} ms`,
      ).toBeLessThanOrEqual(1.2 * steadyMs);
      expect(await jumping.allTablesData()).toEqual(await constant.allTablesData());
    } finally {
      await steady.close();
      await jump.close();
    }
  }, 120_000);
});
