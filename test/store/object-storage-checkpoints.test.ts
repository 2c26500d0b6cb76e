// A first backfill with `--db s3://…` on a machine that goes away: the run uploads its committed progress as a
// checkpoint beside the database while it goes on (every second here) and when SIGTERM stops it; a run from a new,
// empty work folder resumes from the newer of that checkpoint and the published database, and ends equal to an
// uninterrupted run (EXCEPT ALL both ways). Readers meanwhile see only the published database; `plan` sees the
// checkpoint the run would resume from. Against s3rver (real HTTP, real SDK) with real `engage-etl` processes.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { CRASH_AT_ENV } from '../../src/process/crash-point.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import type { S3TestServer } from '../helpers/s3-test-server.js';
import type { CliResult, Target } from '../reliability/reliability-helpers.js';
import {
  SecretScan,
  UNTIL,
  makeTarget,
  runCli,
  runInProcess,
  spawnCli,
  startEmulator,
} from '../reliability/reliability-helpers.js';
import { InterruptedError } from '../../src/errors.js';
import { startS3TestServer } from '../helpers/s3-test-server.js';
import { download, listKeys, s3Suite, tableDifferences } from './s3-fixtures.js';
import type { S3Suite } from './s3-fixtures.js';

const EARLIER = '2025-05-01T00:00:00Z';
/** At most this many requests in flight: a stop cuts off a few, and the run is still fetching when it comes. */
const IN_FLIGHT = 4;
/** The paged lists of the reliability pipeline (custom events, data integrations): every run reads them whole. */
const WHOLE_LISTS = new Set(['/events/list', '/cdi/integrations']);

interface RequestLine {
  ts: string;
  path: string;
  query: string;
  /** Set when the request did not complete (cut off in flight). */
  error?: string;
}

function requestsOf(stderr: string): RequestLine[] {
  return stderr
    .split('\n')
    .filter((l) => l.includes('"type":"request"'))
    .map((l) => JSON.parse(l) as RequestLine);
}

/** The series a request belongs to: its path and query without the window's bounds. */
function seriesOf(r: RequestLine): string {
  const q = new URLSearchParams(r.query);
  for (const bound of ['starting_at', 'ending_at', 'length']) q.delete(bound);
  q.sort();
  return `${r.path}?${q.toString()}`;
}

/**
 * The requests of `resumed` that `stopped` had already completed and that resuming does not explain: a resumed run may
 * read the whole lists again, and send again what `stopped` received at `since` or later (in its last checkpoint
 * interval or after) or what belongs to a window it had not finished by then (a series with a request at `since` or
 * later, or cut off).
 */
function needlesslyResent(stopped: CliResult, resumed: CliResult, since?: string): RequestLine[] {
  const before = requestsOf(stopped.stderr);
  const lost = new Set(
    before.filter((r) => (since !== undefined && r.ts >= since) || r.error !== undefined).map(seriesOf),
  );
  const done = new Set(before.filter((r) => r.error === undefined).map((r) => `${r.path}?${r.query}`));
  return requestsOf(resumed.stderr).filter(
    (r) => done.has(`${r.path}?${r.query}`) && !WHOLE_LISTS.has(r.path) && !lost.has(seriesOf(r)),
  );
}

