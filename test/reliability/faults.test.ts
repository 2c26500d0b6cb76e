// Faults: a backfill through 30 % injected faults (429, 500, 503, cut-short bodies, reset connections) ends exactly like
// a fault-free one, with bounded retries; a request that runs out of attempts fails the run clearly and keeps what was
// committed, and the next run completes it.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientEvent } from '../../src/api/api-client-options.js';
import { FAULT_KINDS } from '../../src/emulator/fault-injector.js';
import { RetriableApiError } from '../../src/errors.js';
import { snapshotFiles } from '../../src/store/published-snapshot.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import {
  SecretScan,
  makeTarget,
  parquetChecksums,
  removeDir,
  runInProcess,
  startEmulator,
  tableChecksums,
  tempDir,
} from './reliability-helpers.js';

// At a 30 % fault rate, six attempts all fail for one request in 1,400; over ~150 requests that would fail one run in
// ten. Twelve attempts (one in 1.9 million per request) keep the test deterministic in practice and still bounded.
const MAX_ATTEMPTS = 12;
const MAX_RETRY_WAIT_MS = 5_000;

describe('a multi-month backfill under injected faults', () => {
  let dir: string;
  let clean: { tables: Record<string, string>; parquet: Record<string, string> };
  const secrets = new SecretScan();
  let key = '';

  beforeAll(async () => {
    dir = await tempDir();
    const em = await startEmulator();
    key = em.demoApiKey;
    try {
      const t = await makeTarget(dir, 'clean');
      secrets.target(t);
      await runInProcess(em, t);
      clean = { tables: await tableChecksums(t.db), parquet: await parquetChecksums(t.out) };
    } finally {
      await em.close();
    }
  });

  afterAll(async () => {
    const found = await secrets.find(key);
    await removeDir(dir);
    expect(found.places).toEqual([]);
  });

  it('loads every table and Parquet file identical to a fault-free run, each request tried at most 12 times', async () => {
    const em = await startEmulator({ faultRate: 0.3 });
    const events: ClientEvent[] = [];
    try {
      const t = await makeTarget(dir, 'faulty');
      secrets.target(t);
      const summary = await runInProcess(
        em,
        t,
        {},
        {
          client: {
            backoffBaseMs: 20,
            backoffMaxMs: 200,
            maxAttempts: MAX_ATTEMPTS,
            maxRetryWaitMs: MAX_RETRY_WAIT_MS,
            onEvent: (e) => events.push(e),
          },
        },
      );
      secrets.text(JSON.stringify(summary), ...events.map((e) => JSON.stringify(e)));

      const injected = Object.values(em.stats.faults).reduce((a, b) => a + b, 0);
      // Every kind of fault happened, and often: this is not a lucky fault-free run.
      for (const kind of FAULT_KINDS) expect(em.stats.faults[kind], kind).toBeGreaterThan(0);
      expect(injected).toBeGreaterThanOrEqual(30);
      expect(summary.requests.retries).toBeGreaterThanOrEqual(injected);

      expect(await tableChecksums(t.db)).toEqual(clean.tables);
      expect(await parquetChecksums(t.out)).toEqual(clean.parquet);

      const attempts = events.filter((e) => e.type === 'request-finished').map((e) => e.attempt);
      expect(Math.max(...attempts)).toBeLessThanOrEqual(MAX_ATTEMPTS);
      const waits = events.filter((e) => e.type === 'retry-scheduled').map((e) => e.waitMs);
      expect(Math.max(...waits)).toBeLessThanOrEqual(MAX_RETRY_WAIT_MS);
      // Sent = first attempts + retries: nothing was sent that the retry accounting does not explain.
      expect(summary.requests.sent).toBe(attempts.length);
      console.info(
        `[reliability] faults: ${injected} injected (${JSON.stringify(em.stats.faults)}) over ${summary.requests.sent} requests, ${summary.requests.retries} retries, longest wait ${Math.max(...waits)} ms, most attempts ${Math.max(...attempts)}`,
      );
    } finally {
      await em.close();
    }
  });

  it('fails with a one-line message when a request runs out of attempts, keeps the committed rows, and the next run completes them', async () => {
    const t = await makeTarget(dir, 'gives-up');
    secrets.target(t);
    // Faults are drawn per request number: at this rate the lists discovery reads first (custom_events' three pages) get
    // through and a later request gives up (a give-up in discovery would commit nothing, by design).
    const em = await startEmulator({ faultRate: 0.4 });
    let error: unknown;
    try {
      await runInProcess(em, t, {}, { client: { backoffBaseMs: 5, backoffMaxMs: 20, maxAttempts: 2 } });
    } catch (err) {
      error = err;
    } finally {
      await em.close();
    }
    expect(error).toBeInstanceOf(RetriableApiError);
    const message = (error as Error).message;
    secrets.text(message);
    expect(message).not.toContain('\n');
    expect(message).toMatch(/^(GET|POST) \/\S+ .*gave up: .*\b2 attempts\b/);

    // What was committed is kept, and it is right: every stored row is the clean run's row for its key. The failed
    // first run published nothing to readers: what it committed is in its working copy.
    expect(existsSync(t.db)).toBe(false);
    const wh = await Warehouse.open(snapshotFiles(t.db).working, WAREHOUSE_TABLES, { readOnly: true });
    try {
      const [kept] = await wh.query(
        `SELECT (SELECT count(*) FROM "sessions") + (SELECT count(*) FROM "revenue") + (SELECT count(*) FROM "canvas_summary") AS n`,
      );
      expect(Number(kept?.['n'])).toBeGreaterThan(0);
      const [run] = await wh.query(`SELECT "status", "error" FROM "_etl_runs"`);
      expect(run).toEqual({ status: 'failed', error: message });
    } finally {
      await wh.close();
    }

    const again = await startEmulator();
    try {
      await runInProcess(again, t);
    } finally {
      await again.close();
    }
    expect(await tableChecksums(t.db)).toEqual(clean.tables);
    expect(await parquetChecksums(t.out)).toEqual(clean.parquet);
  });
});
