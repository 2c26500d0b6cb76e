// The exit-code contract: every command, given bad input of each kind, exits with the code the README's table and every
// --help promise — 2 for usage and configuration, 1 for failures, 130 for Ctrl-C — and a run stopped by Ctrl-C is logged
// 'interrupted' with the way to resume. (Exit 3 is proven by test/push/push-command.test.ts, a push with rejected rows.)
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, EXIT_CODE_HELP } from '../../src/cli/exit-codes.js';
import type { Emulator } from '../../src/emulator/server.js';
import type { Target } from '../reliability/reliability-helpers.js';
import {
  PIPELINE_YAML,
  REPO,
  UNTIL,
  makeTarget,
  removeDir,
  runCli,
  spawnCli,
  startEmulator,
  tempDir,
} from '../reliability/reliability-helpers.js';
import { readLastRunNote, snapshotFiles } from '../../src/store/published-snapshot.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';

const COMMANDS = ['run', 'plan', 'status', 'check', 'export', 'query', 'emulator', 'push'];

let dir: string;
let em: Emulator;
let t: Target;

beforeAll(async () => {
  dir = await tempDir('engage-exit-');
  em = await startEmulator();
  t = await makeTarget(dir);
});
afterAll(async () => {
  await em?.close();
  await removeDir(dir);
});

describe('the exit-code table', () => {
  it('is the same in the README, in the code and at the end of every --help', async () => {
    const readme = await readFile(join(REPO, 'README.md'), 'utf8');
    const table = readme.slice(readme.indexOf('#### Exit codes'));
    const documented = [...table.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
    expect(documented).toEqual(Object.values(EXIT));
    for (const cmd of ['', ...COMMANDS]) {
      const r = await runCli(cmd ? [cmd, '--help'] : ['--help']);
      expect(r.code, cmd).toBe(0);
      expect(r.stdout, cmd).toContain(EXIT_CODE_HELP.trim());
    }
  });
});

describe('--version', () => {
  it('prints the version of package.json and exits 0', async () => {
    const pkg = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as { version: string };
    const r = await runCli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  });
});

describe('usage errors exit 2 for every command', () => {
  it.each(COMMANDS)('%s with an unknown flag', async (cmd) => {
    const r = await runCli([cmd, '--no-such-flag']);
    expect(r.code, r.stderr).toBe(EXIT.usage);
    expect(r.stderr).toMatch(/unknown option '--no-such-flag'/);
  });

  it.each([
    ['an unknown command', ['frobnicate']],
    ['query without its SQL', ['query']],
    ['push without its target', ['push']],
    ['run with a --log-level that does not exist', ['run', '--emulator', '--log-level', 'loud']],
    ['query with a format that does not exist', ['query', 'SELECT 1', '--format', 'xml']],
    ['plan with a --latency-ms that is not a number', ['plan', '--emulator', '--latency-ms', 'fast']],
  ])('%s', async (_label, args) => {
    expect((await runCli(args)).code).toBe(EXIT.usage);
  });
});

describe('configuration errors exit 2 with one line naming the flag, file or variable', () => {
  it.each([
    [
      'run: a bad pipeline file',
      () => ['run', '--emulator', '--pipeline', t.pipeline.replace('.yaml', '-bad.yaml')],
      /-bad\.yaml/,
    ],
    [
      'run: a bad --until',
      () => ['run', '--emulator', '--pipeline', t.pipeline, '--until', 'yesterday'],
      /--until: "yesterday"/,
    ],
    [
      'run: --quiet with --verbose',
      () => ['run', '--emulator', '--pipeline', t.pipeline, '--quiet', '--verbose'],
      /--quiet and --verbose/,
    ],
    ['run: a base URL but no key', () => ['run', '--pipeline', t.pipeline, '--base-url', em.url], /--api-key/],
    [
      'status: a bad --fail-if-stale',
      () => ['status', '--db', t.db, '--fail-if-stale', '3x'],
      /--fail-if-stale: "3x" is not a duration/,
    ],
    [
      'status: an unknown --stream',
      () => ['status', '--db', t.db, '--stream', 'revenu'],
      /--stream: unknown stream "revenu"/,
    ],
    ['emulator: a bad --port', () => ['emulator', '--port', 'eighty'], /--port/],
    [
      'status: a --db that does not exist',
      () => ['status', '--db', join(dir, 'missing.duckdb')],
      /no database at .*missing\.duckdb; check --db/,
    ],
    [
      'query: a --db that does not exist',
      () => ['query', 'SELECT 1', '--db', join(dir, 'missing.duckdb')],
      /no database at .*missing\.duckdb; check --db/,
    ],
    [
      'push: an irreversible target without --confirm',
      () => [
        'push',
        'email-suppressions',
        '--sql',
        "SELECT 'a@example.com' AS email",
        '--db',
        t.db,
        '--base-url',
        em.url,
        '--api-key',
        em.demoApiKey,
      ],
      /--confirm/,
    ],
  ])('%s', async (_label, args, what) => {
    await writeFile(
      t.pipeline.replace('.yaml', '-bad.yaml'),
      PIPELINE_YAML.replace('lookback_days: 3', 'lookback_days: -1'),
    );
    const r = await runCli(args());
    expect(r.code, r.stderr).toBe(EXIT.usage);
    expect(
      r.stderr
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('engage-etl: ')),
    ).toHaveLength(1);
    expect(r.stderr).toMatch(what);
  });

  it('a .env line that is not KEY=value', async () => {
    const cwd = join(dir, 'bad-env');
    await mkdir(cwd, { recursive: true });
    await writeFile(join(cwd, '.env'), 'ENGAGE_API_KEY=fine\nthis line is wrong\n');
    const r = await runCli(['status', '--db', t.db], {}, cwd);
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toMatch(/\.env:2: is not a KEY=value line/);
  });
});

