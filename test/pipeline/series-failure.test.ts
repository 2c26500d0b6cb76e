// The unit of failure is the series: a series whose endpoint answers a body that cannot be read, a 4xx, or 503s beyond
// its retries fails alone. Everything fetched completely — every other series of the stream included — is committed
// and published with its watermarks, the failures are named per series (stream, series, id, whether retrying helps),
// and the next run against a healthy server asks only for what is missing and ends equal to a clean run.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLE_SPECS } from '../../src/streams/table-specs.js';
import type { RunSummary } from '../../src/pipeline/run-pipeline.js';
import { StreamsFailedError } from '../../src/pipeline/streams-failed-error.js';
import type { Emulator } from '../../src/emulator/server.js';
import { HostileProxy } from '../hostile/hostile-proxy.js';
import { makeTarget, removeDir, runCli, spawnRun, startEmulator, tempDir } from '../reliability/reliability-helpers.js';
import { PipelineFixture, testPipeline } from './helpers/pipeline-fixture.js';

const FIRST = '2025-03-10T12:34:00Z';
const NEXT = '2025-03-12T06:00:00Z';
const PIPELINE = testPipeline('2025-02-01');

/** A `/kpi/dau/data_series` answer without the `dau` the spec documents: a body the client cannot read. */
function breakDau(proxy: HostileProxy): void {
  proxy.tamper = (_req, url, res) => {
    if (url.pathname !== '/kpi/dau/data_series') return false;
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ message: 'success', data: [{ time: '2025-03-11', daily_active: 12 }] }));
    return true;
  };
}

async function failedRun(f: PipelineFixture, proxy: HostileProxy): Promise<StreamsFailedError> {
  const err = await f.run({ baseUrl: proxy.url }).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof StreamsFailedError)) throw err;
  return err as StreamsFailedError;
}

/** Every data table, as data (no bookkeeping columns). */
async function allTables(f: PipelineFixture): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const spec of TABLE_SPECS) out[spec.name] = await f.tableData(spec.name);
  return out;
}

const kpiRows = (f: PipelineFixture, dau: boolean) =>
  f.query(
    `SELECT * EXCLUDE ("_loaded_at", "_run_id") FROM "kpi_series" WHERE ("metric" = 'dau') = ${dau} ORDER BY ALL`,
  );
const kpiState = (f: PipelineFixture, dau: boolean) =>
  f.query(
    `SELECT "series_key", "watermark", "rows_loaded" FROM "_etl_series_state" WHERE "stream" = 'kpis' AND ("series_key" LIKE '%metric=dau|%') = ${dau} ORDER BY 1`,
  );

async function manifestRows(f: PipelineFixture, table: string): Promise<unknown> {
  const manifest = JSON.parse(await readFile(join(f.out, 'manifests', `${table}.json`), 'utf8')) as {
    files: { path: string; rows: number }[];
  };
  return manifest.files.map((file) => [file.path, file.rows]);
}

