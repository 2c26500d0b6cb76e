// Freshness for monitors, over real runs against the emulator: `status --fail-if-stale` exits 1 exactly when a series
// is older than the threshold, `status` tells an abandoned run from a running one by the run lock, and
// `run --metrics-file` writes a file that passes the exposition-format check with the run's real figures — open holes
// read from `_etl_holes` of the published file, last successes carried over a failed night.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePrometheusText } from '../../src/export/prometheus-text.js';
import type { ParsedSample } from '../../src/export/prometheus-text.js';
import { RunLock } from '../../src/store/run-lock.js';
import { RunLog } from '../../src/load/run-log.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import { PipelineFixture } from '../pipeline/helpers/pipeline-fixture.js';
import { runCli } from '../reliability/reliability-helpers.js';

/** Two days ago: a daily watermark is then 48 to 72 hours old, whatever the time of day the test runs. */
const NOW = DateTime.utc().minus({ days: 2 }).startOf('minute');
const PIPELINE = `name: fresh
start_date: ${NOW.minus({ days: 20 }).toISODate()}
streams:
  revenue:         { unit: day, apps: ["*"], products: ["*"] }
  segment_size:    { segments: [seg_1] }
  email_templates: { ids: [tpl_1, tpl_2] }
`;

let fx: PipelineFixture;

beforeAll(async () => {
  fx = await PipelineFixture.create({ now: NOW.toISO()!, pipeline: PIPELINE });
  await fx.run();
});
afterAll(async () => fx?.close());

describe('status --fail-if-stale', () => {
  it('exits 1 naming the stale series when the threshold is shorter than their age, 0 when it is longer', async () => {
    const stale = await runCli(['status', '--db', fx.db, '--fail-if-stale', '26h']);
    expect(stale.code, stale.stderr).toBe(1);
    // The template snapshot is as old as the run's --until: metadata goes stale like a series does.
    expect(stale.stderr).toMatch(
      /^engage-etl: 3 series older than 26h: email_templates snapshot \(48 h\), revenue .* \(\d+(\.\d)? h\), segment_size/,
    );
    const fresh = await runCli(['status', '--db', fx.db, '--fail-if-stale', '4d']);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stderr).toBe('');
  });

  it('checks only the named stream, and reports the verdict in --json', async () => {
    const r = await runCli(['status', '--db', fx.db, '--fail-if-stale', '1d', '--stream', 'segment_size', '--json']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as {
      series: { stream: string }[];
      freshness: { ok: boolean; stale: { stream: string }[] };
      error: string;
      exit_code: number;
    };
    expect([report.exit_code, report.error]).toEqual([
      1,
      expect.stringMatching(/^1 series older than 1d: segment_size /),
    ]);
    expect(report!.series.map((s) => s.stream)).toEqual(['segment_size']);
    expect(report!.freshness.ok).toBe(false);
    expect(report!.freshness.stale.map((s) => s.stream)).toEqual(['segment_size']);
  });

  it('fails for a stream that was never loaded', async () => {
    const r = await runCli(['status', '--db', fx.db, '--fail-if-stale', '30d', '--stream', 'sessions']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/sessions \(never loaded\)/);
  });
});

