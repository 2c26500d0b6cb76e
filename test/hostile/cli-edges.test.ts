// The command line against closed pipes and hostile flags: EPIPE ends quietly with exit 0, --max-wait is parsed and
// bounded, a short or non-ASCII key exits before any request, and the waiting event reads well on a TTY and in JSON.
import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonLinesReporter } from '../../src/cli/reporters.js';
import { TtyProgressReporter } from '../../src/cli/tty-progress-reporter.js';
import { parseMaxWait } from '../../src/config/max-wait-flag.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import { CLI, REPO, removeDir, runCli, tempDir } from '../reliability/reliability-helpers.js';
import { TestServer } from '../api/helpers/test-server.js';

/** Runs the CLI with its stdout closed by the reader as soon as the first bytes arrive (`… | head -c 1`). */
function withReaderGone(args: string[]): Promise<{ code: number | null; stderr: string; ms: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env['PATH'] ?? '', TZ: 'UTC' },
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdout.once('data', () => child.stdout.destroy());
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stderr, ms: Date.now() - started }));
  });
}

describe('a reader that goes away (EPIPE on stdout)', () => {
  let dir: string;
  let db: string;
  beforeAll(async () => {
    dir = await tempDir('engage-etl-epipe-');
    db = `${dir}/w.duckdb`;
    await (await Warehouse.open(db, WAREHOUSE_TABLES)).close();
  });
  afterAll(async () => {
    await removeDir(dir);
  });

  it('ends `query … --format csv | head -1` quietly with exit 0', async () => {
    const r = await withReaderGone([
      'query',
      "SELECT range AS n, repeat('x', 200) AS pad FROM range(300000)",
      '--db',
      db,
      '--format',
      'csv',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.ms).toBeLessThan(30_000);
  }, 40_000);

  it('ends `plan --help | head` quietly with exit 0', async () => {
    const r = await withReaderGone(['plan', '--help']);
    expect(r.stderr).not.toMatch(/EPIPE|Error/);
    expect(r.code).toBe(0);
  });
});

describe('--max-wait', () => {
  it.each([
    ['90', 90_000],
    ['90s', 90_000],
    ['10m', 600_000],
    ['5min', 300_000],
    ['2h', 7_200_000],
    ['1h30m', 5_400_000],
    ['0', 0],
    ['500ms', 500],
  ])('reads %s as %d ms', (raw, ms) => {
    expect(parseMaxWait(raw)).toBe(ms);
  });

  it('refuses what is not a duration, and more than a day, naming the flag', () => {
    expect(() => parseMaxWait('soon')).toThrow(
      /^--max-wait: "soon" is not a duration; write e\.g\. 90s, 10m, 2h or 1h30m/,
    );
    expect(() => parseMaxWait('5 parsecs')).toThrow(/is not a duration/);
    expect(() => parseMaxWait('-5m')).toThrow(/is not a duration/);
    expect(() => parseMaxWait('25h')).toThrow(/^--max-wait: "25h" is longer than 24h/);
    expect(parseMaxWait(undefined)).toBeUndefined();
  });

  it('is a flag of run and push, in their help', async () => {
    expect((await runCli(['run', '--help'])).stdout).toMatch(/--max-wait <duration>/);
    expect((await runCli(['push', '--help'])).stdout).toMatch(/--max-wait <duration>/);
  });
});

describe('a key that cannot be real, on the command line', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await TestServer.create();
  });
  afterAll(async () => {
    await server.close();
  });

  it.each([
    ['one character', 'k', /ENGAGE_API_KEY: the REST API key is 1 characters long/],
    [
      'a character above U+00FF',
      `sk-live-${'0'.repeat(12)}\u20ac`,
      /ENGAGE_API_KEY: the REST API key contains a character outside visible ASCII \(U\+20AC/,
    ],
  ])('(%s) exits before any request with one line', async (_name, key, pattern) => {
    const dir = await tempDir('engage-etl-key-');
    try {
      const r = await runCli(['run', '--base-url', server.url, '--db', `${dir}/w.duckdb`, '--out', `${dir}/p`], {
        ENGAGE_API_KEY: key,
      });
      expect(r.code).not.toBe(0);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(pattern);
      expect(r.ms).toBeLessThan(15_000);
      expect(server.requests).toHaveLength(0);
    } finally {
      await removeDir(dir);
    }
  });
});

describe('the waiting event', () => {
  const event = {
    type: 'waiting' as const,
    pool: 'purchases_events',
    remaining: 0,
    resumesAt: '2025-06-15T13:00:00.000Z',
    reason: 'the server said X-RateLimit-Remaining: 0',
  };

  it('is one JSON line with pool, requests left, resume time and reason', () => {
    const out = new PassThrough();
    new JsonLinesReporter(out).emit(event);
    const line = JSON.parse(String(out.read())) as Record<string, unknown>;
    expect(line).toMatchObject(event);
    expect(typeof line['ts']).toBe('string');
  });

  it('is a line of the terminal display, naming the pool, requests left and the reason', () => {
    const out = new PassThrough();
    // The display shows a wait still ahead with requests left to send (a past or empty one is dropped).
    new TtyProgressReporter(out).emit({
      ...event,
      remaining: 5,
      resumesAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const shown = String(out.read());
    expect(shown).toContain('waiting: purchases_events resumes at');
    expect(shown).toContain('5 requests left (the server s'); // the line is cut to the terminal's width (80)
  });
});