describe('failures exit 1', () => {
  // An engage-etl database with no run yet: these commands fail on the SQL, the --out, the key — not on the --db.
  beforeAll(async () => (await Warehouse.open(t.db, WAREHOUSE_TABLES)).close());
  it.each([
    ['query with SQL the database refuses', () => ['query', 'SELEC 1', '--db', t.db], /SELEC/],
    [
      'export to an --out a file is in the way of',
      () => ['export', '--db', t.db, '--out', join(t.pipeline, 'sub')],
      /cannot write Parquet output/,
    ],
    [
      'run with a key the service refuses',
      () => [
        'run',
        '--pipeline',
        t.pipeline,
        '--base-url',
        em.url,
        '--api-key',
        'wrong-key-0000-0000-0000',
        '--db',
        t.db,
        '--out',
        t.out,
        '--until',
        UNTIL,
      ],
      /401/,
    ],
  ])('%s', async (_label, args, what) => {
    const r = await runCli(args());
    expect(r.code, r.stderr).toBe(EXIT.failed);
    expect(r.stderr).toMatch(what);
  });
});

describe('Ctrl-C', () => {
  it('commits what was fetched, logs the run as interrupted, prints how to resume, and exits 130', async () => {
    // Slow answers, at most 4 in flight: the run is still fetching when the interrupt comes (≈ 150 requests, ≈ 7 s).
    const slow = await startEmulator({ latencyMs: 200 });
    try {
      const target = await makeTarget(dir, 'interrupted');
      const { child, done } = spawnCli(
        [
          'run',
          '--pipeline',
          target.pipeline,
          '--base-url',
          slow.url,
          '--db',
          target.db,
          '--out',
          target.out,
          '--until',
          UNTIL,
          '--full-refresh',
          '--max-in-flight',
          '4',
        ],
        { ENGAGE_API_KEY: slow.demoApiKey },
      );
      let stderr = '';
      await new Promise<void>((resolve) => {
        child.stderr!.on('data', (d: Buffer) => {
          stderr += d.toString();
          // The first commit holds the lists discovery read (custom_events' names); the next ones what was fetched.
          if ((stderr.match(/"type":"committed"/g) ?? []).length >= 2) resolve();
        });
      });
      child.kill('SIGINT');
      const r = await done;
      expect(r.code, r.stderr).toBe(EXIT.interrupted);
      expect(r.stderr).toMatch(/interrupted: committed \w+ \+\d+/);
      const resume = /resume with: (.*)/.exec(r.stderr)?.[1];
      expect(resume).toContain(`--db ${target.db}`);
      expect(resume).not.toContain('--full-refresh');
      expect(r.stderr + r.stdout).not.toContain(slow.demoApiKey);
      // Nothing was published (the first run never finished): the run's own log is in its working copy, and the note
      // beside --db tells `status` how it ended.
      expect((await readLastRunNote(target.db))?.status).toBe('interrupted');
      const wh = await Warehouse.open(snapshotFiles(target.db).working, WAREHOUSE_TABLES, { readOnly: true });
      try {
        const runs = await wh.query(`SELECT "status", "error" FROM "_etl_runs"`);
        expect(runs).toHaveLength(1);
        expect(runs[0]!['status']).toBe('interrupted');
        const [rows] = await wh.query(`SELECT count(*) AS n FROM "_etl_series_state"`);
        expect(Number(rows!['n'])).toBeGreaterThan(0);
      } finally {
        await wh.close();
      }
    } finally {
      await slow.close();
    }
  }, 60_000);
});