describe('a series whose endpoint answers a body that cannot be read, on a second run', () => {
  let clean: PipelineFixture;
  let f: PipelineFixture;
  let proxy: HostileProxy;
  let failure: StreamsFailedError;
  let dauBefore: unknown;
  let dauStateBefore: unknown;

  beforeAll(async () => {
    clean = await PipelineFixture.create({ now: FIRST, pipeline: PIPELINE });
    f = await PipelineFixture.create({ now: FIRST, pipeline: PIPELINE });
    proxy = await HostileProxy.create(f.emulator.url);
    await clean.run();
    await f.run({ baseUrl: proxy.url });
    dauBefore = await kpiRows(f, true);
    dauStateBefore = await kpiState(f, true);
    clean.emulator.clock.set(NEXT);
    f.emulator.clock.set(NEXT);
    await clean.run();
    breakDau(proxy);
    failure = await failedRun(f, proxy);
  }, 240_000);
  afterAll(async () => {
    await proxy?.close();
    await clean?.close();
    await f?.close();
  });

  it('fails the run naming each failed series, its id, and that retrying cannot help', () => {
    expect(failure.summary.status).toBe('failed');
    expect(failure.summary.failedSeries.map((s) => [s.stream, s.series, s.id ?? null, s.retriable]).sort()).toEqual(
      [
        ['kpis', 'unit=day|metric=dau|app_id=*', null, false],
        ['kpis', 'unit=day|metric=dau|app_id=app_1', 'app_1', false],
      ].sort(),
    );
    expect(failure.summary.failedSeries[0]!.error).toMatch(/\/kpi\/dau\/data_series.*dau/);
    expect(failure.summary.failedStreams.map((s) => s.stream)).toEqual(['kpis']);
    expect(failure.message).toMatch(/2 series of 1 stream\(s\) could not complete.*kpis/);
  });

  it("publishes every other series — the failed stream's other metrics included — exactly as a clean run does", async () => {
    const mine = await allTables(f);
    const theirs = await allTables(clean);
    delete mine['kpi_series'];
    delete theirs['kpi_series'];
    expect(mine).toEqual(theirs);
    expect(await kpiRows(f, false)).toEqual(await kpiRows(clean, false));
    expect(await kpiState(f, false)).toEqual(await kpiState(clean, false));
  });

  it("keeps the failed series' rows and watermarks as the previous run left them, and publishes the rest of its table", async () => {
    expect(await kpiRows(f, true)).toEqual(dauBefore);
    expect(await kpiState(f, true)).toEqual(dauStateBefore);
    const manifested = (await manifestRows(f, 'kpi_series')) as [string, number][];
    expect(manifested.reduce((n, [, rows]) => n + rows, 0)).toBe(
      (await kpiRows(f, true)).length + (await kpiRows(f, false)).length,
    );
    const published = await f.query(
      `SELECT count(*) AS n FROM read_parquet('${f.out}/kpi_series/**/*.parquet') WHERE "metric" = 'mau'`,
    );
    expect(Number(published[0]!['n'])).toBe((await kpiRows(clean, false)).filter((r) => r['metric'] === 'mau').length);
  });

  it("records the failed series for status, and each stream's outcome", async () => {
    const stored = await f.query(
      `SELECT "stream", "series_key", "object_id", "retriable" FROM "_etl_series_failures" ORDER BY 2`,
    );
    expect(stored).toEqual(
      [
        { stream: 'kpis', series_key: 'unit=day|metric=dau|app_id=*', object_id: null, retriable: false },
        { stream: 'kpis', series_key: 'unit=day|metric=dau|app_id=app_1', object_id: 'app_1', retriable: false },
      ].sort((a, b) => a.series_key.localeCompare(b.series_key)),
    );
    const outcomes = await f.query(`SELECT "stream", "status" FROM "_etl_stream_outcomes" ORDER BY 1`);
    expect(outcomes.find((o) => o['stream'] === 'kpis')).toMatchObject({ status: 'failed' });
    expect(outcomes.filter((o) => o['stream'] !== 'kpis').every((o) => o['status'] === 'succeeded')).toBe(true);
  });

  it('completes the failed series on the next run against a healthy server, in no more requests than the minimum, equal to a clean run', async () => {
    proxy.tamper = undefined;
    const retried: RunSummary = await f.run({ baseUrl: proxy.url });
    expect(retried.status).toBe('succeeded');
    expect(retried.failedSeries).toEqual([]);
    expect(retried.requests.sent).toBeLessThanOrEqual(retried.requests.minimum);
    expect(await allTables(f)).toEqual(await allTables(clean));
    expect(await f.query(`SELECT count(*)::INT AS n FROM "_etl_series_failures"`)).toEqual([{ n: 0 }]);
  }, 120_000);
});

