// Readers beside the nightly run: a BI tool's read-only connection (a separate process) stays open on --db across a whole
// run, which succeeds; a reader, `query` and `status` opened in the middle of a run read the previous complete state; a
// killed run loses nothing committed; a database from before published snapshots is adopted, with its own tables.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { CRASH_AT_ENV } from '../../src/process/crash-point.js';
import { snapshotFiles } from '../../src/store/published-snapshot.js';
import type { CliResult, Target } from './reliability-helpers.js';
import {
  REPO,
  SecretScan,
  leftovers,
  makeTarget,
  removeDir,
  runCli,
  spawnRun,
  startEmulator,
  tableChecksums,
  tempDir,
} from './reliability-helpers.js';

const EARLIER = '2025-05-01T00:00:00Z';
const STATE_SQL = `SELECT (SELECT count(*) FROM "_etl_runs" WHERE "status" = 'succeeded') AS runs,
  (SELECT max("watermark")::VARCHAR FROM "_etl_series_state") AS watermark, (SELECT count(*) FROM "revenue") AS revenue`;

/** A BI tool in its own process: a read-only DuckDB connection kept open until told to reopen or quit. */
class ReaderProcess {
  readonly #child: ChildProcess;
  readonly #lines: AsyncIterator<string>;

  private constructor(child: ChildProcess) {
    this.#child = child;
    this.#lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  }

  static async open(path: string): Promise<ReaderProcess> {
    const script = `
      import { DuckDBInstance } from '@duckdb/node-api';
      import { createInterface } from 'node:readline';
      let instance, conn;
      const open = async () => { instance = await DuckDBInstance.create(process.argv[1], { access_mode: 'READ_ONLY' }); conn = await instance.connect(); };
      await open();
      console.log(JSON.stringify({ opened: true }));
      for await (const line of createInterface({ input: process.stdin })) {
        try {
          if (line === 'reopen') { conn.closeSync(); instance.closeSync(); await open(); console.log(JSON.stringify({ opened: true })); continue; }
          console.log(JSON.stringify({ rows: (await conn.runAndReadAll(line)).getRowObjectsJson() }));
        } catch (err) { console.log(JSON.stringify({ error: err.message })); }
      }`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, path], {
      cwd: REPO,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const reader = new ReaderProcess(child);
    expect(await reader.#next()).toEqual({ opened: true });
    return reader;
  }

  async #next(): Promise<Record<string, unknown>> {
    const { value, done } = await this.#lines.next();
    if (done) throw new Error('the reader process ended');
    return JSON.parse(value as string) as Record<string, unknown>;
  }

  async query(sql: string): Promise<Record<string, unknown>> {
    this.#child.stdin!.write(`${sql.replace(/\s+/g, ' ')}\n`);
    const answer = await this.#next();
    if (answer['error']) throw new Error(`reader: ${String(answer['error'])}`);
    return (answer['rows'] as Record<string, unknown>[])[0]!;
  }

  async reopen(): Promise<void> {
    this.#child.stdin!.write('reopen\n');
    expect(await this.#next()).toEqual({ opened: true });
  }

  close(): void {
    this.#child.kill();
  }
}

/** The published state read in this process (a reader of its own), closed again at once. */
async function publishedState(db: string): Promise<Record<string, unknown>> {
  const instance = await DuckDBInstance.create(db, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  try {
    return (await conn.runAndReadAll(STATE_SQL)).getRowObjectsJson()[0]!;
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

describe('readers beside the nightly run', () => {
  let dir: string;
  let em: Emulator;
  const secrets = new SecretScan();

  beforeAll(async () => {
    dir = await tempDir();
    em = await startEmulator();
  });

  afterAll(async () => {
    await em?.close();
    const found = await secrets.find(em.demoApiKey);
    await removeDir(dir);
    expect(found.places).toEqual([]);
  });

  async function run(
    t: Target,
    extra: string[] = [],
    env: Record<string, string> = {},
    emulator: { url: string; demoApiKey: string } = em,
  ): Promise<CliResult> {
    const result = await spawnRun(t, emulator, emulator.demoApiKey, extra, env).done;
    secrets.text(result.stdout, result.stderr);
    return result;
  }

  it('a read-only connection held open across a whole run does not block it, keeps reading the old state whole, and sees the new data after reopening', async () => {
    const t = await makeTarget(dir, 'held');
    secrets.target(t);
    expect((await run(t, ['--until', EARLIER])).code).toBe(0);
    const before = await publishedState(t.db);
    const reader = await ReaderProcess.open(t.db);
    try {
      expect(await reader.query(STATE_SQL)).toEqual(before);
      const second = await run(t);
      expect(second.code, second.stderr.slice(-500)).toBe(0);
      // The old file stays whole under the open connection: the previous run's state, not a mix.
      expect(await reader.query(STATE_SQL)).toEqual(before);
      await reader.reopen();
      const after = await reader.query(STATE_SQL);
      expect(after['runs']).toBe('2');
      expect(String(after['watermark']) > String(before['watermark'])).toBe(true);
      expect(after).toEqual(await publishedState(t.db));
    } finally {
      reader.close();
    }
    expect(await leftovers(t.dir)).toEqual([]);
  });

  it('a reader, `query` and `status` opened in the middle of a run read the previous complete state, while the run goes on', async () => {
    const t = await makeTarget(dir, 'middle');
    secrets.target(t);
    expect((await run(t, ['--until', EARLIER])).code).toBe(0);
    const before = await publishedState(t.db);
    const beforeTables = await tableChecksums(t.db);
    // Slow answers keep the run going (≈ 150 requests at 1 s, 8 in flight: ≈ 20 s) while the readers come and go, even on
    // a loaded machine. --max-in-flight holds it at 8: left to itself the default pool would keep 105 in flight at 1 s.
    const slow = await startEmulator({ latencyMs: 1000 });
    try {
      const requestsBefore = slow.stats.requests;
      const { child, done } = spawnRun(t, slow, slow.demoApiKey, ['--max-in-flight', '8']);
      let finished = false;
      void done.then(() => (finished = true));
      // Wait until the run has fetched and committed part of the new data into its working copy.
      while (slow.stats.requests - requestsBefore < 16) {
        if (finished) throw new Error(`the run ended too soon: ${(await done).stderr.slice(-300)}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(existsSync(snapshotFiles(t.db).working)).toBe(true);

      expect(await tableChecksums(t.db)).toEqual(beforeTables);
      const reader = await ReaderProcess.open(t.db);
      try {
        expect(await reader.query(STATE_SQL)).toEqual(before);
      } finally {
        reader.close();
      }
      const query = await runCli(['query', STATE_SQL, '--db', t.db, '--format', 'json']);
      expect(query.code, query.stderr).toBe(0);
      expect(JSON.parse(query.stdout)).toEqual([
        { ...before, runs: Number(before['runs']), revenue: Number(before['revenue']) },
      ]);
      const status = await runCli(['status', '--db', t.db, '--json']);
      expect(status.code, status.stderr).toBe(0);
      const shown = JSON.parse(status.stdout) as { lastRun: { status: string }; running: { pid: number } | null };
      expect(shown.lastRun.status).toBe('succeeded');
      expect(shown.running?.pid).toBe(child.pid);
      expect(finished, 'the readers must have been served while the run was still going').toBe(false);
      expect(child.exitCode).toBeNull();

      const result = await done;
      secrets.text(result.stdout, result.stderr);
      expect(result.code, result.stderr.slice(-500)).toBe(0);
      expect((await publishedState(t.db))['runs']).toBe('2');
    } finally {
      await slow.close();
    }
  });

  it('a run killed mid-run leaves the published file at the previous run, loses nothing committed, and the rerun equals a clean run', async () => {
    const clean = await makeTarget(dir, 'killed-clean');
    expect((await run(clean)).code).toBe(0);
    const t = await makeTarget(dir, 'killed');
    secrets.target(t);
    expect((await run(t, ['--until', EARLIER])).code).toBe(0);
    const before = await tableChecksums(t.db);
    const publishedBefore = await publishedState(t.db);
    // The first commit of a revenue-only run holds fetched revenue rows (commits gather up to 5,000 rows or 250 ms, so
    // how many a whole nightly increment makes depends on the machine's pace).
    for (const [kill, args] of [
      ['commit-done:1', ['--streams', 'revenue']],
      ['snapshot-copied:1', []],
    ] as const) {
      const killed = await run(t, [...args], { [CRASH_AT_ENV]: kill });
      expect(killed.signal, `${kill}: ${killed.stderr.slice(-300)}`).toBe('SIGKILL');
      expect(await tableChecksums(t.db)).toEqual(before);
      if (kill === 'commit-done:1') {
        // The batches it committed are in the working copy, ahead of the published state, for the rerun to carry on from.
        const working = await publishedState(snapshotFiles(t.db).working);
        expect(Number(working['revenue'])).toBeGreaterThan(Number(publishedBefore['revenue']));
      }
    }
    const rerun = await run(t, ['--json']);
    expect(rerun.code, rerun.stderr.slice(-500)).toBe(0);
    // first_seen_at is the --until of the run that first saw an event name: history, not data.
    const history = ['custom_events.first_seen_at', 'listed_objects.first_seen_at'];
    expect(await tableChecksums(t.db, history)).toEqual(await tableChecksums(clean.db, history));
    expect(await leftovers(t.dir)).toEqual([]);
  });

  it("adopts a database from before published snapshots, and keeps a table of the user's own written into the published file", async () => {
    const t = await makeTarget(dir, 'adopt');
    secrets.target(t);
    expect((await run(t, ['--until', EARLIER])).code).toBe(0);
    const files = snapshotFiles(t.db);
    await rm(files.working);
    await rm(files.stamp);
    const adopted = await run(t);
    expect(adopted.code, adopted.stderr.slice(-500)).toBe(0);
    expect(adopted.stderr).toContain(`adopted ${files.published} as the working copy`);
    expect((await publishedState(t.db))['runs']).toBe('2');

    // The user adds a table of their own to the file they know.
    const instance = await DuckDBInstance.create(t.db);
    const conn = await instance.connect();
    await conn.run(`CREATE TABLE crm_users AS SELECT 'u' || i AS external_id FROM range(5) t(i)`);
    conn.closeSync();
    instance.closeSync();
    const next = await run(t);
    expect(next.code, next.stderr.slice(-500)).toBe(0);
    expect(next.stderr).toContain('was changed by another program since engage-etl last published it');
    const check = await runCli(['query', 'SELECT count(*) AS n FROM crm_users', '--db', t.db, '--format', 'json']);
    expect(JSON.parse(check.stdout)).toEqual([{ n: 5 }]);
    expect(await leftovers(t.dir)).toEqual([]);
  });

  it('`query` before the first run has published says so', async () => {
    const t = await makeTarget(dir, 'first');
    const killed = await run(t, [], { [CRASH_AT_ENV]: 'commit-done:1' });
    expect(killed.signal).toBe('SIGKILL');
    const query = await runCli(['query', 'SELECT 1', '--db', t.db]);
    expect(query.code).toBe(1);
    expect(query.stderr).toContain(
      `no published database at ${snapshotFiles(t.db).published} yet: the first run has not finished`,
    );
    // `status` shows what the killed run committed, from the working copy the next run resumes from.
    const status = await runCli(['status', '--db', t.db]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^nothing published yet: shown is what the first run committed before it stopped/m);
    expect(status.stdout).toMatch(/^last run \S+: abandoned — the process ended without recording its end/m);
    expect(status.stdout).toMatch(/^-+ {2}/m);
  });
});
