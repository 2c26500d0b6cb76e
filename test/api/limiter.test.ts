// The client-side limiter (the pools of the scheduler a client is handed) seen from a real server: per-window counts never
// exceed a pool, shared pools share one budget, an exhausted pool does not hold up another, and the server's own (lower)
// view wins.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/api-client.js';
import type { ApiClientOptions, ClientEvent } from '../../src/api/api-client-options.js';
import { ENDPOINTS } from '../../src/api/endpoints.js';
import { RequestScheduler, type RequestSchedulerOptions } from '../../src/api/request-scheduler.js';
import { parseResetValue, readRateLimitAdvice, readRetryAfterMs } from '../../src/api/rate-limit-headers.js';
import { VirtualClock } from '../helpers/virtual-clock.js';
import { FakeClock, json, TestServer } from './helpers/test-server.js';

let server: TestServer;
const clients: ApiClient[] = [];
const schedulers: RequestScheduler[] = [];

/** A client handed a scheduler of its own, on the client's clock. */
function makeClient(
  opts: Partial<ApiClientOptions>,
  scheduling: RequestSchedulerOptions = {},
): { client: ApiClient; scheduler: RequestScheduler } {
  const scheduler = RequestScheduler.create({
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.sleep ? { sleep: opts.sleep } : {}),
    ...scheduling,
  });
  schedulers.push(scheduler);
  const client = ApiClient.create({ baseUrl: server.url, apiKey: 'k-limiter-5e1d9c3b7a20', ...opts, scheduler });
  clients.push(client);
  return { client, scheduler };
}

/** The largest number of requests sent within any window of `windowMs`, by the instants they started at. */
function maxInAnyWindow(starts: readonly number[], windowMs: number): number {
  const times = [...starts].sort((a, b) => a - b);
  let max = 0;
  for (let i = 0; i < times.length; i++) {
    let n = 0;
    for (let j = i; j < times.length && (times[j] as number) < (times[i] as number) + windowMs; j++) n++;
    max = Math.max(max, n);
  }
  return max;
}

beforeEach(async () => {
  server = await TestServer.create();
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const scheduler of schedulers.splice(0)) scheduler.close();
  await server.close();
});

/** A client on a virtual clock (its windows pass at once, in order), recording the virtual instant each request starts. */
function virtualClient(scheduling: RequestSchedulerOptions): { client: ApiClient; starts: number[] } {
  const clock = new VirtualClock();
  const starts: number[] = [];
  const onEvent = (e: ClientEvent): void => {
    clock.observe(e);
    if (e.type === 'request-started') starts.push(clock.now());
  };
  return { client: makeClient({ now: clock.now, sleep: clock.sleep, onEvent }, scheduling).client, starts };
}

describe('limit pools against a real server', () => {
  it('never lets more requests than the limit start within one window', async () => {
    const { client, starts } = virtualClient({ pools: { cdi: { limit: 3, windowMs: 60_000 } } });
    await Promise.all(Array.from({ length: 9 }, () => client.request({ endpoint: ENDPOINTS.cdiIntegrations })));
    expect(server.requests).toHaveLength(9);
    // At most three in any minute, so the nine take three windows: they start at 0, 60 s and 120 s of virtual time.
    expect(maxInAnyWindow(starts, 60_000)).toBe(3);
    expect(Math.max(...starts) - Math.min(...starts)).toBeGreaterThanOrEqual(120_000);
  });

  it('makes purchases and the events list draw from one shared budget', async () => {
    const { client, starts } = virtualClient({ pools: { purchases_events: { limit: 2, windowMs: 3_600_000 } } });
    await Promise.all([
      client.request({ endpoint: ENDPOINTS.purchasesQuantitySeries, query: { length: 1 } }),
      client.request({ endpoint: ENDPOINTS.purchasesRevenueSeries, query: { length: 1 } }),
      client.request({ endpoint: ENDPOINTS.eventsList }),
      client.request({ endpoint: ENDPOINTS.purchasesQuantitySeries, query: { length: 2 } }),
    ]);
    expect(new Set(server.requests.map((r) => r.path)).size).toBe(3);
    // Four requests of three endpoints, two per hour: one budget, so two hours.
    expect(maxInAnyWindow(starts, 3_600_000)).toBe(2);
    expect(Math.max(...starts) - Math.min(...starts)).toBeGreaterThanOrEqual(3_600_000);
  });

  it('keeps serving other pools while one pool waits for its window', async () => {
    const { client, scheduler } = makeClient({}, { pools: { cdi: { limit: 1, windowMs: 60_000 } } });
    await client.request({ endpoint: ENDPOINTS.cdiIntegrations });
    let blockedSettled = false;
    const blocked = client.request({ endpoint: ENDPOINTS.cdiIntegrations });
    blocked.then(
      () => (blockedSettled = true),
      () => (blockedSettled = true),
    );
    await client.request({ endpoint: ENDPOINTS.sessionsDataSeries, query: { length: 1 } });
    await client.request({ endpoint: ENDPOINTS.segmentsDataSeries, query: { length: 1 } });
    // The default pool's requests were answered while the cdi request still waits for its window.
    expect(blockedSettled).toBe(false);
    const snapshot = scheduler.snapshot();
    expect(snapshot.cdi).toMatchObject({ used: 1, remaining: 0, waiting: 1 });
    expect(snapshot.cdi.resetAt).toBeGreaterThan(Date.now() + 50_000);
    expect(snapshot.default).toMatchObject({ used: 2, remaining: 249_998, waiting: 0 });
    expect(server.requests.filter((r) => r.path === '/cdi/integrations')).toHaveLength(1);
    await client.close();
    await expect(blocked).rejects.toThrow(/closed while the request waited/);
  });

  it('is one budget for every client handed the same scheduler; a closing client takes back only its own waiting requests', async () => {
    const scheduler = RequestScheduler.create({ pools: { cdi: { limit: 1, windowMs: 60_000 } } });
    schedulers.push(scheduler);
    const [a, b] = [0, 1].map(() =>
      ApiClient.create({ baseUrl: server.url, apiKey: 'k-limiter-5e1d9c3b7a20', scheduler }),
    ) as [ApiClient, ApiClient];
    clients.push(a, b);
    await a.request({ endpoint: ENDPOINTS.cdiIntegrations });
    const fromA = a.request({ endpoint: ENDPOINTS.cdiIntegrations });
    const fromB = b.request({ endpoint: ENDPOINTS.cdiIntegrations });
    const settledB = fromB.then(
      () => 'sent',
      (error: Error) => error.message,
    );
    await new Promise((r) => setTimeout(r, 20));
    expect(scheduler.snapshot().cdi).toMatchObject({ used: 1, remaining: 0, waiting: 2 });
    await a.close();
    await expect(fromA).rejects.toThrow(/closed while the request waited/);
    // B's request still waits for the window A spent: the scheduler is not A's to close.
    expect(scheduler.snapshot().cdi).toMatchObject({ used: 1, waiting: 1 });
    scheduler.close();
    expect(await settledB).toMatch(/closed while the request waited/);
    expect(server.requests).toHaveLength(1);
  });
});