describe('a stream whose requests are answered 503 three times in ten, beyond its retries, on a first backfill', () => {
  const pipeline = `${testPipeline('2024-06-01')}retries: { max_attempts: 2, max_wait_seconds: 0 }\n`;
  let clean: PipelineFixture;
  let f: PipelineFixture;
  let proxy: HostileProxy;
  let first: RunSummary;
  let eventRequests = 0;

  beforeAll(async () => {
    clean = await PipelineFixture.create({ now: FIRST, pipeline });
    f = await PipelineFixture.create({ now: FIRST, pipeline });
    proxy = await HostileProxy.create(f.emulator.url);
    await clean.run();
    // A fixed pattern, not a random one: requests 3, 6 and 9 of every ten to /events/data_series are answered 503.
    proxy.tamper = (_req, url, res) => {
      if (url.pathname !== '/events/data_series') return false;
      eventRequests++;
      if (eventRequests % 10 !== 3 && eventRequests % 10 !== 6 && eventRequests % 10 !== 9) return false;
      res.writeHead(503, { 'Content-Type': 'application/json' });
      res.end('{"message":"temporarily unavailable"}');
      return true;
    };
    first = await f.run({ baseUrl: proxy.url });
  }, 240_000);
  afterAll(async () => {
    await proxy?.close();
    await clean?.close();
    await f?.close();
  });

  it('completes with some series not done: status incomplete, every failure retriable', () => {
    expect(first.status).toBe('incomplete');
    expect(first.failedSeries.length).toBeGreaterThan(0);
    expect(first.failedSeries.every((s) => s.stream === 'event_counts' && s.retriable)).toBe(true);
    expect(first.failedStreams.map((s) => s.stream)).toEqual(['event_counts']);
  });

  it('commits and publishes every series it fetched completely, and the completed prefix of the failed ones', async () => {
    const failed = new Set(first.failedSeries.map((s) => s.series));
    const [{ n }] = (await f.query(`SELECT count(*)::INT AS n FROM "event_counts"`)) as [{ n: number }];
    expect(n).toBeGreaterThan(0);
    const states = await f.query(
      `SELECT "series_key", "watermark" FROM "_etl_series_state" WHERE "stream" = 'event_counts'`,
    );
    const cleanStates = new Map(
      (
        await clean.query(`SELECT "series_key", "watermark" FROM "_etl_series_state" WHERE "stream" = 'event_counts'`)
      ).map((r) => [r['series_key'], String(r['watermark'])]),
    );
    for (const s of states)
      if (!failed.has(String(s['series_key']))) expect(String(s['watermark'])).toBe(cleanStates.get(s['series_key']));
    for (const table of ['revenue', 'sessions', 'kpi_series', 'canvas_summary'] as const)
      expect(await f.tableData(table), table).toEqual(await clean.tableData(table));
    const published = await f.query(
      `SELECT count(*)::INT AS n FROM read_parquet('${f.out}/event_counts/**/*.parquet')`,
    );
    expect(published).toEqual([{ n }]);
  });

  it('asks the next runs only for the failed windows, and ends equal to a clean run', async () => {
    proxy.tamper = undefined;
    const before = proxy.received.length;
    const next = await f.run({ baseUrl: proxy.url });
    expect(next.status).toBe('succeeded');
    expect(next.requests.sent).toBeLessThanOrEqual(next.requests.minimum);
    // Every series re-reads its look-back (the window ending at the run's last day); besides those, only the windows
    // the failed series did not finish are asked again: none of a series that completed, and fewer than half of the
    // first run's requests.
    const asked = proxy.received
      .slice(before)
      .filter((p) => p.startsWith('/events/data_series'))
      .map((p) => new URL(p, 'http://x').searchParams);
    const lookbacks = asked.filter((q) => q.get('ending_at')?.startsWith('2025-03-10'));
    const resumed = asked.filter((q) => !q.get('ending_at')?.startsWith('2025-03-10'));
    expect(lookbacks.length).toBe(4);
    expect(resumed.length).toBeGreaterThan(0);
    expect(resumed.length).toBeLessThan(eventRequests / 2);
    const failed = new Set(first.failedSeries.map((s) => s.series));
    for (const q of resumed)
      expect(failed).toContain(`unit=day|event=${q.get('event')}|app_id=${q.get('app_id') ?? '*'}|segment_id=*`);
    expect(await allTables(f)).toEqual(await allTables(clean));
  }, 120_000);
});

