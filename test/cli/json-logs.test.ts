// Logs a machine can read: with --json, stdout is one JSON line (success and failure alike) and every stderr line is a
// JSON event carrying ts, level, type and run_id; debug adds one event per request; the README's cron line appends a
// log file of which every line parses — run exactly as written, with node's absolute path and the key from .env.
import { execFile } from 'node:child_process';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOG_LEVELS } from '../../src/cli/log-level.js';
import { createEmulator } from '../../src/emulator/server.js';
import type { Emulator } from '../../src/emulator/server.js';
import type { CliResult, Target } from '../reliability/reliability-helpers.js';
import {
  closedPort,
  REPO,
  UNTIL,
  makeTarget,
  removeDir,
  runCli,
  startEmulator,
  tempDir,
} from '../reliability/reliability-helpers.js';

const SMALL_PIPELINE = (start: string, extra = '') => `name: logs
start_date: ${start}
${extra}streams:
  revenue:         { unit: day, apps: ["*"], products: ["*"] }
  sessions:        { unit: hour, apps: ["*"], segments: ["*"] }
  email_templates: { ids: [tpl_1, tpl_2] }
  custom_events:   {}
`;

let dir: string;
let em: Emulator;
let t: Target;

beforeAll(async () => {
  dir = await tempDir('engage-logs-');
  em = await startEmulator();
  t = await makeTarget(dir, 'logs', SMALL_PIPELINE('2025-06-01'));
});
afterAll(async () => {
  await em?.close();
  await removeDir(dir);
});

/** Every line of `text` parsed as a JSON object; fails naming the first line that does not parse. */
function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((line, i) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`line ${i + 1} is not JSON: ${line}`);
      }
    });
}

/** The envelope every event carries. */
function expectEnvelopes(events: Record<string, unknown>[], runId: unknown): void {
  for (const e of events) {
    expect(e['run_id'], JSON.stringify(e)).toBe(runId);
    expect(LOG_LEVELS).toContain(e['level']);
    expect(typeof e['type']).toBe('string');
    expect(new Date(String(e['ts'])).toISOString()).toBe(e['ts']);
  }
}

function runFlags(...extra: string[]): string[] {
  return [
    'run',
    '--pipeline',
    t.pipeline,
    '--base-url',
    em.url,
    '--db',
    t.db,
    '--out',
    t.out,
    '--until',
    UNTIL,
    ...extra,
  ];
}

describe('run --json', () => {
  let ok: CliResult;
  beforeAll(async () => {
    ok = await runCli(runFlags('--json'), { ENGAGE_API_KEY: em.demoApiKey });
  });

  it('prints one compact result line on stdout after a successful run', () => {
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout.endsWith('\n')).toBe(true);
    const lines = jsonLines(ok.stdout);
    expect(lines).toHaveLength(1);
    const result = lines[0]!;
    expect(result).toMatchObject({ status: 'succeeded', exit_code: 0, error: null, pipeline: 'logs' });
    expect(result['run_id']).toMatch(/^\d{8}T\d{6}-[0-9a-f]{6}$/);
    expect((result['requests'] as { sent: number }).sent).toBeGreaterThan(0);
  });

  it('logs every event as a JSON line with ts, level, type and the run id, and a stream_finished per stream', () => {
    const runId = jsonLines(ok.stdout)[0]!['run_id'];
    const events = jsonLines(ok.stderr);
    expectEnvelopes(events, runId);
    const types = events.map((e) => e['type']);
    expect(types[0]).toBe('run_started');
    expect(types.at(-1)).toBe('run_finished');
    expect(types.filter((x) => x === 'phase')).toHaveLength(4);
    const finished = events.filter((e) => e['type'] === 'stream_finished');
    // custom_events is a listing: its pages are the discovery row's, read before planning; its own row costs none.
    expect(finished.map((e) => e['stream']).sort()).toEqual([
      'custom_events',
      'discovery: custom_events',
      'email_templates',
      'revenue',
      'sessions',
    ]);
    for (const f of finished) {
      expect(f['seconds']).toBeGreaterThanOrEqual(0);
      if (f['stream'] === 'custom_events') expect(f['requests']).toBe(0);
      else expect(f['requests']).toBeGreaterThan(0);
    }
    const templates = finished.find((e) => e['stream'] === 'email_templates')!;
    expect(templates).toMatchObject({ rows: 2, requests: 2 });
    expect(ok.stderr).not.toContain(em.demoApiKey);
  });

  it('prints the result line and JSON events when the run fails too, naming the retry limits of the pipeline file', async () => {
    const port = await closedPort();
    const failing = await makeTarget(dir, 'failing', SMALL_PIPELINE('2025-06-01', 'retries: { max_attempts: 1 }\n'));
    const r = await runCli(
      [
        'run',
        '--pipeline',
        failing.pipeline,
        '--base-url',
        `http://127.0.0.1:${port}`,
        '--db',
        failing.db,
        '--out',
        failing.out,
        '--until',
        UNTIL,
        '--json',
      ],
      { ENGAGE_API_KEY: em.demoApiKey },
    );
    expect(r.code, r.stderr).toBe(1);
    const [result, ...more] = jsonLines(r.stdout);
    expect(more).toEqual([]);
    expect(result).toMatchObject({ status: 'failed', exit_code: 1 });
    expect(result!['error']).toMatch(/ECONNREFUSED.*retries\.max_attempts/);
    const events = jsonLines(r.stderr);
    expectEnvelopes(events, result!['run_id']);
    expect(events.at(-1)).toMatchObject({ type: 'run_finished', level: 'error', status: 'failed' });
  });

  it('prints a result line with a null run id for a configuration error, and nothing on stderr', async () => {
    const r = await runCli([...runFlags('--json'), '--streams', 'revenu'], { ENGAGE_API_KEY: em.demoApiKey });
    expect(r.code).toBe(2);
    expect(jsonLines(r.stdout)).toEqual([
      expect.objectContaining({
        run_id: null,
        status: 'failed',
        exit_code: 2,
        error: expect.stringMatching(/--streams: unknown stream "revenu"/),
      }),
    ]);
    expect(r.stderr).toBe('');
  });
});

