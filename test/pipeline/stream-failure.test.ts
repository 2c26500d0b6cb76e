// Streams fail alone: one stream's endpoint answers a body that cannot be read, and the run still commits and publishes
// every other stream (equal to a clean run's), keeps the failed stream's tables, watermarks and Parquet as they were,
// names it, and the next run against a healthy server completes it in no more requests than the minimum.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLE_SPECS } from '../../src/load/table-specs.js';
import type { TableName } from '../../src/load/table-specs.js';
import type { RunSummary } from '../../src/pipeline/run-pipeline.js';
import { StreamsFailedError } from '../../src/pipeline/stream-failure.js';
import type { Emulator } from '../../src/emulator/server.js';
import { HostileProxy } from '../hostile/hostile-proxy.js';
import { makeTarget, removeDir, runCli, spawnRun, startEmulator, tempDir } from '../reliability/reliability-helpers.js';
import { PipelineFixture, testPipeline } from './helpers/pipeline-fixture.js';

const FIRST = '2025-03-10T12:34:00Z';
const NEXT = '2025-03-12T06:00:00Z';
const PIPELINE = testPipeline('2025-02-01');
const KPI_TABLES: TableName[] = ['kpi_series'];

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
  const err = await f.run({ baseUrl: proxy.url }).then(() => undefined, (e: unknown) => e);
  if (!(err instanceof StreamsFailedError)) throw err;
  return err as StreamsFailedError;
}

/** Every table but the failed stream's, as data (no bookkeeping columns). */
async function otherTables(f: PipelineFixture): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const spec of TABLE_SPECS) if (!KPI_TABLES.includes(spec.name)) out[spec.name] = await f.tableData(spec.name);
  return out;
}

const kpiState = (f: PipelineFixture) =>
  f.query(`SELECT "series_key", "watermark", "rows_loaded" FROM "_etl_series_state" WHERE "stream" = 'kpis' ORDER BY 1`);

async function manifestRows(f: PipelineFixture, table: string): Promise<unknown> {
  const manifest = JSON.parse(await readFile(join(f.out, 'manifests', `${table}.json`), 'utf8')) as { files: { path: string; rows: number }[] };
  return manifest.files.map((file) => [file.path, file.rows]);
}

