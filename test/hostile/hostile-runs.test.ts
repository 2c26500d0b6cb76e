// Whole runs against a misbehaving server (a proxy in front of the emulator): each ends within a bound with one line,
// or succeeds where the data is good, and leaves what earlier runs committed neither lost nor doubled. A scan for the key
// in every spelling over messages, events, stdout, stderr, DuckDB and Parquet finds nothing.
import { Writable } from 'node:stream';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_PERMISSIONS } from '../../src/api/endpoints.js';
import { JsonLinesReporter } from '../../src/cli/reporters.js';
import { resolveRunOptions } from '../../src/config/run-options.js';
import type { Emulator } from '../../src/emulator/server.js';
import type { PipelineDeps, RunSummary } from '../../src/pipeline/run-pipeline.js';
import { runPipeline } from '../../src/pipeline/run-pipeline.js';
import type { RunEvent } from '../../src/pipeline/run-events.js';
import { FakeClock } from '../api/helpers/test-server.js';
import type { Target } from '../reliability/reliability-helpers.js';
import {
  FAST_CLIENT,
  FROZEN_NOW,
  SecretScan,
  UNTIL,
  makeTarget,
  parquetChecksums,
  removeDir,
  runCli,
  startEmulator,
  tableChecksums,
  tempDir,
} from '../reliability/reliability-helpers.js';
import { expectOneLineError, HOSTILE_KEY, spellings } from './hostile-kit.js';
import { HostileProxy } from './hostile-proxy.js';

/** The purchases pool's endpoints: the purchase series and lists, and the events list (read first, by discovery). */
const inPurchasesPool = (url: URL): boolean =>
  url.pathname.startsWith('/purchases/') || url.pathname === '/events/list';