describe('--log-level', () => {
  it('debug logs every request: method, path, query, status, duration and the X-RateLimit-* headers, never the key', async () => {
    const r = await runCli(runFlags('--verbose', '--streams', 'revenue'), { ENGAGE_API_KEY: em.demoApiKey });
    expect(r.code, r.stderr).toBe(0);
    const requests = jsonLines(r.stderr).filter((e) => e['type'] === 'request');
    expect(requests.length).toBeGreaterThan(0);
    for (const q of requests) {
      expect(q).toMatchObject({ level: 'debug', method: 'GET', path: '/purchases/revenue_series', status: 200 });
      expect(q['query']).toMatch(/length=\d+/);
      expect(q['ms']).toBeGreaterThanOrEqual(0);
      expect(Object.keys(q['rateLimit'] as object).sort()).toEqual(
        expect.arrayContaining(['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']),
      );
    }
    expect(r.stderr).not.toContain(em.demoApiKey);
  });

  it('--quiet prints nothing on stderr when the run succeeds', async () => {
    const r = await runCli(runFlags('--quiet', '--streams', 'email_templates'), { ENGAGE_API_KEY: em.demoApiKey });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/succeeded/);
  });
});

describe("the README's cron line", () => {
  it('appends a log in which every line parses, with the key read from .env and node called by its absolute path', async () => {
    const readme = await readFile(join(REPO, 'README.md'), 'utf8');
    const line = /^30 2 \* \* \* +(.*)$/m.exec(readme)?.[1];
    expect(line, 'the README has a cron line at 02:30').toBeDefined();
    expect(line).not.toMatch(/\bnpx\b/);
    // The machine of the recipe: a checkout at /srv/engage-etl (here: its bin), .env beside it, a log folder.
    const home = join(dir, 'srv');
    const log = join(dir, 'log', 'run.jsonl');
    await mkdir(join(home, 'pipelines'), { recursive: true });
    await mkdir(join(dir, 'log'));
    await symlink(join(REPO, 'bin'), join(home, 'bin'));
    const live = await createEmulator({ seed: 1, port: 0 });
    const key = live.demoApiKey;
    try {
      const start = DateTime.utc().minus({ days: 2 }).toISODate();
      await writeFile(join(home, 'pipelines', 'nightly.yaml'), SMALL_PIPELINE(start!));
      await writeFile(
        join(home, '.env'),
        `# written by the test\nENGAGE_BASE_URL=${live.url}\nENGAGE_API_KEY="${live.demoApiKey}"\n`,
      );
      const command = line!
        .replaceAll('/srv/engage-etl', home)
        .replaceAll('/usr/bin/node', process.execPath)
        .replaceAll('/var/log/engage-etl/run.jsonl', log);
      for (let night = 0; night < 2; night++) {
        await promisify(execFile)('/bin/sh', ['-c', command], { env: { PATH: '/usr/bin:/bin', HOME: dir } });
      }
    } finally {
      await live.close();
    }
    const lines = jsonLines(await readFile(log, 'utf8'));
    const results = lines.filter((l) => 'exit_code' in l);
    expect(results.map((r) => r['status'])).toEqual(['succeeded', 'succeeded']);
    expect(new Set(lines.map((l) => l['run_id'])).size).toBe(2);
    expect(lines.every((l) => typeof l['run_id'] === 'string')).toBe(true);
    expect(lines.filter((l) => !('exit_code' in l)).every((l) => typeof l['level'] === 'string')).toBe(true);
    expect(await readFile(log, 'utf8')).not.toContain(key);
  }, 120_000);
});
