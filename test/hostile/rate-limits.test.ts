// Hostile rate-limit advice: absurd, past, garbage and far-future resets, per-second and per-minute gateways, Retry-After
// in every form, odd header case. Every case ends within a bound, never overflows a timer, and announces long waits.
import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../src/api/endpoints.js';
import { sleep } from '../../src/api/sleep.js';
import { json, TestServer } from '../api/helpers/test-server.js';
import { expectOneLineError, hostileClient, within } from './hostile-kit.js';

const call = {
  endpoint: ENDPOINTS.purchasesQuantitySeries,
  query: { length: 1, ending_at: '2025-06-14T00:00:00Z', unit: 'day' },
};
const ok = (res: ServerResponse, headers: Record<string, string> = {}) =>
  json(res, 200, { message: 'success', data: [] }, headers);

let server: TestServer;
beforeEach(async () => {
  server = await TestServer.create();
});
afterEach(async () => {
  await server.close();
});

describe('a hostile X-RateLimit-Reset', () => {
  it.each([
    ['99999999999 (the year 5138)', () => '99999999999'],
    ['ten days ahead', (now: number) => String(Math.floor(now / 1000) + 10 * 86_400)],
    ['2^53 milliseconds', () => String(2 ** 53)],
  ])('with Remaining 0 and a reset %s fails the next request at once, quoting the server', async (_name, reset) => {
    const { client, clock, events } = hostileClient(server.url);
    server.handle((_req, res) =>
      ok(res, { 'X-RateLimit-Limit': '1000', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': reset(clock.now()) }),
    );
    await client.request(call);
    const error = await within(2_000, client.request(call));
    expectOneLineError(
      error,
      /limit pool "purchases_events": the server said X-RateLimit-Limit: 1000, X-RateLimit-Remaining: 0, X-RateLimit-Reset: \d+; .*over the longest wait allowed \(--max-wait, maxWaitMs: 65 min\); no request was sent/,
    );
    expect(server.requests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
    expect(events.some((e) => e.type === 'waiting')).toBe(false);
  });

  it('in the past does not hold requests back: the stale advice expires at once', async () => {
    const { client, clock } = hostileClient(server.url);
    server.handle((_req, res) =>
      ok(res, { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(Math.floor(clock.now() / 1000) - 3_600) }),
    );
    const error = await within(2_000, Promise.all(Array.from({ length: 5 }, () => client.request(call))));
    expect(error).toBeUndefined();
    expect(server.requests).toHaveLength(5);
    expect(clock.sleeps).toEqual([]);
  });

  it('that is garbage makes an exhausted pool wait its own window, announced, then go on', async () => {
    const { client, clock, events } = hostileClient(server.url);
    server.handle((_req, res, i) =>
      ok(res, i === 0 ? { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': 'soon-ish' } : {}),
    );
    const start = clock.now();
    await client.request(call);
    expect(await within(2_000, client.request(call))).toBeUndefined();
    expect(server.requests).toHaveLength(2);
    expect(clock.now() - start).toBe(3_600_000);
    const waiting = events.find((e) => e.type === 'waiting');
    expect(waiting).toMatchObject({
      type: 'waiting',
      pool: 'purchases_events',
      remaining: 0,
      resumesAt: start + 3_600_000,
      reason: 'the server said X-RateLimit-Remaining: 0, X-RateLimit-Reset: soon-ish',
    });
  });

  it('beyond a --max-wait the user chose fails at once, naming the wait and the cap', async () => {
    const { client, clock } = hostileClient(server.url, {}, { maxWaitMs: 60_000 });
    server.handle((_req, res) =>
      ok(res, { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(Math.floor(clock.now() / 1000) + 600) }),
    );
    await client.request(call);
    const error = await within(2_000, client.request(call));
    expectOneLineError(
      error,
      /the next request could go at 2025-06-15T12:10:00\.000Z, a wait of 10 min, over the longest wait allowed \(--max-wait, maxWaitMs: 60 s\)/,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('in odd header case is still read, and the wait is announced', async () => {
    const { client, clock, events } = hostileClient(server.url);
    server.handle((_req, res, i) =>
      ok(
        res,
        i === 0
          ? { 'x-RATELIMIT-remaining': '0', 'X-RateLimit-RESET': String(Math.floor(clock.now() / 1000) + 30) }
          : {},
      ),
    );
    const start = clock.now();
    await client.request(call);
    expect(await within(2_000, client.request(call))).toBeUndefined();
    expect(clock.now() - start).toBe(30_000);
    expect(events.filter((e) => e.type === 'waiting')).toHaveLength(1);
  });
});

describe('a gateway that counts over its own window', () => {
  /** Answers like a gateway allowing `limit` requests per `windowMs` of the fake clock, and 429 past it. */
  function gateway(clock: { now(): number }, limit: number, windowMs: number): { rejected: () => number } {
    let rejected = 0;
    const counts = new Map<number, number>();
    server.handle((_req, res) => {
      const window = Math.floor(clock.now() / windowMs);
      const used = (counts.get(window) ?? 0) + 1;
      counts.set(window, used);
      const headers = {
        'X-RateLimit-Limit': String(limit),
        'X-RateLimit-Remaining': String(Math.max(0, limit - used)),
        'X-RateLimit-Reset': String(Math.ceil(((window + 1) * windowMs) / 1000)),
      };
      if (used > limit) {
        rejected++;
        json(res, 429, { message: 'rate limited' }, headers);
      } else ok(res, headers);
    });
    return { rejected: () => rejected };
  }

  it('of one second (Limit 10, Reset now + 1 s) gets 72 requests through in about 7 s, not 7 hours', async () => {
    const { client, clock, events } = hostileClient(server.url);
    const gw = gateway(clock, 10, 1_000);
    const start = clock.now();
    expect(await within(5_000, Promise.all(Array.from({ length: 72 }, () => client.request(call))))).toBeUndefined();
    expect(server.requests).toHaveLength(72);
    expect(gw.rejected()).toBe(0);
    expect(clock.now() - start).toBeLessThanOrEqual(8_000);
    expect(Math.max(...clock.sleeps)).toBeLessThanOrEqual(1_000);
    expect(events.filter((e) => e.type === 'waiting')).toEqual([]);
  });

  it('of one minute paces 12 requests over two windows and announces each wait', async () => {
    const { client, clock, events } = hostileClient(server.url);
    const gw = gateway(clock, 5, 60_000);
    const start = clock.now();
    expect(await within(5_000, Promise.all(Array.from({ length: 12 }, () => client.request(call))))).toBeUndefined();
    expect(gw.rejected()).toBe(0);
    expect(clock.now() - start).toBeLessThanOrEqual(125_000);
    const waits = events.filter((e) => e.type === 'waiting');
    expect(waits.length).toBeGreaterThanOrEqual(2);
    for (const w of waits) expect(w).toMatchObject({ pool: 'purchases_events', remaining: 0 });
  });
});

describe('Retry-After', () => {
  it('huge (999999999 s) gives up at once, quoting it, without a second request', async () => {
    const { client } = hostileClient(server.url);
    server.handle((_req, res) => json(res, 429, { message: 'slow down' }, { 'Retry-After': '999999999' }));
    const error = await within(2_000, client.request(call));
    expectOneLineError(
      error,
      /the server asked to wait 999999999000 ms, which would exceed the retry wait budget.*Retry-After: 999999999/,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('of ten minutes, within --max-wait, is obeyed (not given up on) and the request then succeeds', async () => {
    const { client, clock } = hostileClient(server.url);
    server.handle((_req, res, i) =>
      i === 0 ? json(res, 429, { message: 'slow down' }, { 'Retry-After': '600' }) : ok(res),
    );
    expect(await within(2_000, client.request(call))).toBeUndefined();
    expect(clock.sleeps).toContain(600_000);
    expect(server.requests).toHaveLength(2);
  });

  it('longer than --max-wait gives up at once, naming the cap', async () => {
    const { client } = hostileClient(server.url, {}, { maxWaitMs: 300_000 });
    server.handle((_req, res) => json(res, 429, { message: 'slow down' }, { 'Retry-After': '600' }));
    expectOneLineError(
      await within(2_000, client.request(call)),
      /the server asked to wait 600000 ms.*a 429's advice may use up to --max-wait, 5 min.*Retry-After: 600/,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('negative is taken as "now": the retry goes at once and succeeds', async () => {
    const { client, clock } = hostileClient(server.url);
    server.handle((_req, res, i) =>
      i === 0 ? json(res, 429, { message: 'slow down' }, { 'Retry-After': '-30' }) : ok(res),
    );
    expect(await within(2_000, client.request(call))).toBeUndefined();
    expect(server.requests).toHaveLength(2);
    expect(clock.sleeps).toEqual([0]);
  });

  it('as an HTTP date is waited for exactly, then the request succeeds', async () => {
    const { client, clock, events } = hostileClient(server.url);
    server.handle((_req, res, i) =>
      i === 0
        ? json(res, 429, { message: 'slow down' }, { 'Retry-After': new Date(clock.now() + 90_000).toUTCString() })
        : ok(res),
    );
    expect(await within(2_000, client.request(call))).toBeUndefined();
    expect(clock.sleeps).toContain(90_000);
    expect(events).toContainEqual(expect.objectContaining({ type: 'retry-scheduled', waitMs: 90_000 }));
  });

  it('as garbage falls back to backoff and the retries stay bounded', async () => {
    const { client } = hostileClient(server.url, { backoffBaseMs: 10 });
    server.handle((_req, res) => json(res, 429, { message: 'slow down' }, { 'Retry-After': 'whenever' }));
    const error = await within(2_000, client.request(call));
    expectOneLineError(error, /gave up: all 3 attempts failed/);
    expect(server.requests).toHaveLength(3);
  });
});

describe('the default sleep', () => {
  it('waits longer than a Node timer can hold without a TimeoutOverflowWarning, and stops when aborted', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const stop = new AbortController();
      const waiting = sleep(3e9, stop.signal);
      setTimeout(() => stop.abort(), 20);
      await expect(
        within(
          2_000,
          waiting.then(() => 'resolved'),
        ),
      ).resolves.toBeInstanceOf(Error);
      await new Promise((r) => setTimeout(r, 10));
      expect(warnings).not.toContain('TimeoutOverflowWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });
});
