// Shared parts of the hostile-server suite: a realistic key and token, a client wired to a scripted server and a fake
// clock, and the checks every case makes (an error of one line, a bound on real time, no credential in any spelling).
import { expect } from 'vitest';
import { ApiClient } from '../../src/api/api-client.js';
import type { ApiClientOptions, ClientEvent } from '../../src/api/api-client-options.js';
import type { PoolWait } from '../../src/api/limit-pool.js';
import { RequestScheduler, type RequestSchedulerOptions } from '../../src/api/request-scheduler.js';
import { FakeClock } from '../api/helpers/test-server.js';

/** Shaped like the platform's keys; it holds `/`, `+` and `&` so that every escaping changes its spelling. */
export const HOSTILE_KEY = 'sk-live/4f9a+c2e&7b1d-93a0e6f5';
export const HOSTILE_TOKEN = 'scim/8c1e+5a2f&0d9b-7e34c6a1';

/** The spellings servers and proxies give a secret: raw, JSON-escaped (PHP `\/`, Go `\u0026`), URL-encoded, form-encoded, HTML. */
export function spellings(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const php = json.replace(/\//g, '\\/');
  const go = json.replace(/&/g, '\\u0026').replace(/</g, '\\u003c').replace(/>/g, '\\u003e');
  const unicodeAll = [...secret]
    .map((c) => (/[A-Za-z0-9]/.test(c) ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`))
    .join('');
  const unicodeUpper = [...secret]
    .map((c) => (/[A-Za-z0-9]/.test(c) ? c : `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`))
    .join('');
  const url = encodeURIComponent(secret);
  const form = new URLSearchParams({ k: secret }).toString().slice(2);
  const lowerHex = url.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
  const html = secret.replace(/&/g, '&amp;').replace(/\//g, '&#x2F;');
  return [...new Set([secret, json, php, go, unicodeAll, unicodeUpper, url, form, lowerHex, html])];
}

/** What a hostile case records: the client's events and the waits its scheduler announced. */
export type HostileEvent = ClientEvent | ({ type: 'waiting' } & PoolWait);

/**
 * A client on a fake clock, handed a scheduler on the same clock (`scheduling` sets its pools and waits), that records
 * its events and the scheduler's announced waits; retries are fast and few so every case ends quickly.
 */
export function hostileClient(
  baseUrl: string,
  opts: Partial<ApiClientOptions> = {},
  scheduling: RequestSchedulerOptions = {},
): { client: ApiClient; clock: FakeClock; events: HostileEvent[] } {
  const clock = new FakeClock(Date.parse('2025-06-15T12:00:00Z'));
  const events: HostileEvent[] = [];
  // The fake clock moves only once no request is on the wire, as real time would pass while they travel; otherwise
  // requests granted before a wait would reach the server after it, in the next window.
  const sleep = async (ms: number): Promise<void> => {
    while (Object.values(scheduler.snapshot()).some((p) => p.inFlight > 0)) await new Promise((r) => setTimeout(r, 1));
    await clock.sleep(ms);
  };
  const scheduler = RequestScheduler.create({
    now: clock.now,
    sleep,
    onWait: (wait) => events.push({ type: 'waiting', ...wait }),
    ...scheduling,
  });
  const client: ApiClient = ApiClient.create({
    baseUrl,
    apiKey: HOSTILE_KEY,
    scimToken: HOSTILE_TOKEN,
    requestOrigin: 'https://dashboard.example.com',
    maxAttempts: 3,
    timeoutMs: 2_000,
    now: clock.now,
    sleep,
    onEvent: (e) => events.push(e),
    scheduler,
    ...opts,
  });
  return { client, clock, events };
}

/** Awaits `work`, asserts it ended within `boundMs` of real time, and returns its error (or undefined on success). */
export async function within(boundMs: number, work: Promise<unknown>): Promise<Error | undefined> {
  const started = performance.now();
  const error = await work.then(
    () => undefined,
    (e: unknown) => (e instanceof Error ? e : new Error(String(e))),
  );
  expect(performance.now() - started).toBeLessThan(boundMs);
  return error;
}

/** The error exists, reads as one line, matches `pattern`, and carries no credential in any spelling. */
export function expectOneLineError(error: Error | undefined, pattern: RegExp): Error {
  expect(error, 'expected the call to fail').toBeInstanceOf(Error);
  const e = error as Error;
  expect(e.message).not.toMatch(/\n/);
  expect(e.message).toMatch(pattern);
  expectNoSecret(e.message);
  return e;
}

/** No spelling of the key or the token appears in `text`. */
export function expectNoSecret(text: string): void {
  for (const secret of [HOSTILE_KEY, HOSTILE_TOKEN]) for (const s of spellings(secret)) expect(text).not.toContain(s);
}