describe('status and a run that never recorded its end', () => {
  it('shows it as abandoned when its lock is free, as running while a live process holds the lock', async () => {
    const wh = await Warehouse.open(fx.db, WAREHOUSE_TABLES);
    try {
      await new RunLog(wh).begin({
        runId: 'killed-run',
        pipeline: 'fresh',
        startedAt: new Date(),
        until: new Date(),
        pid: 2 ** 22 + 17,
      });
    } finally {
      await wh.close();
    }
    const abandoned = await runCli(['status', '--db', fx.db]);
    expect(abandoned.stdout).toMatch(/^last run killed-run: abandoned — the process ended without recording its end/);
    const lock = await RunLock.acquire(fx.db, { command: 'test' });
    try {
      const shown = (await runCli(['status', '--db', fx.db])).stdout;
      expect(shown).toMatch(/^test in progress \(pid \d+, started /);
      expect(shown).toMatch(
        /^last run killed-run: running, started \d{4}-\d\d-\d\d \d\d:\d\d UTC; backfill complete$/m,
      );
    } finally {
      await lock.release();
    }
  });
});

describe('run --metrics-file', () => {
  const metrics = () => join(fx.dir, 'metrics', 'engage_etl.prom');
  const sample = (samples: ParsedSample[], name: string, stream?: string) =>
    samples.find((s) => s.name === name && (stream === undefined || s.labels['stream'] === stream))?.value;
  const run = (args: string[], key = fx.emulator.demoApiKey) =>
    runCli(
      [
        'run',
        '--pipeline',
        fx.pipelinePath,
        '--base-url',
        fx.emulator.url,
        '--db',
        fx.db,
        '--out',
        fx.out,
        '--until',
        NOW.toISO()!,
        '--json',
        '--metrics-file',
        metrics(),
        ...args,
      ],
      { ENGAGE_API_KEY: key },
    );

  it("writes the run's figures in the Prometheus text format, carrying last successes over a failed night", async () => {
    const first = await run([]);
    expect(first.code, first.stderr).toBe(0);
    const result = JSON.parse(first.stdout) as { requests: { sent: number }; seconds: number };
    let samples = parsePrometheusText(await readFile(metrics(), 'utf8'));
    expect(sample(samples, 'engage_etl_run_success')).toBe(1);
    expect(sample(samples, 'engage_etl_run_exit_code')).toBe(0);
    expect(sample(samples, 'engage_etl_run_requests')).toBe(result.requests.sent);
    expect(sample(samples, 'engage_etl_run_duration_seconds')).toBe(result.seconds);
    expect(sample(samples, 'engage_etl_stream_rows', 'email_templates')).toBe(2);
    expect(sample(samples, 'engage_etl_stream_requests', 'email_templates')).toBe(2);
    expect(sample(samples, 'engage_etl_stream_open_holes', 'revenue')).toBe(0);
    const succeededAt = sample(samples, 'engage_etl_stream_last_success_timestamp_seconds', 'revenue')!;
    expect(Math.abs(succeededAt - Date.now() / 1000)).toBeLessThan(120);
    for (const s of samples) expect(s.labels['pipeline']).toBe('fresh');

    // An open hole as the pipeline records it shows per stream (a confirmed-absent one does not count), read from the
    // published file readers see.
    const wh = await Warehouse.open(fx.db, WAREHOUSE_TABLES);
    try {
      await wh.query(`INSERT INTO "_etl_holes" ("stream", "series_key", "unit", "unit_start", "status", "attempts", "reason")
        VALUES ('revenue', 'k', 'day', now(), 'open', 1, 'test'), ('revenue', 'k2', 'day', now(), 'confirmed_absent', 3, 'test')`);
    } finally {
      await wh.close();
    }
    const refused = await run(['--streams', 'revenue'], 'not-the-key-1234');
    expect(refused.code).toBe(1);
    samples = parsePrometheusText(await readFile(metrics(), 'utf8'));
    expect(sample(samples, 'engage_etl_run_success')).toBe(0);
    expect(sample(samples, 'engage_etl_run_exit_code')).toBe(1);
    expect(sample(samples, 'engage_etl_stream_last_success_timestamp_seconds', 'revenue')).toBe(succeededAt);
    expect(sample(samples, 'engage_etl_stream_last_success_timestamp_seconds', 'email_templates')).toBe(succeededAt);
    expect(sample(samples, 'engage_etl_stream_open_holes', 'revenue')).toBe(1);
    expect(await readFile(metrics(), 'utf8')).not.toContain('not-the-key-1234');
  }, 60_000);
});

describe('run --metrics-file on a failed night, written to a new file', () => {
  it("keeps each stream's last success from the database, and says what exit 3 means", async () => {
    const wh = await Warehouse.open(fx.db, WAREHOUSE_TABLES, { readOnly: true });
    let recorded: number;
    try {
      const [row] = await wh.query(
        `SELECT epoch(max("last_success_at")) AS at FROM "_etl_stream_outcomes" WHERE "stream" = 'revenue'`,
      );
      recorded = Math.round(Number(row!['at']));
    } finally {
      await wh.close();
    }
    const fresh = join(fx.dir, 'metrics', 'new-file.prom');
    const refused = await runCli(
      [
        'run',
        '--pipeline',
        fx.pipelinePath,
        '--base-url',
        fx.emulator.url,
        '--db',
        fx.db,
        '--out',
        fx.out,
        '--until',
        NOW.toISO()!,
        '--json',
        '--metrics-file',
        fresh,
        '--streams',
        'revenue',
      ],
      { ENGAGE_API_KEY: 'not-the-key-5678' },
    );
    expect(refused.code).toBe(1);
    const text = await readFile(fresh, 'utf8');
    const samples = parsePrometheusText(text);
    expect(
      samples.find(
        (s) => s.name === 'engage_etl_stream_last_success_timestamp_seconds' && s.labels['stream'] === 'revenue',
      )?.value,
    ).toBe(recorded);
    expect(text).toMatch(/# HELP engage_etl_run_exit_code .*3 completed with some units missing/);
  }, 60_000);
});