describe("engage-etl run as a process when the key lacks one stream's permission", () => {
  let em: Emulator;
  let proxy: HostileProxy;
  let dir: string;

  beforeAll(async () => {
    em = await startEmulator();
    proxy = await HostileProxy.create(em.url);
    // segment_size's endpoint refuses the key's permission: a 403 is the stream's, not one series'.
    proxy.tamper = (_req, url, res) => {
      if (url.pathname !== '/segments/data_series') return false;
      res.writeHead(403, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ message: 'The API key lacks the permission segments.data_series' }));
      return true;
    };
    dir = await tempDir('engage-stream-failure-');
  }, 60_000);
  afterAll(async () => {
    await proxy?.close();
    await em?.close();
    await removeDir(dir);
  });

  it("stops sending the stream's requests, exits 1 naming it, and --json prints failed_streams and failed_series", async () => {
    const t = await makeTarget(dir);
    const human = await spawnRun(t, proxy, em.demoApiKey, ['--quiet']).done;
    expect(human.code).toBe(1);
    // stderr: JSON log lines (here only the error-level run_finished) and the one line for a person.
    const lines = human.stderr
      .trim()
      .split('\n')
      .filter((l) => !l.startsWith('{'));
    expect(lines, human.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^engage-etl: run \S+ failed: \d+ series of 1 stream\(s\) could not complete: segment_size \(\d+ series; GET \/segments\/data_series .*403/,
    );
    expect(human.stdout).toMatch(/FAILED segment_size unit=day\|segment_id=\S+ \(\S+\): .*retrying will not help/);

    const metrics = join(dir, 'engage.prom');
    const segmentAsks = () => proxy.received.filter((p) => p.startsWith('/segments/data_series')).length;
    const asksBefore = segmentAsks();
    const json = await spawnRun(t, proxy, em.demoApiKey, ['--json', '--quiet', '--metrics-file', metrics]).done;
    expect(json.code).toBe(1);
    const out = json.stdout.trim().split('\n');
    expect(out).toHaveLength(1);
    const result = JSON.parse(out[0]!) as Record<string, unknown>;
    expect(result).toMatchObject({ status: 'failed', exit_code: 1, complete: true, remaining_requests: 0 });
    expect((result['failed_streams'] as { stream: string }[]).map((s) => s.stream)).toEqual(['segment_size']);
    const series = result['failed_series'] as { stream: string; series: string; id: string; retriable: boolean }[];
    expect(series.length).toBeGreaterThan(0);
    // Every series of the stream failed with the one 403, and only the requests already in flight met it.
    expect(segmentAsks() - asksBefore).toBeLessThanOrEqual(2 * series.length);
    expect(
      series.every(
        (s) => s.stream === 'segment_size' && s.retriable === false && s.series === `unit=day|segment_id=${s.id}`,
      ),
    ).toBe(true);
    expect(String(result['error'])).toMatch(/segment_size/);
    expect(
      (result['tables'] as { table: string; rows: number }[]).find((t) => t.table === 'revenue')!.rows,
    ).toBeGreaterThan(0);

    // The streams that were published count as successes for monitoring; the failed one does not.
    const prom = await readFile(metrics, 'utf8');
    expect(prom).toMatch(/engage_etl_stream_last_success_timestamp_seconds\{[^}]*stream="revenue"\} \d+/);
    expect(prom).not.toMatch(/engage_etl_stream_last_success_timestamp_seconds\{[^}]*stream="segment_size"\}/);
    expect(prom).toMatch(/engage_etl_run_exit_code\{[^}]*\} 1/);

    const status = await runCli(['status', '--db', t.db]);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/failed streams[\s\S]*segment_size/);
    expect(status.stdout).toMatch(/failed series[\s\S]*segment_size\s+unit=day\|segment_id=/);
  }, 120_000);
});

