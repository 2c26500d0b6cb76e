// Helpers of the push tests: a real emulator on port 0 at a frozen instant, a real DuckDB file in a temp dir seeded by
// SQL, and a push run through the same option parsing as the CLI.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Emulator, EmulatorOptions } from '../../src/emulator/server.js';
import { createEmulator } from '../../src/emulator/server.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import type { RawPushFlags } from '../../src/push/push-options.js';
import { resolvePushOptions } from '../../src/push/push-options.js';
import type { PushHooks, PushResult, PushSummary } from '../../src/push/run-push.js';
import { runPush } from '../../src/push/run-push.js';

export const NOW = '2024-06-15T12:30:00Z';

export interface PushFixture {
  dir: string;
  db: string;
  em: Emulator;
  close(): Promise<void>;
}

export async function pushFixture(opts: EmulatorOptions = {}): Promise<PushFixture> {
  const dir = await mkdtemp(join(tmpdir(), 'engage-push-'));
  const em = await createEmulator({ now: NOW, ...opts });
  return {
    dir,
    db: join(dir, 'engage.duckdb'),
    em,
    async close() {
      await em.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Run statements on the fixture's warehouse (creating it), then close it so a push can open it. */
export async function sql(fx: PushFixture, ...statements: string[]): Promise<void> {
  const wh = await Warehouse.open(fx.db, WAREHOUSE_TABLES);
  try {
    for (const s of statements) await wh.query(s);
  } finally {
    await wh.close();
  }
}

export async function query(fx: PushFixture, text: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  const wh = await Warehouse.open(fx.db, WAREHOUSE_TABLES);
  try {
    return await wh.query(text, params);
  } finally {
    await wh.close();
  }
}

/** Push with the CLI's option parsing, against the fixture's emulator and database. */
export async function push(
  fx: PushFixture,
  target: string,
  flags: RawPushFlags,
  hooks: PushHooks = {},
): Promise<PushResult> {
  const opts = resolvePushOptions(target, { db: fx.db, baseUrl: fx.em.url, apiKey: fx.em.demoApiKey, ...flags }, {});
  return runPush(opts, { client: { backoffBaseMs: 1, ...hooks.client }, ...hooks });
}

/** A real push's summary (fails the test on a dry run). */
export async function pushed(
  fx: PushFixture,
  target: string,
  flags: RawPushFlags,
  hooks: PushHooks = {},
): Promise<PushSummary> {
  const result = await push(fx, target, flags, hooks);
  if (result.kind !== 'push') throw new Error('expected a push, got a dry run');
  return result.summary;
}

/** Requests the emulator received while `fn` ran. */
export async function countRequests<T>(
  fx: PushFixture,
  fn: () => Promise<T>,
): Promise<{ result: T; requests: number }> {
  const before = fx.em.stats.requests;
  const result = await fn();
  return { result, requests: fx.em.stats.requests - before };
}

export function user(fx: PushFixture, externalId: string) {
  const found = fx.em.state.people.users.find(
    (u) => u.externalId === externalId || u.deprecatedExternalIds.includes(externalId),
  );
  if (!found) throw new Error(`no user ${externalId} in the emulator`);
  return found;
}

export interface SentRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: any;
}

/** A fetch that goes to the real server and remembers what was sent (for asserting on request bodies). */
export function recordingFetch(): { fetch: typeof fetch; sent: SentRequest[] } {
  const sent: SentRequest[] = [];
  const recording: typeof fetch = async (input, init) => {
    const headers = Object.fromEntries(Object.entries((init?.headers ?? {}) as Record<string, string>));
    sent.push({
      method: init?.method ?? 'GET',
      url: String(input),
      headers,
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
    });
    return fetch(input, init);
  };
  return { fetch: recording, sent };
}
