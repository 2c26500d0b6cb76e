// Bad input: each mistake a user can make ends `engage-etl run` with one clear line on stderr and a non-zero exit, and
// leaves DuckDB and Parquet as they were (a refused key or an unreachable service adds only a 'failed' row to the run log).
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientEvent } from '../../src/api/api-client-options.js';
import type { Emulator } from '../../src/emulator/server.js';
import { snapshotFiles } from '../../src/store/published-snapshot.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import { VirtualClock } from '../helpers/virtual-clock.js';
import type { CliResult, Target } from './reliability-helpers.js';
import {
  PIPELINE_YAML,
  SecretScan,
  UNTIL,
  closedPort,
  fileStamps,
  listFiles,
  makeTarget,
  permissionsExcept,
  removeDir,
  runCli,
  runInProcess,
  startEmulator,
  tableChecksums,
  tempDir,
} from './reliability-helpers.js';

/** A key the emulator grants every permission but the sessions series: the run meets a 403 on its first sessions request. */
const LIMITED_KEY = 'rel-limited-0f3c9a1d5e7b2468';
const WRONG_KEY = 'rel-wrong-key-7d1e93ab40c2f5e6';

interface Snapshot {
  files: string[];
  db: string;
  out: Record<string, string>;
  tables: Record<string, string>;
  runs: number;
}