describe('a stream whose endpoint answers a body that cannot be read, on a second run', () => {
  let clean: PipelineFixture;
  let f: PipelineFixture;
  let proxy: HostileProxy;
  let failure: StreamsFailedError;
  let kpiBefore: unknown;
  let kpiStateBefore: unknown;
  let kpiParquetBefore: unknown;
  let retried: RunSummary;

  beforeAll(async () => {
    clean = await PipelineFixture.create({ now: FIRST, pipeline: PIPELINE });
    f = await PipelineFixture.create({ now: FIRST, pipeline: PIPELINE });
    proxy = await HostileProxy.create(f.emulator.url);
    await clean.run();
    await f.run({ baseUrl: proxy.url });
    kpiBefore = await f.tableData('kpi_series');
    kpiStateBefore = await kpiState(f);
    kpiParquetBefore = await manifestRows(f, 'kpi_series');
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

  it('fails the run naming the stream and the field, and marks the summary failed', () => {
    expect(failure.summary.status).toBe('failed');
    expect(failure.summary.failedStreams.map((s) => s.stream)).toEqual(['kpis']);
    expect(failure.summary.failedStreams[0]!.error).toMatch(/\/kpi\/dau\/data_series.*dau/);
    expect(failure.message).toMatch(/1 stream\(s\) could not complete.*kpis/);
  });

  it('publishes every other stream exactly as a clean run does', async () => {
    expect(await otherTables(f)).toEqual(await otherTables(clean));
  });

  it('keeps the failed stream\'s rows, watermarks and Parquet files as the previous run left them', async () => {
    expect(await f.tableData('kpi_series')).toEqual(kpiBefore);
    expect(await kpiState(f)).toEqual(kpiStateBefore);
    expect(await manifestRows(f, 'kpi_series')).toEqual(kpiParquetBefore);
    expect(await f.tableData('kpi_series')).not.toEqual(await clean.tableData('kpi_series'));
  });

  it('records each stream\'s outcome for status', async () => {
    const outcomes = await f.query(`SELECT "stream", "status", "error", "last_success_run_id" IS NOT NULL AS "ever" FROM "_etl_stream_outcomes" ORDER BY 1`);
    expect(outcomes.find((o) => o['stream'] === 'kpis')).toMatchObject({ status: 'failed', ever: true });
    expect(outcomes.filter((o) => o['stream'] !== 'kpis').every((o) => o['status'] === 'succeeded')).toBe(true);
    const [run] = await f.query(`SELECT "status", "error" FROM "_etl_runs" ORDER BY "started_at" DESC LIMIT 1`);
    expect(run).toMatchObject({ status: 'failed' });
  });

  it('completes the stream on the next run against a healthy server, in no more requests than the minimum', async () => {
    proxy.tamper = undefined;
    retried = await f.run({ baseUrl: proxy.url });
    expect(retried.status).toBe('succeeded');
    expect(retried.requests.sent).toBeLessThanOrEqual(retried.requests.minimum);
    for (const table of [...KPI_TABLES, 'purchase_quantity', 'canvas_summary'] as TableName[]) {
      expect(await f.tableData(table), table).toEqual(await clean.tableData(table));
    }
    const outcomes = await f.query(`SELECT "status" FROM "_etl_stream_outcomes" WHERE "stream" = 'kpis'`);
    expect(outcomes).toEqual([{ status: 'succeeded' }]);
  }, 120_000);
});

describe('a stream that fails on the very first run', () => {
  let f: PipelineFixture;
  let proxy: HostileProxy;
  let failure: StreamsFailedError;

  beforeAll(async () => {
    f = await PipelineFixture.create({ now: FIRST, pipeline: PIPELINE });
    proxy = await HostileProxy.create(f.emulator.url);
    breakDau(proxy);
    failure = await failedRun(f, proxy);
  }, 180_000);
  afterAll(async () => {
    await proxy?.close();
    await f?.close();
  });

  it('still publishes a database with every other stream, and nothing of the failed one', async () => {
    expect(failure.summary.failedStreams.map((s) => s.stream)).toEqual(['kpis']);
    const rows = await f.query(`SELECT (SELECT count(*) FROM "kpi_series") AS kpi, (SELECT count(*) FROM "revenue") AS revenue,
      (SELECT count(*) FROM "_etl_series_state" WHERE "stream" = 'kpis') AS kpi_state`);
    expect(rows[0]).toMatchObject({ kpi: 0, kpi_state: 0 });
    expect(Number(rows[0]!['revenue'])).toBeGreaterThan(30);
  });
});

describe('engage-etl run as a process when one stream fails', () => {
  let em: Emulator;
  let proxy: HostileProxy;
  let dir: string;

  beforeAll(async () => {
    em = await startEmulator();
    proxy = await HostileProxy.create(em.url);
    // segment_size's endpoint refuses the key's permission: a 403 fails that stream alone.
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

  it('exits 1 naming the failed stream on its one stderr line, and --json prints status failed with failed_streams', async () => {
    const t = await makeTarget(dir);
    const human = await spawnRun(t, proxy, em.demoApiKey, ['--quiet']).done;
    expect(human.code).toBe(1);
    // stderr: JSON log lines (here only the error-level run_finished) and the one line for a person.
    const lines = human.stderr.trim().split('\n').filter((l) => !l.startsWith('{'));
    expect(lines, human.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^engage-etl: run \S+ failed: 1 stream\(s\) could not complete .*segment_size \(GET \/segments\/data_series .*403/);
    expect(human.stdout).toMatch(/FAILED segment_size: /);

    const metrics = join(dir, 'engage.prom');
    const json = await spawnRun(t, proxy, em.demoApiKey, ['--json', '--quiet', '--metrics-file', metrics]).done;
    expect(json.code).toBe(1);
    const out = json.stdout.trim().split('\n');
    expect(out).toHaveLength(1);
    const result = JSON.parse(out[0]!) as Record<string, unknown>;
    expect(result).toMatchObject({ status: 'failed', exit_code: 1 });
    expect((result['failed_streams'] as { stream: string }[]).map((s) => s.stream)).toEqual(['segment_size']);
    expect(String(result['error'])).toMatch(/segment_size/);
    expect((result['tables'] as { table: string; rows: number }[]).find((t) => t.table === 'revenue')!.rows).toBeGreaterThan(0);

    // The streams that were published count as successes for monitoring; the failed one does not.
    const prom = await readFile(metrics, 'utf8');
    expect(prom).toMatch(/engage_etl_stream_last_success_timestamp_seconds\{[^}]*stream="revenue"\} \d+/);
    expect(prom).not.toMatch(/engage_etl_stream_last_success_timestamp_seconds\{[^}]*stream="segment_size"\}/);
    expect(prom).toMatch(/engage_etl_run_exit_code\{[^}]*\} 1/);

    const status = await runCli(['status', '--db', t.db]);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/failed streams[\s\S]*segment_size/);
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
    expect(failure.summary.failedStreams[0]!.error).toMatch(/\/canvas\/list/);
    const sent = proxy.received.slice(before);
    expect(sent.filter((p) => p.startsWith('/canvas/') && !p.startsWith('/canvas/list'))).toEqual([]);
    const rows = await f.query(`SELECT (SELECT count(*) FROM "revenue") AS revenue, (SELECT count(*) FROM "segment_size") AS segments, (SELECT count(*) FROM "canvases") AS canvases`);
    expect(Number(rows[0]!['revenue'])).toBeGreaterThan(0);
    expect(Number(rows[0]!['segments'])).toBeGreaterThan(0);
    expect(Number(rows[0]!['canvases'])).toBe(0);

    proxy.tamper = undefined;
    const retried = await f.run({ baseUrl: proxy.url });
    expect(retried.status).toBe('succeeded');
    expect(Number((await f.query(`SELECT count(*) AS n FROM "canvases"`))[0]!['n'])).toBeGreaterThan(0);
  }, 120_000);
});
