// The emulator's server over real HTTP: routing (404/405), authentication (401/403, SCIM), rate-limit pools (429,
// shared pools), headers on every answer, body limits (413, malformed JSON), injected faults and latency.
import { request } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EndpointSpec, PoolId } from '../../src/api/endpoints.js';
import { ENDPOINTS, LIMIT_POOLS } from '../../src/api/endpoints.js';
import { SCIM_ERROR_SCHEMA } from '../../src/api/types.js';
import { ConfigError } from '../../src/errors.js';
import type { Route } from '../../src/emulator/route.js';
import type { Emulator } from '../../src/emulator/server.js';
import { createEmulatorWithRoutes } from '../../src/emulator/server.js';
import { UNENFORCED_LIMIT_FACTOR } from '../../src/emulator/rate-limiter.js';
import type { Answer } from './emulator-test-helpers.js';
import { call, NOW, startEmulator } from './emulator-test-helpers.js';

const opened: Emulator[] = [];
async function open(...args: Parameters<typeof startEmulator>): Promise<Emulator> {
  const em = await startEmulator(...args);
  opened.push(em);
  return em;
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((e) => e.close()));
});

/** A route that answers success and counts its calls, so a test can see whether a handler ran. */
function countingRoute(endpoint: EndpointSpec): Route & { calls: number } {
  const route = {
    endpoint,
    calls: 0,
    handle() {
      route.calls += 1;
      return { status: 200, body: { message: 'success' } };
    },
  };
  return route;
}