describe('adapting to the server', () => {
  it('waits for the server reset when the server says fewer remain than the local count', async () => {
    const clock = new FakeClock();
    server.handle((_req, res, i) =>
      json(
        res,
        200,
        { message: 'success' },
        i === 0 ? { 'x-RateLimit-remaining': '0', 'X-RATELIMIT-RESET': String(clock.now() + 5000) } : {},
      ),
    );
    const { client, scheduler } = makeClient({ sleep: clock.sleep, now: clock.now });
    await client.request({ endpoint: ENDPOINTS.canvasDetails });
    expect(scheduler.snapshot().default.remaining).toBe(0);
    await client.request({ endpoint: ENDPOINTS.canvasDetails });
    expect(clock.sleeps).toEqual([5000]);
    expect(server.requests).toHaveLength(2);
  });

  it.each([
    { case: 'adopts a lower X-RateLimit-Limit as the pool limit', configured: 100, declared: '2' },
    { case: 'keeps a configured limit as a cap when the server declares a larger one', configured: 2, declared: '500' },
  ])('$case', async ({ configured, declared }) => {
    const clock = new FakeClock();
    server.handle((_req, res) => json(res, 200, { message: 'success' }, { 'X-Ratelimit-Limit': declared }));
    const { client, scheduler } = makeClient(
      { sleep: clock.sleep, now: clock.now },
      { pools: { default: { limit: configured, windowMs: 10_000 } } },
    );
    for (let i = 0; i < 3; i++) await client.request({ endpoint: ENDPOINTS.canvasDetails });
    expect(scheduler.snapshot().default.limit).toBe(2);
    expect(clock.sleeps).toHaveLength(1);
    expect(clock.sleeps[0]).toBeGreaterThan(9000);
  });

  it('takes a larger X-RateLimit-Limit for the documented default, and paces by it', async () => {
    const clock = new FakeClock();
    // A workspace whose purchases pool was raised from the documented 1,000 an hour to 3,000, counted in fixed hours as
    // the live service does: its reset is never a full hour away.
    const hourEnd = clock.now() + 2_400_000;
    const reset = () => String(Math.ceil(hourEnd / 1000));
    server.handle((_req, res) =>
      json(res, 200, { message: 'success' }, { 'X-Ratelimit-Limit': '3000', 'X-Ratelimit-Reset': reset() }),
    );
    const { client, scheduler } = makeClient({ sleep: clock.sleep, now: clock.now });
    scheduler.expect({ purchases_events: 10_000 });
    for (let i = 0; i < 4; i++) await client.request({ endpoint: ENDPOINTS.eventsList });
    expect(scheduler.snapshot().purchases_events.limit).toBe(3000);
    // Paced at the declared rate (one every 1.2 s), not the documented one (one every 3.6 s).
    expect(clock.sleeps.length).toBeGreaterThan(0);
    for (const ms of clock.sleeps) expect(ms).toBeLessThanOrEqual(1_200);
  });

  it('raises no pool by a larger limit the server counts over a longer window (250,000 an hour for 50 a minute)', async () => {
    const clock = new FakeClock();
    const reset = () => String(Math.ceil((clock.now() + 50 * 60_000) / 1000));
    server.handle((_req, res) =>
      json(res, 200, { message: 'success' }, { 'X-Ratelimit-Limit': '250000', 'X-Ratelimit-Reset': reset() }),
    );
    const { client, scheduler } = makeClient({ sleep: clock.sleep, now: clock.now });
    for (let i = 0; i < 3; i++) await client.request({ endpoint: ENDPOINTS.cdiIntegrations });
    expect(scheduler.snapshot().cdi.limit).toBe(50);
  });

  it('ignores the empty X-Ratelimit-* values the live service sends on a 401', async () => {
    const clock = new FakeClock();
    server.handle((_req, res) =>
      json(
        res,
        200,
        { message: 'success' },
        { 'X-Ratelimit-Limit': '', 'X-Ratelimit-Remaining': '', 'X-Ratelimit-Reset': '' },
      ),
    );
    const { client, scheduler } = makeClient({ sleep: clock.sleep, now: clock.now });
    for (let i = 0; i < 3; i++) await client.request({ endpoint: ENDPOINTS.canvasDetails });
    expect(clock.sleeps).toEqual([]);
    expect(scheduler.snapshot().default.limit).toBe(250_000);
  });

  it('holds the whole pool after a 429 that says how long', async () => {
    const clock = new FakeClock();
    server.handle((_req, res, i) =>
      i === 0 ? json(res, 429, {}, { 'Retry-After': '20' }) : json(res, 200, { message: 'success' }),
    );
    const { client, scheduler } = makeClient({ sleep: clock.sleep, now: clock.now });
    const first = client.request({ endpoint: ENDPOINTS.eventsList });
    await first;
    expect(scheduler.snapshot().purchases_events.used).toBe(2);
    expect(clock.sleeps).toEqual([20_000]);
  });
});