describe('a list that `all` needs answering a body that cannot be read', () => {
  let f: PipelineFixture;
  let proxy: HostileProxy;

  beforeAll(async () => {
    f = await PipelineFixture.create({
      now: FIRST,
      pipeline: `
name: lists
start_date: 2025-03-01
streams:
  revenue:        { unit: day, apps: ["*"], products: ["*"] }
  canvas_details: { canvases: all }
  canvas_summary: { canvases: all }
  segment_size:   { segments: all }
`,
    });
    proxy = await HostileProxy.create(f.emulator.url);
  }, 60_000);
  afterAll(async () => {
    await proxy?.close();
    await f?.close();
  });

  it('fails the streams that need it, before any request of theirs, and publishes the others', async () => {
    proxy.tamper = (_req, url, res) => {
      if (url.pathname !== '/canvas/list') return false;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ message: 'success', canvases: 'not a list' }));
      return true;
    };
    const before = proxy.received.length;
    const failure = await failedRun(f, proxy);
    expect(failure.summary.failedStreams.map((s) => s.stream).sort()).toEqual(['canvas_details', 'canvas_summary']);
    expect(failure.summary.failedSeries.map((s) => [s.stream, s.series, s.retriable]).sort()).toEqual([
      ['canvas_details', 'lists', false],
      ['canvas_summary', 'lists', false],
    ]);
    expect(failure.summary.failedStreams[0]!.error).toMatch(/\/canvas\/list/);
    const sent = proxy.received.slice(before);
    expect(sent.filter((p) => p.startsWith('/canvas/') && !p.startsWith('/canvas/list'))).toEqual([]);
    const rows = await f.query(
      `SELECT (SELECT count(*) FROM "revenue") AS revenue, (SELECT count(*) FROM "segment_size") AS segments, (SELECT count(*) FROM "canvases") AS canvases`,
    );
    expect(Number(rows[0]!['revenue'])).toBeGreaterThan(0);
    expect(Number(rows[0]!['segments'])).toBeGreaterThan(0);
    expect(Number(rows[0]!['canvases'])).toBe(0);

    proxy.tamper = undefined;
    const retried = await f.run({ baseUrl: proxy.url });
    expect(retried.status).toBe('succeeded');
    expect(Number((await f.query(`SELECT count(*) AS n FROM "canvases"`))[0]!['n'])).toBeGreaterThan(0);
  }, 120_000);
});

describe('a reconciliation the key may not make (403 on /canvas/data_summary)', () => {
  const pipeline = `
name: audit
start_date: 2025-03-01
streams:
  revenue:        { unit: day, apps: ["*"], products: ["*"] }
  canvas_summary: { canvases: [cv_1, cv_2], reconcile: true }
`;
  let clean: PipelineFixture;
  let f: PipelineFixture;
  let proxy: HostileProxy;
  let run: RunSummary;

  beforeAll(async () => {
    clean = await PipelineFixture.create({ now: FIRST, pipeline });
    f = await PipelineFixture.create({ now: FIRST, pipeline });
    proxy = await HostileProxy.create(f.emulator.url);
    proxy.tamper = (_req, url, res) => {
      if (url.pathname !== '/canvas/data_summary') return false;
      res.writeHead(403, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ message: 'The API key lacks the permission canvas.data_summary' }));
      return true;
    };
    await clean.run();
    run = await f.run({ baseUrl: proxy.url });
  }, 120_000);
  afterAll(async () => {
    await proxy?.close();
    await clean?.close();
    await f?.close();
  });

  it("is a warning and unavailable rows, the run succeeds, and the data is kept equal to a clean run's", async () => {
    expect(run.status).toBe('succeeded');
    expect(run.failedSeries).toEqual([]);
    expect(run.warnings.filter((w) => w.code === 'reconciliation_unavailable').map((w) => w.stream)).toEqual([
      'canvas_summary',
    ]);
    expect(run.reconciliation).toMatchObject({ match: 0, mismatch: 0, unavailable: 8 });
    const rows = await f.query(`SELECT DISTINCT "status", "expected" FROM "_etl_reconciliation"`);
    expect(rows).toEqual([{ status: 'unavailable', expected: null }]);
    expect(await f.tableData('canvas_summary')).toEqual(await clean.tableData('canvas_summary'));
    expect((await f.tableData('canvas_summary')).length).toBeGreaterThan(0);
  });
});