function expectRateHeaders(r: Answer, pool: PoolId): void {
  expect(r.headers.get('content-type')).toBe('application/json');
  expect(Number(r.headers.get('x-ratelimit-limit'))).toBe(LIMIT_POOLS[pool].limit);
  expect(Number(r.headers.get('x-ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
  const reset = Number(r.headers.get('x-ratelimit-reset'));
  const now = Date.now() / 1000;
  expect(reset).toBeGreaterThan(now);
  expect(reset).toBeLessThanOrEqual(now + LIMIT_POOLS[pool].windowMs / 1000 + 1);
}

describe('routing and bodies', () => {
  let em: Emulator;
  beforeAll(async () => {
    em = await startEmulator();
  });
  afterAll(() => em.close());

  it('answers an unknown path with 404 and a message, with rate headers', async () => {
    const r = await call(em, '/no/such/thing');
    expect(r.status).toBe(404);
    expect(r.body.message).toMatch(/No endpoint at \/no\/such\/thing/);
    expectRateHeaders(r, 'default');
  });

  it('answers a known path with the wrong method with 405 and Allow', async () => {
    const r = await call(em, '/purchases/quantity_series?length=3', { method: 'POST', body: '{}' });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET');
    expect(r.body.message).toMatch(/POST is not allowed on \/purchases\/quantity_series; use GET/);
    expectRateHeaders(r, 'purchases_events');
  });

  it('ignores a body on GET, even a malformed one', async () => {
    // fetch refuses GET bodies, so this one goes through node:http.
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        `${em.url}/events/list`,
        {
          method: 'GET',
          headers: {
            Authorization: `Bearer ${em.demoApiKey}`,
            'Content-Type': 'application/json',
            'Content-Length': '10',
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end('{"not json');
    });
    expect(status).toBe(200);
  });

  it('puts rate headers of the route pool on success and on 400', async () => {
    expectRateHeaders(await call(em, '/canvas/details?canvas_id=cv_1'), 'default');
    expectRateHeaders(await call(em, '/canvas/details?canvas_id=nope'), 'default');
    expectRateHeaders(await call(em, '/cdi/integrations'), 'cdi');
    expectRateHeaders(await call(em, '/events/list'), 'purchases_events');
  });

  it('counts remaining requests down in the pool', async () => {
    const a = Number((await call(em, '/cdi/integrations')).headers.get('x-ratelimit-remaining'));
    const b = Number((await call(em, '/cdi/integrations')).headers.get('x-ratelimit-remaining'));
    expect(b).toBe(a - 1);
  });
});

describe('bodies of write requests', () => {
  it('refuses malformed JSON with 400 and an oversized body with 413, before the handler runs', async () => {
    const route = countingRoute(ENDPOINTS.emailBlacklist);
    const em = await createEmulatorWithRoutes([route], { now: NOW, maxBodyBytes: 1000 });
    opened.push(em);
    const bad = await call(em, '/email/blacklist', { method: 'POST', body: '{"email": [' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/Request body is not valid JSON .*send a JSON document/);
    expectRateHeaders(bad, 'default');
    const big = await call(em, '/email/blacklist', {
      method: 'POST',
      body: JSON.stringify({ email: 'x'.repeat(5000) }),
    });
    expect(big.status).toBe(413);
    expect(big.body.message).toMatch(/exceeds 1000 bytes/);
    expectRateHeaders(big, 'default');
    const ok = await call(em, '/email/blacklist', { method: 'POST', body: '{"email":"a@example.com"}' });
    expect(ok.status).toBe(200);
    expect(route.calls).toBe(1);
  });

  it('turns a handler exception into a 500 naming the endpoint (a bug the fuzz test guards against)', async () => {
    const route: Route = {
      endpoint: ENDPOINTS.emailBlacklist,
      handle: () => {
        throw new TypeError('boom');
      },
    };
    const em = await createEmulatorWithRoutes([route], { now: NOW });
    opened.push(em);
    const r = await call(em, '/email/blacklist', { method: 'POST', body: '{}' });
    expect(r.status).toBe(500);
    expect(r.body.message).toBe('emulator bug in emailBlacklist: boom');
  });
});

describe('authentication', () => {
  it('answers a missing or unknown key with 401 Invalid API key, never echoing the key', async () => {
    const em = await open();
    const none = await call(em, '/events/list', { key: null });
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ message: 'Invalid API key' });
    expectRateHeaders(none, 'purchases_events');
    const wrong = await call(em, '/events/list', { key: 'secret-wrong-key-123' });
    expect(wrong.status).toBe(401);
    expect(JSON.stringify(wrong.body)).not.toContain('secret-wrong-key-123');
    const basic = await call(em, '/events/list', { key: null, headers: { Authorization: `Basic ${em.demoApiKey}` } });
    expect(basic.status).toBe(401);
  });

  it('answers a key without the permission with 403 naming the permission, and lets it use what it has', async () => {
    const em = await open({
      keys: [{ key: 'k-events-only-777', name: 'events reader', permissions: ['events.list'] }],
    });
    const denied = await call(em, '/purchases/quantity_series?length=1', { key: 'k-events-only-777' });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toMatch(/requires the purchases\.quantity_series permission/);
    expect(denied.body.message).toContain('events reader');
    expect(denied.body.message).not.toContain('k-events-only-777');
    expectRateHeaders(denied, 'purchases_events');
    expect((await call(em, '/events/list', { key: 'k-events-only-777' })).status).toBe(200);
  });

  it('gives the demo key every permission and derives it from the seed', async () => {
    const a = await open({ seed: 7 });
    const b = await open({ seed: 7 });
    const c = await open({ seed: 8 });
    expect(a.demoApiKey).toBe(b.demoApiKey);
    expect(a.demoApiKey).not.toBe(c.demoApiKey);
    expect(a.demoApiKey).toMatch(/^demo-[0-9a-f]{16}$/);
  });

  it('refuses bad extra keys at start with a ConfigError naming the field', async () => {
    await expect(
      startEmulator({ keys: [{ key: 'key-one-3a9d7f1b5c20', name: 'x', permissions: ['purchases.everything'] }] }),
    ).rejects.toThrow(ConfigError);
    await expect(
      startEmulator({ keys: [{ key: 'key-one-3a9d7f1b5c20', name: 'x', permissions: ['purchases.everything'] }] }),
    ).rejects.toThrow(/keys\[0\]\.permissions\[0\]: "purchases\.everything" is not a permission/);
    await expect(startEmulator({ keys: [{ key: '', name: 'x', permissions: [] }] })).rejects.toThrow(
      /keys\[0\]\.key: must be a non-empty string/,
    );
  });

  it('refuses bad options with a ConfigError naming the option', async () => {
    await expect(startEmulator({ faultRate: 2 })).rejects.toThrow(/faultRate: must be a number from 0 to 1, got 2/);
    await expect(startEmulator({ seed: -1 })).rejects.toThrow(/seed: must be an integer/);
    await expect(startEmulator({ limitScale: 0 })).rejects.toThrow(/limitScale: must be a number > 0/);
    await expect(startEmulator({ now: 'tomorrow' })).rejects.toThrow(/now: "tomorrow" is not an ISO 8601 instant/);
  });
});

describe('SCIM authentication', () => {
  let em: Emulator;
  let route: Route & { calls: number };
  beforeAll(async () => {
    route = countingRoute(ENDPOINTS.scimUserDelete);
    em = await createEmulatorWithRoutes([route], { now: NOW });
  });
  afterAll(() => em.close());

  it('accepts the SCIM token with X-Request-Origin', async () => {
    const r = await call(em, '/scim/v2/Users/u-1', {
      method: 'DELETE',
      key: em.scimToken,
      headers: { 'X-Request-Origin': 'tests.example.com' },
    });
    expect(r.status).toBe(200);
    expect(route.calls).toBe(1);
    expectRateHeaders(r, 'scim');
  });

  it('answers a bad SCIM token (even the API key) with a SCIM-shaped 401', async () => {
    const r = await call(em, '/scim/v2/Users/u-1', {
      method: 'DELETE',
      key: em.demoApiKey,
      headers: { 'X-Request-Origin': 'tests.example.com' },
    });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({
      schemas: [SCIM_ERROR_SCHEMA],
      detail: expect.stringMatching(/Invalid SCIM token/),
      status: 401,
    });
    expect(JSON.stringify(r.body)).not.toContain(em.demoApiKey);
  });

  it('answers a missing X-Request-Origin with a SCIM-shaped 400', async () => {
    const r = await call(em, '/scim/v2/Users/u-1', { method: 'DELETE', key: em.scimToken });
    expect(r.status).toBe(400);
    expect(r.body.schemas).toEqual([SCIM_ERROR_SCHEMA]);
    expect(r.body.detail).toMatch(/X-Request-Origin/);
    expectRateHeaders(r, 'scim');
  });

  it('answers a wrong method on a SCIM path with a SCIM-shaped 405', async () => {
    const r = await call(em, '/scim/v2/Users/u-1', {
      method: 'PATCH',
      key: em.scimToken,
      headers: { 'X-Request-Origin': 'o' },
    });
    expect(r.status).toBe(405);
    expect(r.body.status).toBe(405);
    expect(r.headers.get('allow')).toBe('DELETE');
  });
});

describe('rate-limit pools', () => {
  it('makes every pool answer 429 once its (scaled) budget is spent, with Retry-After and rate headers', async () => {
    const byPool = new Map<PoolId, EndpointSpec>();
    for (const e of Object.values(ENDPOINTS) as EndpointSpec[]) if (!byPool.has(e.pool)) byPool.set(e.pool, e);
    expect([...byPool.keys()].sort()).toEqual(Object.keys(LIMIT_POOLS).sort());
    // Long windows so no test straddles a window boundary.
    const em = await createEmulatorWithRoutes([...byPool.values()].map(countingRoute), {
      now: NOW,
      limitScale: 1e-9,
      limitWindowScale: 60,
    });
    opened.push(em);
    for (const [pool, endpoint] of byPool) {
      const path = endpoint.path.replace(/:(\w+)/g, 'x');
      const init = {
        method: endpoint.method,
        key: endpoint.credential === 'scim_token' ? em.scimToken : em.demoApiKey,
        headers: { 'X-Request-Origin': 'tests' },
        ...(endpoint.method === 'GET' ? {} : { body: '{}' }),
      };
      const first = await call(em, path, init);
      expect(first.status, pool).toBe(200);
      expect(first.headers.get('x-ratelimit-limit')).toBe('1');
      expect(first.headers.get('x-ratelimit-remaining')).toBe('0');
      const second = await call(em, path, init);
      expect(second.status, pool).toBe(429);
      const message = endpoint.credential === 'scim_token' ? second.body.detail : second.body.message;
      expect(message).toBe('API rate limit exceeded');
      expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(second.headers.get('x-ratelimit-reset')) * 1000).toBeGreaterThan(Date.now());
    }
    expect(em.stats.rateLimited).toBe(byPool.size);
  });

  it('shares the purchases pool with the events list', async () => {
    const em = await open({ limitScale: 0.003, limitWindowScale: 2 }); // 1,000/hour → 3 per 2 hours
    expect((await call(em, '/purchases/quantity_series?length=1')).status).toBe(200);
    expect((await call(em, '/purchases/revenue_series?length=1')).status).toBe(200);
    expect((await call(em, '/events/list')).status).toBe(200);
    const r = await call(em, '/events/list');
    expect(r.status).toBe(429);
    expect(r.body).toEqual({ message: 'API rate limit exceeded' });
    expect((await call(em, '/purchases/quantity_series?length=1')).status).toBe(429);
    expect((await call(em, '/canvas/details?canvas_id=cv_1')).status).toBe(200);
    expect(em.stats.byPool.purchases_events).toBe(5);
    expect(em.stats.rateLimited).toBe(2);
  });

  it("never refuses with rate limits off, and declares a full budget far past the pool's limit", async () => {
    const em = await open({ limitScale: 1e-9, rateLimits: false });
    for (let i = 0; i < 3; i++) {
      const r = await call(em, '/events/list');
      expect(r.status).toBe(200);
      expect(r.headers.get('x-ratelimit-limit')).toBe(String(UNENFORCED_LIMIT_FACTOR));
      expect(r.headers.get('x-ratelimit-remaining')).toBe(String(UNENFORCED_LIMIT_FACTOR));
    }
  });
});

describe('faults', () => {
  async function outcome(em: Emulator, i: number): Promise<string> {
    try {
      const res = await fetch(`${em.url}/events/list?page=${i % 3}`, {
        headers: { Authorization: `Bearer ${em.demoApiKey}` },
      });
      try {
        JSON.parse(await res.text());
      } catch {
        return `${res.status}-broken-body`;
      }
      return `${res.status}${res.status === 429 ? `-retry-${res.headers.get('retry-after')}` : ''}`;
    } catch {
      return 'network-error';
    }
  }

  it('at rate 1.0 injects every kind of fault, counts them, and never runs the handler', async () => {
    const route = countingRoute(ENDPOINTS.emailBlacklist);
    const em = await createEmulatorWithRoutes([route], { now: NOW, faultRate: 1, seed: 3 });
    opened.push(em);
    for (let i = 0; i < 10; i++) {
      const r = await fetch(`${em.url}/email/blacklist`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${em.demoApiKey}` },
        body: '{"email":"a@b.c"}',
      })
        .then((x) => x.text())
        .catch(() => 'failed');
      expect(r).not.toBe('{"message":"success"}');
    }
    expect(route.calls).toBe(0);
    const em2 = await open({ faultRate: 1, seed: 3 });
    const seen = new Set<string>();
    for (let i = 0; i < 40; i++) seen.add(await outcome(em2, i));
    expect([...seen].sort()).toEqual(['200-broken-body', '429-retry-1', '500', '503', 'network-error']);
    for (const count of Object.values(em2.stats.faults)) expect(count).toBeGreaterThan(0);
    expect(Object.values(em2.stats.faults).reduce((a, b) => a + b, 0)).toBe(40);
  });

  it('at rate 0.5 injects faults deterministically from the seed', async () => {
    const run = async () => {
      const em = await open({ faultRate: 0.5, seed: 11 });
      const out: string[] = [];
      for (let i = 0; i < 30; i++) out.push(await outcome(em, i));
      return out;
    };
    const a = await run();
    const b = await run();
    expect(a).toEqual(b);
    const ok = a.filter((o) => o === '200').length;
    expect(ok).toBeGreaterThan(5);
    expect(ok).toBeLessThan(25);
  });

  it('injects none at rate 0 (the default)', async () => {
    const em = await open();
    for (let i = 0; i < 30; i++) expect(await outcome(em, i)).toBe('200');
    expect(Object.values(em.stats.faults).every((n) => n === 0)).toBe(true);
  });

  it('delays every answer by latencyMs', async () => {
    const em = await open({ latencyMs: 120 });
    const t0 = performance.now();
    await call(em, '/no/such/path');
    await call(em, '/events/list');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(235);
  });
});
