// The client against a real HTTP server on port 0: what it sends, which failures it retries and how long it waits,
// which it refuses at once, and that the key never leaks into an error or an event.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/api-client.js';
import type { ApiClientOptions, ClientEvent } from '../../src/api/api-client-options.js';
import { ENDPOINTS } from '../../src/api/endpoints.js';
import { RequestScheduler, type RequestSchedulerOptions } from '../../src/api/request-scheduler.js';
import { ConfigError, FatalApiError, FatalError, RetriableApiError } from '../../src/errors.js';
import { FakeClock, json, TestServer } from './helpers/test-server.js';

const KEY = 'sk-live-7f3a9c0d-SECRET';
const SCIM = 'scim-token-XYZ-987';

let server: TestServer;
let clock: FakeClock;
let events: ClientEvent[];
const clients: ApiClient[] = [];
const schedulers: RequestScheduler[] = [];

/** A client on the fake clock, handed a scheduler on the same clock (its pools, waits and in-flight cap from `scheduling`). */
function makeClient(extra: Partial<ApiClientOptions> = {}, scheduling: RequestSchedulerOptions = {}): ApiClient {
  const scheduler = RequestScheduler.create({ sleep: clock.sleep, now: clock.now, ...scheduling });
  schedulers.push(scheduler);
  const client = ApiClient.create({
    baseUrl: server.url,
    apiKey: KEY,
    scimToken: SCIM,
    requestOrigin: 'https://dash.example.com',
    sleep: clock.sleep,
    now: clock.now,
    onEvent: (e) => events.push(e),
    scheduler,
    ...extra,
  });
  clients.push(client);
  return client;
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the request to fail, but it succeeded');
}

beforeEach(async () => {
  server = await TestServer.create();
  clock = new FakeClock();
  events = [];
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const scheduler of schedulers.splice(0)) scheduler.close();
  await server.close();
});