describe('reading rate-limit headers', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  const headers = (h: Record<string, string>): Headers => new Headers(h);

  it('reads reset values as epoch seconds, epoch milliseconds, seconds from now or an HTTP date', () => {
    expect(parseResetValue(String(now / 1000 + 30), now)).toBe(now + 30_000);
    expect(parseResetValue(String(now + 1234), now)).toBe(now + 1234);
    expect(parseResetValue('45', now)).toBe(now + 45_000);
    expect(parseResetValue('Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(now + 60_000);
    expect(parseResetValue('', now)).toBeUndefined();
  });

  it('prefers Retry-After over X-RateLimit-Reset and never returns a negative wait', () => {
    expect(readRetryAfterMs(headers({ 'Retry-After': '3', 'X-RateLimit-Reset': String(now / 1000 + 60) }), now)).toBe(
      3000,
    );
    expect(readRetryAfterMs(headers({ 'X-RateLimit-Reset': String(now / 1000 - 60) }), now)).toBe(0);
    expect(readRetryAfterMs(headers({}), now)).toBeUndefined();
  });

  it('ignores empty and non-numeric X-RateLimit values', () => {
    expect(readRateLimitAdvice(headers({ 'X-Ratelimit-Limit': '', 'X-Ratelimit-Remaining': 'lots' }), now)).toEqual({});
    expect(
      readRateLimitAdvice(
        headers({
          'x-ratelimit-limit': '250000',
          'x-ratelimit-remaining': '249996',
          'x-ratelimit-reset': '1592427600',
        }),
        now,
      ),
    ).toEqual({
      limit: 250_000,
      remaining: 249_996,
      resetAt: 1_592_427_600_000,
      said: 'X-RateLimit-Limit: 250000, X-RateLimit-Remaining: 249996, X-RateLimit-Reset: 1592427600',
    });
  });
});

describe('withdrawing waiters', () => {
  it("takes out only the waiters of the aborted signal, rejected, and keeps another signal's in their order", async () => {
    const scheduler = RequestScheduler.create({ pools: { purchases_events: { limit: 1, windowMs: 3_600_000 } } });
    schedulers.push(scheduler);
    const first = await scheduler.admit('purchases_events');
    const a = new AbortController();
    const b = new AbortController();
    const outcomes: string[] = [];
    const waiting = [a, b, a, b, a].map((c, i) =>
      scheduler.admit('purchases_events', c.signal).then(
        () => outcomes.push(`granted ${i}`),
        () => outcomes.push(`withdrawn ${i}`),
      ),
    );
    a.abort();
    await Promise.all(waiting.filter((_, i) => i % 2 === 0));
    expect(outcomes).toEqual(['withdrawn 0', 'withdrawn 2', 'withdrawn 4']);
    expect(scheduler.snapshot().purchases_events.waiting).toBe(2);
    b.abort();
    await Promise.all(waiting);
    expect(outcomes.slice(3)).toEqual(['withdrawn 1', 'withdrawn 3']);
    first.release('ok');
  });
});