describe('a pipeline naming an app and a segment the workspace does not have', () => {
  const pipeline = (bogus: boolean) => `
name: ids
start_date: 2025-03-01
streams:
  sessions:     { unit: hour, apps: ["*"], segments: ["*", seg_1${bogus ? ', seg_bogus' : ''}] }
  event_counts: { events: [achievement_bought], unit: day, apps: ["*", app_1${bogus ? ', app_bogus' : ''}] }
  segment_size: { segments: all }
`;
  let clean: PipelineFixture;
  let f: PipelineFixture;
  let proxy: HostileProxy;
  let failure: StreamsFailedError;

  beforeAll(async () => {
    clean = await PipelineFixture.create({ now: FIRST, pipeline: pipeline(false) });
    f = await PipelineFixture.create({ now: FIRST, pipeline: pipeline(true) });
    proxy = await HostileProxy.create(f.emulator.url);
    await clean.run();
    failure = await failedRun(f, proxy);
  }, 120_000);
  afterAll(async () => {
    await proxy?.close();
    await clean?.close();
    await f?.close();
  });

  it('fails both series alone, naming their ids, and exits as a failure retrying cannot fix', () => {
    expect(failure.summary.status).toBe('failed');
    expect(failure.summary.failedSeries.map((s) => [s.stream, s.id, s.retriable]).sort()).toEqual([
      ['event_counts', 'app_bogus', false],
      ['sessions', 'seg_bogus', false],
    ]);
    expect(failure.summary.failedSeries.find((s) => s.id === 'seg_bogus')!.error).toMatch(
      /segment_id "seg_bogus" is not in the workspace's \/segments\/list/,
    );
    expect(failure.summary.failedSeries.find((s) => s.id === 'app_bogus')!.error).toMatch(/400/);
  });

  it('sends no request for the segment the list just read does not have', () => {
    expect(proxy.received.filter((p) => p.includes('seg_bogus'))).toEqual([]);
    expect(proxy.received.filter((p) => p.includes('app_bogus')).length).toBeGreaterThan(0);
  });

  it('publishes every other series equal to a clean run without the bogus ids', async () => {
    for (const spec of TABLE_SPECS)
      expect(await f.tableData(spec.name), spec.name).toEqual(await clean.tableData(spec.name));
  });
});

describe('one object of an id-by-id stream answered 503 beyond its retries', () => {
  const pipeline = `
name: objects
start_date: 2025-03-01
retries: { max_attempts: 1, max_wait_seconds: 0 }
streams:
  canvas_details: { canvases: all }
`;
  let clean: PipelineFixture;
  let f: PipelineFixture;
  let proxy: HostileProxy;
  let first: RunSummary;

  beforeAll(async () => {
    clean = await PipelineFixture.create({ now: FIRST, pipeline });
    f = await PipelineFixture.create({ now: FIRST, pipeline });
    proxy = await HostileProxy.create(f.emulator.url);
    await clean.run();
    proxy.tamper = (_req, url, res) => {
      if (url.pathname !== '/canvas/details' || url.searchParams.get('canvas_id') !== 'cv_1') return false;
      res.writeHead(503, { 'Content-Type': 'application/json' });
      res.end('{"message":"temporarily unavailable"}');
      return true;
    };
    first = await f.run({ baseUrl: proxy.url });
  }, 120_000);
  afterAll(async () => {
    await proxy?.close();
    await clean?.close();
    await f?.close();
  });

  it('fails that object alone (exit 3: retrying can help) and publishes every other object', async () => {
    expect(first.status).toBe('incomplete');
    expect(first.failedSeries.map((s) => [s.stream, s.series, s.id, s.retriable])).toEqual([
      ['canvas_details', 'id=cv_1', 'cv_1', true],
    ]);
    const ids = (rows: Record<string, unknown>[]) => rows.map((r) => r['canvas_id']);
    expect(ids(await f.tableData('canvases'))).toEqual(
      ids(await clean.tableData('canvases')).filter((id) => id !== 'cv_1'),
    );
  });

  it('re-reads only that object next run (the others are unchanged since stored), ending equal to a clean run', async () => {
    proxy.tamper = undefined;
    const before = proxy.received.length;
    const next = await f.run({ baseUrl: proxy.url });
    expect(next.status).toBe('succeeded');
    expect(proxy.received.slice(before).filter((p) => p.startsWith('/canvas/details'))).toEqual([
      '/canvas/details?canvas_id=cv_1',
    ]);
    for (const table of ['canvases', 'canvas_variants', 'canvas_steps'] as const)
      expect(await f.tableData(table), table).toEqual(await clean.tableData(table));
  });
});