describe('bad input', () => {
  let dir: string;
  let em: Emulator;
  let t: Target;
  const secrets = new SecretScan();
  const tried: string[] = [];
  let requestsOn401 = 0;

  beforeAll(async () => {
    dir = await tempDir();
    const permissions = permissionsExcept('sessions.data_series');
    em = await startEmulator({ keys: [{ key: LIMITED_KEY, name: 'no-sessions', permissions }] });
    t = await makeTarget(dir, 'kept');
    secrets.target(t);
    await runInProcess(em, t);
  });

  afterAll(async () => {
    await em?.close();
    const found = await Promise.all([em.demoApiKey, LIMITED_KEY, WRONG_KEY].map((k) => secrets.find(k)));
    await removeDir(dir);
    console.info(
      `[reliability] bad input: ${tried.length} inputs refused (${tried.join('; ')}); ${requestsOn401} requests reached the service on a 401`,
    );
    expect(found.flatMap((f) => f.places)).toEqual([]);
  });

  async function snapshot(target: Target): Promise<Snapshot> {
    // Failed runs are logged in the working copy; the published file must stay byte for byte what it was.
    const wh = await Warehouse.open(snapshotFiles(target.db).working, WAREHOUSE_TABLES, { readOnly: true });
    let runs: number;
    try {
      const [row] = await wh.query(`SELECT count(*) AS n FROM "_etl_runs"`);
      runs = Number(row?.['n']);
    } finally {
      await wh.close();
    }
    return {
      files: await listFiles(target.dir),
      db: createHash('sha256')
        .update(await readFile(target.db))
        .digest('hex'),
      out: await fileStamps(target.out),
      tables: await tableChecksums(target.db),
      runs,
    };
  }

  /** Runs the CLI against the kept target; the key goes in the environment like a user would pass it. */
  function run(args: string[], key = em.demoApiKey): Promise<CliResult> {
    return runCli(
      ['run', '--pipeline', t.pipeline, '--base-url', em.url, '--db', t.db, '--out', t.out, '--until', UNTIL, ...args],
      { ENGAGE_API_KEY: key },
    );
  }

  /** The run failed with `code` (2: usage/configuration, 1: failed) and exactly one `engage-etl:` line, last on stderr, matching `what`. */
  /** `stdout`: what the run prints there besides the error (nothing, unless a run published the streams that did not fail). */
  function expectOneLineError(
    result: CliResult,
    what: RegExp,
    label: string,
    code: 1 | 2 = 1,
    stdout?: RegExp,
  ): string {
    secrets.text(result.stdout, result.stderr);
    tried.push(label);
    expect(result.code, result.stderr).toBe(code);
    const lines = result.stderr.trimEnd().split('\n');
    const errors = lines.filter((l) => l.startsWith('engage-etl: '));
    expect(errors, result.stderr).toHaveLength(1);
    expect(lines.at(-1)).toBe(errors[0]);
    expect(errors[0]).toMatch(what);
    if (stdout) expect(result.stdout).toMatch(stdout);
    else expect(result.stdout).toBe('');
    return errors[0]!;
  }

  /** Same files, same Parquet stamps, same table data; the database byte for byte unless a failed run was logged. */
  async function expectUntouched(before: Snapshot, allowFailedRun = false): Promise<void> {
    const now = await snapshot(t);
    expect(now.files).toEqual(before.files);
    expect(now.out).toEqual(before.out);
    expect(now.tables).toEqual(before.tables);
    expect(now.db).toBe(before.db);
    expect(now.runs).toBe(before.runs + (allowFailedRun ? 1 : 0));
  }

  const BAD_FILES: [string, string, RegExp][] = [
    ['YAML syntax', PIPELINE_YAML.replace('streams:\n', 'streams: [\n'), /YAML syntax error/],
    ['unknown stream', PIPELINE_YAML.replace('  custom_events:', '  custom_event:'), /custom_event\b/],
    ['wrong type', PIPELINE_YAML.replace('lookback_days: 3', 'lookback_days: three'), /lookback_days/],
    ['wrong type in a list', PIPELINE_YAML.replace('segments: [seg_1] }', 'segments: [1, 2] }'), /segments/],
    ['unknown key', PIPELINE_YAML.replace('lookback_days: 3', 'lookback_days: 3\nlook_back: 2'), /look_back/],
    [
      'unknown stream option',
      PIPELINE_YAML.replace('canvases: [cv_1, cv_2]', 'canvases: [cv_1, cv_2], canvas: [cv_3]'),
      /canvas\b/,
    ],
    ['empty list', PIPELINE_YAML.replace('apps: ["*", app_1]', 'apps: []'), /apps/],
    ['empty streams', PIPELINE_YAML.slice(0, PIPELINE_YAML.indexOf('streams:')) + 'streams: {}\n', /streams/],
    ['not a mapping', '- just\n- a list\n', /.+/],
  ];

  it.each(BAD_FILES)(
    'refuses a pipeline file with %s with exit 2, naming the file and the field, and touches nothing',
    async (label, text, what) => {
      const file = join(dir, `bad-${label.replaceAll(' ', '-')}.yaml`);
      await writeFile(file, text);
      const before = await snapshot(t);
      const line = expectOneLineError(await run(['--pipeline', file]), what, `pipeline file: ${label}`, 2);
      expect(line).toContain(file);
      await expectUntouched(before);
    },
  );

  it('refuses a missing pipeline file', async () => {
    const before = await snapshot(t);
    expectOneLineError(
      await run(['--pipeline', join(dir, 'nope.yaml')]),
      /nope\.yaml.*no such file.*--pipeline/,
      'missing pipeline file',
      2,
    );
    await expectUntouched(before);
  });

  it.each([
    ['--from after --until', ['--from', '2025-06-10', '--until', '2025-06-01'], /--from: .*is after --until/],
    ['unparsable --until', ['--until', 'June 1st'], /--until: "June 1st" is not an ISO 8601/],
    ['unparsable --from', ['--from', '2025-13-45'], /--from: "2025-13-45" is not an ISO 8601/],
    ['--until in the future', ['--until', '2999-01-01'], /--until: .*in the future/],
    ['unknown --streams', ['--streams', 'revenue,sesions'], /--streams: unknown stream "sesions"/],
  ])('refuses %s', async (label, args, what) => {
    const before = await snapshot(t);
    expectOneLineError(await run(args), what, label, 2);
    await expectUntouched(before);
  });

  it('stops at once on an invalid key (401): no retries, a handful of requests, one line', async () => {
    const before = await snapshot(t);
    const sent = em.stats.requests;
    const line = expectOneLineError(await run([], WRONG_KEY), /401.*check the API key/, 'invalid key (401)');
    expect(line).not.toContain(WRONG_KEY);
    // At most one request per worker in flight when the first 401 came back, none retried.
    expect(em.stats.requests - sent).toBeLessThanOrEqual(8);
    requestsOn401 = em.stats.requests - sent;
    await expectUntouched(before, true);
  });

  it('fails only the stream whose permission the key lacks (403), naming the permission; the others are published unchanged', async () => {
    const before = await snapshot(t);
    const line = expectOneLineError(
      await run([], LIMITED_KEY),
      /could not complete.*: sessions \(\d+ series; GET \/sessions\/data_series .*403.*sessions\.data_series/,
      'key without permission (403)',
      1,
      /FAILED sessions /,
    );
    expect(line).not.toContain(LIMITED_KEY);
    // Same --until as the last run: every table, the failed stream's included, holds the same data.
    expect((await snapshot(t)).tables).toEqual(before.tables);
  });

  it('ends with one line naming the refused connection when the base URL refuses connections, and touches nothing', async () => {
    // One attempt: what the user sees at the end is under test here; the default retries are timed below on a virtual clock.
    const pipeline = join(dir, 'one-attempt.yaml');
    await writeFile(
      pipeline,
      PIPELINE_YAML.replace('lookback_days: 3\n', 'lookback_days: 3\nretries: { max_attempts: 1 }\n'),
    );
    const before = await snapshot(t);
    const port = await closedPort();
    const result = await runCli(
      [
        'run',
        '--pipeline',
        pipeline,
        '--base-url',
        `http://127.0.0.1:${port}`,
        '--db',
        t.db,
        '--out',
        t.out,
        '--until',
        UNTIL,
      ],
      { ENGAGE_API_KEY: em.demoApiKey },
    );
    expectOneLineError(result, /ECONNREFUSED/, 'base URL refusing connections');
    await expectUntouched(before, true);
  });

  it('gives up within 30 s of backoff when the base URL refuses connections, after the default 6 attempts', async () => {
    const before = await snapshot(t);
    const port = await closedPort();
    const clock = new VirtualClock();
    const start = clock.now();
    const retriedAfter: number[] = [];
    const onEvent = (e: ClientEvent): void => {
      clock.observe(e);
      if (e.type === 'retry-scheduled') retriedAfter.push(e.attempt);
    };
    // The default retry limits and backoff (no FAST_CLIENT), waited on the virtual clock.
    const run = runInProcess(
      em,
      t,
      { baseUrl: `http://127.0.0.1:${port}` },
      { client: { onEvent, now: clock.now, sleep: clock.sleep }, scheduler: { now: clock.now, sleep: clock.sleep } },
    );
    await expect(run).rejects.toThrow(/ECONNREFUSED/);
    // Retries follow attempts 1 to 5, never the 6th.
    expect(Math.max(...retriedAfter)).toBe(5);
    expect(clock.now() - start).toBeGreaterThan(0);
    expect(clock.now() - start).toBeLessThan(30_000);
    await expectUntouched(before, true);
  });

  it('refuses a --db that is not a DuckDB database and leaves that file as it was', async () => {
    const fake = join(dir, 'notes.duckdb');
    await writeFile(fake, 'these are my notes, not a database\n'.repeat(200));
    const was = await readFile(fake);
    const before = await snapshot(t);
    const result = await runCli(
      ['run', '--pipeline', t.pipeline, '--base-url', em.url, '--db', fake, '--out', t.out, '--until', UNTIL],
      { ENGAGE_API_KEY: em.demoApiKey },
    );
    expectOneLineError(
      result,
      /--db: the database file is not a DuckDB database: .*notes\.duckdb/,
      '--db not a DuckDB file',
      2,
    );
    expect(await readFile(fake)).toEqual(was);
    await expectUntouched(before);
  });

  it('refuses a --db that is a folder, saying to pass a file', async () => {
    const folder = join(dir, 'db-folder');
    await mkdir(folder);
    const before = await snapshot(t);
    const result = await runCli(
      ['run', '--pipeline', t.pipeline, '--base-url', em.url, '--db', folder, '--out', t.out, '--until', UNTIL],
      { ENGAGE_API_KEY: em.demoApiKey },
    );
    expectOneLineError(
      result,
      /--db: the database path .*db-folder is a folder; pass a file path with --db/,
      '--db a folder',
      2,
    );
    await expectUntouched(before);
  });

  it('refuses an --out that cannot be written, before touching the database', async () => {
    const before = await snapshot(t);
    const result = await run(['--out', join(t.pipeline, 'parquet')]);
    expectOneLineError(result, /cannot write Parquet output to .*a file is in the way/, 'unwritable --out');
    await expectUntouched(before);
  });
});