describe('what the client sends', () => {
  it('sends the bearer key, Accept, and a JSON body with its content type, to the base URL with its path prefix kept', async () => {
    const client = makeClient({ baseUrl: `${server.url}/prefix/` });
    await client.request({
      endpoint: ENDPOINTS.catalogItemEdit,
      pathParams: { catalog_name: 'rest aurants', item_id: 'a/b' },
      body: { items: [{ x: 1 }] },
    });
    const [req] = server.requests;
    expect(req?.method).toBe('PATCH');
    expect(req?.url).toBe('/prefix/catalogs/rest%20aurants/items/a%2Fb');
    expect(req?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req?.headers.accept).toBe('application/json');
    expect(req?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req?.body ?? '')).toEqual({ items: [{ x: 1 }] });
  });

  it('sends no Content-Type without a body, drops undefined query values and writes booleans literally', async () => {
    const client = makeClient();
    await client.request({
      endpoint: ENDPOINTS.contentBlockInfo,
      query: { content_block_id: 'cb 1', include_inclusion_data: false, other: undefined },
    });
    const [req] = server.requests;
    expect(req?.headers['content-type']).toBeUndefined();
    expect(req?.url).toBe('/content_blocks/info?content_block_id=cb+1&include_inclusion_data=false');
  });

  it('authenticates SCIM endpoints with the SCIM token and X-Request-Origin, not the API key', async () => {
    server.handle((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    const client = makeClient();
    const response = await client.request({ endpoint: ENDPOINTS.scimUserDelete, pathParams: { id: 'u-1' } });
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${SCIM}`);
    expect(server.requests[0]?.headers['x-request-origin']).toBe('https://dash.example.com');
  });

  it('refuses a SCIM call without a SCIM token, and a missing path parameter, before sending anything', async () => {
    const client = makeClient({ scimToken: undefined });
    await expect(client.request({ endpoint: ENDPOINTS.scimUserDelete, pathParams: { id: 'u-1' } })).rejects.toThrow(
      ConfigError,
    );
    await expect(
      client.request({ endpoint: ENDPOINTS.catalogItemEdit, pathParams: { catalog_name: 'c' } }),
    ).rejects.toThrow(/:item_id/);
    expect(server.requests).toHaveLength(0);
  });

  it('rejects bad options with a ConfigError naming the option', () => {
    expect(() => ApiClient.create({ baseUrl: 'not a url', apiKey: KEY })).toThrow(/baseUrl/);
    expect(() => ApiClient.create({ baseUrl: server.url, apiKey: '' })).toThrow(/apiKey/);
    expect(() => ApiClient.create({ baseUrl: server.url, apiKey: 'abc\n' })).toThrow(
      /apiKey: the REST API key contains a space or control character/,
    );
    expect(() => ApiClient.create({ baseUrl: server.url, apiKey: KEY, maxAttempts: 0 })).toThrow(/maxAttempts/);
    expect(() => RequestScheduler.create({ pools: { cdi: { limit: 0, windowMs: 10 } } })).toThrow(/pools\.cdi\.limit/);
  });
});

describe('retries', () => {
  it.each([
    ['Retry-After', '7', 7000],
    ['retry-after', '2.5', 2500],
    ['X-RateLimit-Reset', 'seconds', 9000],
    ['x-ratelimit-reset', 'millis', 4000],
    ['X-RATELIMIT-RESET', 'seconds', 3000],
  ])('waits as a 429 with %s (%s) asks, then succeeds', async (header, kind, expectedMs) => {
    server.handle((_req, res, i) => {
      if (i > 0) return json(res, 200, { message: 'success', n: i });
      let value = kind;
      if (kind === 'seconds') value = String((clock.now() + expectedMs) / 1000);
      if (kind === 'millis') value = String(clock.now() + expectedMs);
      return json(res, 429, { message: 'Too many requests' }, { [header]: value });
    });
    clock.t = Math.floor(clock.t / 1000) * 1000;
    const client = makeClient();
    const response = await client.request<{ n: number }>({
      endpoint: ENDPOINTS.canvasDetails,
      query: { canvas_id: 'c1' },
    });
    expect(response.body.n).toBe(1);
    expect(response.attempts).toBe(2);
    expect(clock.sleeps).toEqual([expectedMs]);
    expect(events.find((e) => e.type === 'retry-scheduled')).toMatchObject({ waitMs: expectedMs, attempt: 1 });
  });

  it('honours a Retry-After given as an HTTP date', async () => {
    clock.t = Date.parse('2026-03-01T10:00:00Z');
    server.handle((_req, res, i) =>
      i === 0
        ? json(res, 429, {}, { 'Retry-After': 'Sun, 01 Mar 2026 10:00:30 GMT' })
        : json(res, 200, { message: 'success' }),
    );
    await makeClient().request({ endpoint: ENDPOINTS.eventsList });
    expect(clock.sleeps).toEqual([30_000]);
  });

  it('never retries faster than backoff after the first retry, even when the server says to wait 0', async () => {
    server.handle((_req, res, i) =>
      i < 2 ? json(res, 429, {}, { 'Retry-After': '0' }) : json(res, 200, { message: 'success' }),
    );
    await makeClient({ backoffBaseMs: 1000 }).request({ endpoint: ENDPOINTS.eventsList });
    expect(clock.sleeps[0]).toBe(0);
    expect(clock.sleeps[1]).toBeGreaterThanOrEqual(1000);
  });

  it('retries 500 and 503 with growing backoff, then returns the success', async () => {
    server.handle((_req, res, i) =>
      i < 2 ? json(res, i === 0 ? 500 : 503, { message: 'oops' }) : json(res, 200, { message: 'success' }),
    );
    const response = await makeClient({ backoffBaseMs: 1000 }).request({ endpoint: ENDPOINTS.eventsList });
    expect(response.attempts).toBe(3);
    expect(clock.sleeps).toHaveLength(2);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(500);
    expect(clock.sleeps[0]).toBeLessThanOrEqual(1000);
    expect(clock.sleeps[1]).toBeGreaterThanOrEqual(1000);
    expect(clock.sleeps[1]).toBeLessThanOrEqual(2000);
  });

  it('retries a connection reset', async () => {
    server.handle((_req, res, i) => {
      if (i === 0) return void res.socket?.destroy();
      json(res, 200, { message: 'success' });
    });
    const response = await makeClient().request({ endpoint: ENDPOINTS.eventsList });
    expect(response.attempts).toBe(2);
    expect(
      events.some(
        (e) => e.type === 'request-finished' && e.status === undefined && /connection failed/.test(e.error ?? ''),
      ),
    ).toBe(true);
  });

  it('does not count a refused connection against its pool: a server gone away ends the run after its attempts, not after the window', async () => {
    const gone = await TestServer.create();
    const url = gone.url;
    await gone.close();
    const pools = { purchases_events: { limit: 2, windowMs: 3_600_000 } };
    const error = await failure(
      makeClient({ baseUrl: url, maxAttempts: 5, backoffBaseMs: 100, backoffMaxMs: 1000 }, { pools }).request({
        endpoint: ENDPOINTS.eventsList,
      }),
    );
    expect(error).toBeInstanceOf(RetriableApiError);
    expect(error.message).toMatch(/all 5 attempts failed[\s\S]*connection failed: ECONNREFUSED/);
    // Four backoffs of at most a second: counted, the two refused attempts would have filled the pool, and the third
    // would have waited out the hour.
    expect(clock.sleeps).toHaveLength(4);
    expect(Math.max(...clock.sleeps)).toBeLessThanOrEqual(1000);
  });

  it('counts an attempt the server answered, even with a reset: the pool waits out its window', async () => {
    server.handle((_req, res, i) => (i < 2 ? void res.socket?.destroy() : json(res, 200, { message: 'success' })));
    const client = makeClient(
      { backoffBaseMs: 100, backoffMaxMs: 1000 },
      { pools: { purchases_events: { limit: 2, windowMs: 60_000 } } },
    );
    const response = await client.request({ endpoint: ENDPOINTS.eventsList });
    expect(response.attempts).toBe(3);
    expect(Math.max(...clock.sleeps)).toBeGreaterThanOrEqual(59_000);
  });

  it('retries an attempt that gets no answer within timeoutMs', async () => {
    server.handle((_req, res, i) => {
      if (i === 0) return; // never answers
      json(res, 200, { message: 'success' });
    });
    const response = await makeClient({ timeoutMs: 150 }).request({ endpoint: ENDPOINTS.eventsList });
    expect(response.attempts).toBe(2);
    expect(events.find((e) => e.type === 'retry-scheduled')).toMatchObject({
      reason: expect.stringMatching(/timeoutMs=150/),
    });
  });

  it('retries a 200 whose body is cut short, and one whose body is not complete JSON', async () => {
    server.handle((_req, res, i) => {
      if (i === 0) {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '100' });
        res.write('{"message":"succ');
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      }
      if (i === 1) {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end('{"message":"success","data":[');
        return;
      }
      json(res, 200, { message: 'success' });
    });
    const response = await makeClient().request({ endpoint: ENDPOINTS.eventsList });
    expect(response.attempts).toBe(3);
    const reasons = events
      .filter((e) => e.type === 'retry-scheduled')
      .map((e) => (e.type === 'retry-scheduled' ? e.reason : ''));
    expect(reasons[0]).toMatch(/cut short/);
    expect(reasons[1]).toMatch(/not complete JSON/);
  });

  it('stops after maxAttempts and says how many attempts were made', async () => {
    server.handle((_req, res) => json(res, 503, { message: 'down for maintenance' }));
    const error = await failure(
      makeClient({ maxAttempts: 3 }).request({ endpoint: ENDPOINTS.sessionsDataSeries, query: { length: 3 } }),
    );
    expect(error).toBeInstanceOf(RetriableApiError);
    expect(error.message).toMatch(/all 3 attempts failed/);
    expect(error.message).toMatch(/GET \/sessions\/data_series \{"length":3\}/);
    expect(error.message).toMatch(/down for maintenance/);
    expect((error as RetriableApiError).status).toBe(503);
    expect(server.requests).toHaveLength(3);
  });

  it('stops when the next wait would exceed maxRetryWaitMs, without waiting it', async () => {
    server.handle((_req, res) => json(res, 429, { message: 'slow down' }, { 'Retry-After': '50' }));
    // A 429's advice may use up to the pool's --max-wait; cap both at two minutes to test the budget.
    const error = await failure(
      makeClient({ maxRetryWaitMs: 120_000 }, { maxWaitMs: 120_000 }).request({ endpoint: ENDPOINTS.eventsList }),
    );
    expect(error).toBeInstanceOf(RetriableApiError);
    expect(error.message).toMatch(/3 attempts made; the server asked to wait 50000 ms/);
    expect(error.message).toMatch(/retry wait budget of 120000 ms \(100000 ms already waited[;)]/);
    expect(clock.sleeps).toEqual([50_000, 50_000]);
    expect(server.requests).toHaveLength(3);
  });
});

describe('fatal answers', () => {
  it.each([
    [400, { message: 'canvas_id must be a string' }, /server said "canvas_id must be a string" — check the parameters/],
    [401, { message: `Invalid API key: ${KEY}` }, /check the API key and its permissions \(canvas\.details\)/],
    [403, { message: 'forbidden' }, /check the API key and its permissions \(canvas\.details\)/],
    [404, { message: 'no such canvas' }, /check the identifiers/],
    [405, 'Method Not Allowed', /server said "Method Not Allowed"/],
  ])(
    'a %i is fatal at once: one request, endpoint and parameters in the message, never the key',
    async (status, body, advice) => {
      server.handle((_req, res) => {
        if (typeof body !== 'string') return json(res, status, body);
        res.writeHead(status);
        res.end(body);
      });
      const error = await failure(
        makeClient().request({ endpoint: ENDPOINTS.canvasDetails, query: { canvas_id: 'cv-42' } }),
      );
      expect(error).toBeInstanceOf(FatalApiError);
      expect((error as FatalApiError).status).toBe(status);
      expect(error.message).toMatch(/^GET \/canvas\/details \{"canvas_id":"cv-42"\} failed with \d+: /);
      expect(error.message).toMatch(advice);
      expect(server.requests).toHaveLength(1);
      const everything = JSON.stringify([error.message, (error as FatalApiError).body, String(error.cause), events]);
      expect(everything).not.toContain(KEY);
    },
  );

  it('scrubs an echoed key from the attached body and says so', async () => {
    server.handle((_req, res) => json(res, 401, { message: `Invalid API key: ${KEY}` }));
    const error = (await failure(makeClient().request({ endpoint: ENDPOINTS.eventsList }))) as FatalApiError;
    expect(error.message).toContain('Invalid API key: [redacted]');
    expect(error.body).toEqual({ message: 'Invalid API key: [redacted]' });
  });

  it('quotes the SCIM detail of a 404', async () => {
    server.handle((_req, res) =>
      json(res, 404, {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
        detail: 'User not found',
        status: 404,
      }),
    );
    const error = await failure(
      makeClient().request({ endpoint: ENDPOINTS.scimUserDelete, pathParams: { id: 'u-9' } }),
    );
    expect(error.message).toMatch(
      /DELETE \/scim\/v2\/Users\/u-9 \{"id":"u-9"\} failed with 404: server said "User not found"/,
    );
    expect(error.message).not.toContain(SCIM);
  });

  it('treats a 2xx whose message is not success as a fatal error naming the endpoint', async () => {
    server.handle((_req, res) =>
      json(res, 201, { message: 'Invalid API key: x', external_ids: [], rename_errors: [] }),
    );
    const error = await failure(
      makeClient().request({ endpoint: ENDPOINTS.externalIdsRename, body: { external_id_renames: [] } }),
    );
    expect(error).toBeInstanceOf(FatalApiError);
    expect(error.message).toMatch(
      /POST \/users\/external_ids\/rename .*message is "Invalid API key: x" instead of "success"/,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('retries a 2xx whose message reports a rate limit (spec 7.2)', async () => {
    server.handle((_req, res, i) => json(res, 201, { message: i === 0 ? 'rate limit exceeded' : 'success' }));
    const response = await makeClient().request({
      endpoint: ENDPOINTS.externalIdsRemove,
      body: { external_ids: ['a'] },
    });
    expect(response.attempts).toBe(2);
  });

  it('lets a caller read a non-success message when it asks to', async () => {
    server.handle((_req, res) => json(res, 201, { message: 'queued' }));
    const response = await makeClient().request<{ message: string }>({
      endpoint: ENDPOINTS.usersTrack,
      body: {},
      checkMessage: false,
    });
    expect(response.body.message).toBe('queued');
  });

  it('does not follow a redirect, so the key is never sent elsewhere', async () => {
    server.handle((_req, res) => {
      res.writeHead(302, { Location: 'http://elsewhere.example/events/list' });
      res.end();
    });
    const error = await failure(makeClient().request({ endpoint: ENDPOINTS.eventsList }));
    expect(error).toBeInstanceOf(FatalApiError);
    expect(error.message).toMatch(/redirected to http:\/\/elsewhere\.example/);
  });
});

describe('concurrency', () => {
  it("keeps at most the scheduler's `maxInFlight` requests in flight across pools", async () => {
    let active = 0;
    let peak = 0;
    server.handle((_req, res) => {
      active++;
      peak = Math.max(peak, active);
      setTimeout(() => {
        active--;
        json(res, 200, { message: 'success' });
      }, 40);
    });
    const client = makeClient({}, { maxInFlight: 2 });
    await Promise.all([
      ...Array.from({ length: 3 }, () => client.request({ endpoint: ENDPOINTS.eventsList })),
      ...Array.from({ length: 3 }, () => client.request({ endpoint: ENDPOINTS.canvasDetails })),
    ]);
    expect(server.requests).toHaveLength(6);
    expect(peak).toBe(2);
  });
});

describe('events, stats and close', () => {
  it('reports only the reason in retry events, even when a parameter contains ": "', async () => {
    server.handle((_req, res) => json(res, 502, { message: 'bad gateway' }));
    const error = await failure(
      makeClient({ maxAttempts: 1 }).request({ endpoint: ENDPOINTS.canvasDetails, query: { canvas_id: 'a: b' } }),
    );
    expect(error.message).toMatch(
      /failed with 502: gave up: the only attempt allowed failed; last failure: server error: server said "bad gateway"/,
    );
    expect(events.find((e) => e.type === 'request-finished')).toMatchObject({
      error: 'server error: server said "bad gateway"',
    });
  });

  it('reports started / finished events with status, ms and attempt, and counts responses', async () => {
    server.handle((_req, res, i) => json(res, i === 0 ? 500 : 200, { message: i === 0 ? 'x' : 'success' }));
    const client = makeClient();
    await client.request({ endpoint: ENDPOINTS.eventsList });
    expect(events.map((e) => e.type)).toEqual([
      'request-started',
      'request-finished',
      'retry-scheduled',
      'request-started',
      'request-finished',
    ]);
    expect(events[4]).toMatchObject({
      endpoint: 'eventsList',
      path: '/events/list',
      pool: 'purchases_events',
      status: 200,
      attempt: 2,
    });
    expect(client.stats).toMatchObject({
      requestsSent: 2,
      retries: 1,
      byStatus: { 200: 1, 500: 1 },
      succeeded: 1,
      failed: 0,
    });
    expect(JSON.stringify(events)).not.toContain(KEY);
  });

  it('refuses requests after close', async () => {
    const client = makeClient();
    await client.close();
    await expect(client.request({ endpoint: ENDPOINTS.eventsList })).rejects.toThrow(FatalError);
    expect(server.requests).toHaveLength(0);
  });
});