describe('checkpoints of a run on an object-store database', () => {
  let dir: string;
  let em: Emulator;
  let store: S3TestServer;
  let s3: S3Suite['s3'];
  /** Slow answers: a first backfill of the reliability pipeline takes ≈ 8 s, long enough to stop it in the middle. */
  let slow: Emulator;
  const secrets = new SecretScan();
  const suite = s3Suite('engage-etl-s3-ckpt-', async (x) =>
    expect((await secrets.find(x.em.demoApiKey)).places).toEqual([]),
  );
  beforeAll(async () => {
    ({ dir, em, store, s3 } = suite);
    slow = await startEmulator({ latencyMs: 200 });
  });
  afterAll(async () => {
    await slow?.close();
  });

  async function emptyWorkDir(name: string): Promise<string> {
    const work = join(dir, `work-${name}`);
    await mkdir(work);
    return work;
  }

  function runArgs(t: Target, work: string, until = UNTIL, extra: string[] = []): string[] {
    return [
      'run',
      '--pipeline',
      t.pipeline,
      '--base-url',
      slow.url,
      '--db',
      t.db,
      '--out',
      t.out,
      '--until',
      until,
      '--work-dir',
      work,
      '--max-in-flight',
      String(IN_FLIGHT),
      '--checkpoint-every',
      '1s',
      '--json',
      '--log-level',
      'debug',
      ...extra,
    ];
  }

  const env = () => ({ ...store.env, ENGAGE_API_KEY: slow.demoApiKey });

  function remoteTarget(t: Target, prefix: string): Target {
    return { ...t, db: `s3://${store.bucket}/${prefix}/engage.duckdb`, out: `s3://${store.bucket}/${prefix}-parquet` };
  }

  /** The run's one JSON line on stdout. */
  function summaryOf(r: CliResult): { status: string; requests: number | { sent: number } } {
    return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { status: string; requests: number | { sent: number } };
  }

  const sent = (r: CliResult): number => {
    const requests = summaryOf(r).requests;
    return typeof requests === 'number' ? requests : requests.sent;
  };

  async function note(prefix: string): Promise<{ key: string; takenAt: string } | undefined> {
    try {
      const answer = await s3.send(
        new GetObjectCommand({ Bucket: store.bucket, Key: `${prefix}/engage.duckdb.checkpoint.json` }),
      );
      return JSON.parse(await answer.Body!.transformToString()) as { key: string; takenAt: string };
    } catch {
      return undefined;
    }
  }

  /** A clean, uninterrupted local run of the same pipeline: its tables and its request count. */
  async function cleanRun(name: string, untils: string[]): Promise<{ db: string; requests: number }> {
    const clean = await makeTarget(dir, name);
    let requests = 0;
    for (const until of untils) requests = (await runInProcess(em, clean, { until })).requests.sent;
    return { db: clean.db, requests };
  }

  async function published(prefix: string, name: string): Promise<string> {
    const file = join(dir, `${name}.duckdb`);
    await download(s3, store.bucket, `${prefix}/engage.duckdb`, file);
    return file;
  }

  it('SIGTERM during a first backfill keeps a checkpoint; plan sees it, query does not; a run from a new empty folder resumes from it and ends equal to an uninterrupted run', async () => {
    const t = remoteTarget(await makeTarget(dir, 'term'), 'term');
    const { child, done } = spawnCli(runArgs(t, await emptyWorkDir('term-1')), env());
    let stderr = '';
    await new Promise<void>((resolve) => {
      child.stderr!.on('data', (d: Buffer) => {
        stderr += d.toString();
        // Well into the backfill (about half of its ≈ 150 requests), several commits made.
        if ((stderr.match(/"type":"request"/g) ?? []).length >= 70) resolve();
      });
    });
    child.kill('SIGTERM');
    const stopped = await done;
    secrets.text(stopped.stdout, stopped.stderr);
    expect(stopped.code, stopped.stderr.slice(-800)).toBe(EXIT.interrupted);
    expect(summaryOf(stopped).status).toBe('interrupted');
    expect(stopped.stdout).toContain('what was fetched before was committed; run it again');
    const keys = (await listKeys(s3, store.bucket, 'term/')).map((o) => o.key);
    // No published database (the first run never finished), no lock; the checkpoint and its note beside the key.
    expect(keys.filter((k) => !k.startsWith('term/engage.duckdb.checkpoint/'))).toEqual([
      'term/engage.duckdb.checkpoint.json',
      'term/engage.duckdb.last-run.json',
    ]);
    expect(keys.filter((k) => k.startsWith('term/engage.duckdb.checkpoint/'))).toEqual([(await note('term'))!.key]);

    const plan = await runCli(
      ['plan', '--pipeline', t.pipeline, '--base-url', slow.url, '--db', t.db, '--until', UNTIL],
      env(),
    );
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).not.toContain('stored state: none');
    expect(plan.stdout).toContain('stored state: read (checkpoint of a run that did not publish)');
    // `status` shows what the checkpoint holds, and how the run ended (from its note).
    const status = await runCli(['status', '--db', t.db], store.env);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^nothing published yet: shown is what the first run committed before it stopped/);
    expect(status.stdout).toMatch(/^last run \S+: interrupted — .*; finished \d{4}-\d\d-\d\d \d\d:\d\d UTC/m);
    expect(status.stdout).toMatch(/^-+ {2}/m);
    const query = await runCli(['query', 'SELECT count(*) FROM _etl_runs', '--db', t.db], store.env);
    expect(query.code).toBe(EXIT.failed);
    expect(query.stderr).toContain('no published database');

    const resumed = await runCli(runArgs(t, await emptyWorkDir('term-2')), env());
    secrets.text(resumed.stdout, resumed.stderr);
    expect(resumed.code, resumed.stderr.slice(-800)).toBe(0);
    expect(resumed.stderr).toContain('"code":"checkpoint_resumed"');
    const clean = await cleanRun('term-clean', [UNTIL]);
    expect(await tableDifferences(clean.db, await published('term', 'term-published'))).toEqual({});
    // The SIGTERM's checkpoint held every commit: the resumed run sent again only the lists and the unfinished windows.
    expect(needlesslyResent(stopped, resumed)).toEqual([]);
    expect(requestsOf(stopped.stderr).filter((r) => r.error === undefined).length + sent(resumed)).toBeLessThan(
      clean.requests * 1.15,
    );
    // The publish replaced the checkpoint.
    expect((await listKeys(s3, store.bucket, 'term/')).map((o) => o.key)).toEqual([
      'term/engage.duckdb',
      'term/engage.duckdb.last-run.json',
    ]);
  }, 180_000);

  it('kill -9 (no grace) loses only what came after the last periodic checkpoint; readers keep the published database; the resumed run ends equal to an uninterrupted one', async () => {
    const t = remoteTarget(await makeTarget(dir, 'kill'), 'kill');
    const first = await runCli(runArgs(t, await emptyWorkDir('kill-0'), EARLIER), env());
    expect(first.code, first.stderr.slice(-800)).toBe(0);

    const { child, done } = spawnCli(runArgs(t, await emptyWorkDir('kill-1')), env());
    let checkpointed = false;
    while (!checkpointed && child.exitCode === null) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      checkpointed = (await note('kill')) !== undefined;
    }
    expect(checkpointed, 'no checkpoint was uploaded before the run ended').toBe(true);
    child.kill('SIGKILL');
    const killed = await done;
    secrets.text(killed.stdout, killed.stderr);
    expect(killed.signal).toBe('SIGKILL');
    const last = (await note('kill'))!;

    // A reader sees the database the first run published, not the checkpoint: one run, up to EARLIER.
    const query = await runCli(
      ['query', 'SELECT count(*) AS runs, max("until") AS until FROM _etl_runs', '--db', t.db, '--format', 'json'],
      store.env,
    );
    expect(query.code, query.stderr).toBe(0);
    expect(query.stdout).toContain('"runs":1');
    expect(query.stdout).toContain('2025-05-01');

    const resumed = await runCli(runArgs(t, await emptyWorkDir('kill-2')), env());
    secrets.text(resumed.stdout, resumed.stderr);
    expect(resumed.code, resumed.stderr.slice(-800)).toBe(0);
    expect(resumed.stderr).toContain('took over a stale lock');
    expect(resumed.stderr).toContain('"code":"checkpoint_resumed"');
    const clean = await cleanRun('kill-clean', [EARLIER, UNTIL]);
    expect(await tableDifferences(clean.db, await published('kill', 'kill-published'))).toEqual({});
    // Only what came in the last checkpoint interval before the copy (rows wait up to a quarter second for their commit)
    // or after it, and the lists, was sent again.
    const interval = new Date(Date.parse(last.takenAt) - 1000).toISOString();
    expect(needlesslyResent(killed, resumed, interval)).toEqual([]);
    expect((await listKeys(s3, store.bucket, 'kill/')).map((o) => o.key)).toEqual([
      'kill/engage.duckdb',
      'kill/engage.duckdb.last-run.json',
    ]);
  }, 180_000);

  it('a checkpoint left by a run killed right after it published is older than the published database: the next run removes it and starts from the published one', async () => {
    const t = remoteTarget(await makeTarget(dir, 'stale'), 'stale');
    const killed = await runCli(runArgs(t, await emptyWorkDir('stale-1'), EARLIER), {
      ...env(),
      [CRASH_AT_ENV]: 'database-published:1',
    });
    expect(killed.signal, killed.stderr.slice(-800)).toBe('SIGKILL');
    expect(await note('stale'), 'the run uploaded no checkpoint before publishing').toBeDefined();

    const next = await runCli(runArgs(t, await emptyWorkDir('stale-2')), env());
    expect(next.code, next.stderr.slice(-800)).toBe(0);
    expect(next.stderr).toContain('"code":"checkpoint_discarded"');
    expect(next.stderr).not.toContain('"code":"checkpoint_resumed"');
    const clean = await cleanRun('stale-clean', [EARLIER, UNTIL]);
    expect(await tableDifferences(clean.db, await published('stale', 'stale-published'))).toEqual({});
    expect((await listKeys(s3, store.bucket, 'stale/')).map((o) => o.key)).toEqual([
      'stale/engage.duckdb',
      'stale/engage.duckdb.last-run.json',
    ]);
  }, 180_000);

  it('a run stopped while the store is unreachable does not claim that what it committed was kept: it says what is lost', async () => {
    const gone = await startS3TestServer();
    const saved = { ...process.env };
    Object.assign(process.env, gone.env);
    const t = { ...(await makeTarget(dir, 'gone')), db: `s3://${gone.bucket}/gone/engage.duckdb` };
    const stop = new AbortController();
    let commits = 0;
    try {
      const run = runInProcess(
        slow,
        t,
        { checkpointEvery: '1h', maxInFlight: String(IN_FLIGHT) },
        {
          signal: stop.signal,
          reporter: {
            emit: (e) => {
              // The store goes away mid-run, then SIGTERM comes: the checkpoint of the stop cannot be uploaded.
              if (e.type === 'committed' && (commits += 1) === 3) void gone.close().then(() => stop.abort());
            },
            close: () => undefined,
          },
        },
      );
      const err = await run.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(InterruptedError);
      expect((err as InterruptedError).progressKept).toBe(false);
      expect((err as Error).message).toMatch(
        /could not be uploaded as a checkpoint beside s3:\/\/lake\/gone\/engage\.duckdb and is lost/,
      );
      expect((err as Error).message).not.toContain('what was fetched before was committed');
    } finally {
      for (const k of Object.keys(gone.env)) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    }
  }, 180_000);
});