describe('runs against a hostile server', () => {
  let dir: string;
  let em: Emulator;
  let proxy: HostileProxy;
  let t: Target;
  let baseline: { tables: Record<string, string>; parquet: Record<string, string> };
  const scan = new SecretScan();
  const lines: string[] = [];

  /** Runs in process through the proxy with the hostile key; JSON-line events are collected for the scan. */
  async function run(deps: PipelineDeps = {}, events: RunEvent[] = []): Promise<RunSummary> {
    const sink = new Writable({
      write: (chunk: Buffer, _enc, done) => {
        lines.push(chunk.toString());
        done();
      },
    });
    const json = new JsonLinesReporter(sink);
    const opts = resolveRunOptions(
      { pipeline: t.pipeline, baseUrl: proxy.url, db: t.db, out: t.out, until: UNTIL },
      { ENGAGE_API_KEY: HOSTILE_KEY },
      DateTime.fromISO(FROZEN_NOW, { zone: 'utc' }),
    );
    const reporter = {
      emit: (e: RunEvent) => {
        events.push(e);
        json.emit(e);
      },
      close: () => json.close(),
    };
    return runPipeline(opts, { ...deps, client: { ...FAST_CLIENT, ...deps.client }, reporter });
  }

  /** A run that must fail within `boundMs` with one line matching `pattern`, leaving the committed data as it was. */
  async function failingRun(boundMs: number, pattern: RegExp, deps: PipelineDeps = {}): Promise<Error> {
    const started = performance.now();
    const error = await run(deps).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(performance.now() - started).toBeLessThan(boundMs);
    scan.text(error?.message);
    expectOneLineError(error, pattern);
    expect(await tableChecksums(t.db)).toEqual(baseline.tables);
    expect(await parquetChecksums(t.out)).toEqual(baseline.parquet);
    return error as Error;
  }

  beforeAll(async () => {
    dir = await tempDir('engage-etl-hostile-');
    em = await startEmulator({ keys: [{ key: HOSTILE_KEY, name: 'hostile', permissions: [...ALL_PERMISSIONS] }] });
    proxy = await HostileProxy.create(em.url);
    t = await makeTarget(dir, 'hostile');
    scan.target(t);
    await run();
    baseline = { tables: await tableChecksums(t.db), parquet: await parquetChecksums(t.out) };
  }, 60_000);

  afterAll(async () => {
    await proxy?.close();
    await em?.close();
    await removeDir(dir);
  });

  it('an /events/list that never comes back short ends at the page cap', async () => {
    proxy.tamper = (_req, url, res) => {
      if (url.pathname !== '/events/list') return false;
      const page = Number(url.searchParams.get('page'));
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({ message: 'success', events: Array.from({ length: 250 }, (_, i) => `evt-${page}-${i}`) }),
      );
      return true;
    };
    // Only the streams that need the list fail: the others are fetched and published first, hence the longer bound.
    await failingRun(60_000, /GET \/events\/list: the list is still going at page 501 \(page=500\), past maxPages=500/);
  });

  it('/cdi/integrations handing out new cursors over the same items stops at the second page', async () => {
    proxy.tamper = (_req, url, res) => {
      if (url.pathname !== '/cdi/integrations') return false;
      res.writeHead(200, {
        'Content-Type': 'application/json',
        Link: `</cdi/integrations?cursor=n${proxy.received.length}>; rel="next"`,
      });
      res.end(JSON.stringify({ message: 'success', results: [{ integration_id: 'int-1', integration_name: 'same' }] }));
      return true;
    };
    await failingRun(20_000, /GET \/cdi\/integrations: page 2 \("\?cursor=n\d+"\) repeats 1 item already seen/);
  });

  it('an HTML page served with 200 is one fatal line asking about the base URL, without retries', async () => {
    const before = proxy.received.length;
    proxy.tamper = (_req, url, res) => {
      if (url.pathname !== '/canvas/details') return false;
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end('<!doctype html><title>Corporate proxy</title><p>Please sign in</p>');
      return true;
    };
    await failingRun(
      20_000,
      /the server answered HTML \(text\/html\) to GET \/canvas\/details — is the base URL right\?/,
    );
    const asked = proxy.received.slice(before).filter((p) => p.startsWith('/canvas/details'));
    expect(asked.length).toBeGreaterThan(0);
    expect(new Set(asked).size).toBe(asked.length);
  });

  it('a session count past BIGINT fails naming endpoint, series, time, field and value', async () => {
    proxy.tamper = (_req, url, res) => {
      if (url.pathname !== '/sessions/data_series') return false;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"message":"success","data":[{"time":"2025-06-14T00:00:00Z","sessions":92233720368547758070}]}');
      return true;
    };
    // A count that does not fit fails its stream alone: the run's line names the stream, then the request.
    await failingRun(
      20_000,
      /could not complete.*: sessions \(\d+ series; GET \/sessions\/data_series \{"length":\d+,"ending_at":"[^"]+".*\} failed with 200: .*data\[0\] \(time 2025-06-14T00:00:00Z\) field `sessions`: 92233720368547760000 is past the largest count stored exactly/,
    );
  });

  it('an X-RateLimit-Reset of 99999999999 with nothing remaining fails at once, quoting the server', async () => {
    proxy.tamper = undefined;
    const absurd: Record<string, string> = { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '99999999999' };
    proxy.gateway = (url) => ({ headers: inPurchasesPool(url) ? absurd : {}, reject: false });
    try {
      await failingRun(
        20_000,
        /limit pool "purchases_events": the server said .*X-RateLimit-Remaining: 0, X-RateLimit-Reset: 99999999999; .*over the longest wait allowed/,
      );
    } finally {
      proxy.gateway = undefined;
    }
  });

  it('a gateway counting 20 per second is followed: the run succeeds with no 429, the data unchanged', async () => {
    proxy.tamper = undefined;
    const clock = new FakeClock(Date.parse(FROZEN_NOW));
    const counts = new Map<number, number>();
    let rejected = 0;
    proxy.gateway = () => {
      const window = Math.floor(clock.now() / 1000);
      const used = (counts.get(window) ?? 0) + 1;
      counts.set(window, used);
      if (used > 20) rejected++;
      return {
        headers: {
          'X-RateLimit-Limit': '20',
          'X-RateLimit-Remaining': String(Math.max(0, 20 - used)),
          'X-RateLimit-Reset': String(window + 1),
        },
        reject: used > 20,
      };
    };
    // Fake time moves only when nothing is on the wire, as real time would pass while requests travel.
    const sleep = async (ms: number) => {
      while (proxy.inFlight > 0) await new Promise((r) => setTimeout(r, 1));
      await clock.sleep(ms);
    };
    try {
      const summary = await run({ client: { now: clock.now, sleep }, scheduler: { now: clock.now, sleep } });
      expect(summary.status).toBe('succeeded');
      expect(rejected).toBe(0);
      expect(clock.now() - Date.parse(FROZEN_NOW)).toBeLessThan(60_000);
      expect(await tableChecksums(t.db)).toEqual(baseline.tables);
      expect(await parquetChecksums(t.out)).toEqual(baseline.parquet);
    } finally {
      proxy.gateway = undefined;
    }
  }, 60_000);

  it('a 30 s wait for a pool is announced as a waiting event, and the run then succeeds', async () => {
    proxy.tamper = undefined;
    const clock = new FakeClock(Date.parse(FROZEN_NOW));
    let told = false;
    proxy.gateway = (url) => {
      const headers: Record<string, string> = {};
      if (!told && inPurchasesPool(url)) {
        told = true;
        Object.assign(headers, {
          'X-RateLimit-Remaining': '0',
          'X-RateLimit-Reset': String(Math.floor(clock.now() / 1000) + 30),
        });
      }
      return { headers, reject: false };
    };
    const events: RunEvent[] = [];
    try {
      const summary = await run(
        { client: { now: clock.now, sleep: clock.sleep }, scheduler: { now: clock.now, sleep: clock.sleep } },
        events,
      );
      expect(summary.status).toBe('succeeded');
    } finally {
      proxy.gateway = undefined;
    }
    const waiting = events.filter((e) => e.type === 'waiting');
    expect(waiting).toEqual([
      {
        type: 'waiting',
        pool: 'purchases_events',
        remaining: 0,
        resumesAt: new Date(Date.parse(FROZEN_NOW) + 30_000).toISOString(),
        reason: expect.stringMatching(/X-RateLimit-Remaining: 0/),
      },
    ]);
    expect(lines.some((l) => l.includes('"type":"waiting"') && l.includes('"pool":"purchases_events"'))).toBe(true);
    expect(await tableChecksums(t.db)).toEqual(baseline.tables);
  }, 60_000);

  it('a 401 echoing the key JSON-escaped, URL-encoded and in a query string leaks it nowhere (engage-etl run as a process)', async () => {
    proxy.gateway = undefined;
    proxy.tamper = (req, url, res) => {
      if (url.pathname !== '/purchases/revenue_series') return false;
      const key = String(req.headers.authorization).replace(/^Bearer /, '');
      const php = JSON.stringify(key).replace(/\//g, '\\/');
      const go = JSON.stringify(key).replace(/&/g, '\\u0026');
      res.writeHead(401, { 'Content-Type': 'application/json' });
      res.end(
        `{"message":"Invalid API key: ${php.slice(1, -1)} / ${go.slice(1, -1)}","login":"/login?api_key=${encodeURIComponent(key)}&x=1"}`,
      );
      return true;
    };
    const r = await runCli(
      ['run', '--pipeline', t.pipeline, '--base-url', proxy.url, '--db', t.db, '--out', t.out, '--until', UNTIL],
      { ENGAGE_API_KEY: HOSTILE_KEY },
    );
    scan.text(r.stdout, r.stderr);
    expect(r.code).toBe(1);
    expect(r.ms).toBeLessThan(30_000);
    const last = r.stderr.trim().split('\n').at(-1) ?? '';
    expect(last).toMatch(
      /^engage-etl: GET \/purchases\/revenue_series .* failed with 401: server said "Invalid API key: \[redacted\] \/ \[redacted\]"/,
    );
    expect(await tableChecksums(t.db)).toEqual(baseline.tables);
    expect(await parquetChecksums(t.out)).toEqual(baseline.parquet);
  }, 60_000);

  it('leaves no spelling of the key in any message, event, stdout, stderr, DuckDB table or Parquet file', async () => {
    scan.text(...lines);
    for (const spelling of spellings(HOSTILE_KEY)) {
      const found = await scan.find(spelling);
      expect(found.places, spelling).toEqual([]);
      expect(found.searched.texts).toBeGreaterThanOrEqual(10);
      expect(found.searched.tables).toBeGreaterThanOrEqual(10);
      expect(found.searched.files).toBeGreaterThanOrEqual(10);
    }
  }, 60_000);
});
