import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { LockedError } from '../../src/errors.js';
import { RunLock } from '../../src/store/run-lock.js';
import type { LockHolder } from '../../src/store/run-lock.js';
import { tempDirPerTest } from '../load/warehouse-helpers.js';

const t = tempDirPerTest();

/** A real process that stays alive until killed. */
async function startHolder(): Promise<ChildProcess> {
  const proc = spawn(process.execPath, ['-e', 'console.log("ready"); setInterval(() => {}, 1000)'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((ok) => proc.stdout!.once('data', () => ok()));
  return proc;
}

describe('RunLock', () => {
  it('creates <db>.lock naming this process and removes it on release', async () => {
    const db = join(t.dir, 'w.duckdb');
    const lock = await RunLock.acquire(db, { command: 'engage-etl run' });
    const stored = JSON.parse(await readFile(`${db}.lock`, 'utf8'));
    expect(stored).toMatchObject({ pid: process.pid, host: hostname(), command: 'engage-etl run' });
    expect(new Date(stored.startedAt).toISOString()).toBe(stored.startedAt);
    expect(lock.tookOverStale).toBe(false);
    await lock.release();
    expect(existsSync(`${db}.lock`)).toBe(false);
  });

  it('refuses while a live process holds the lock, naming its pid and start time', async () => {
    t.child = await startHolder();
    const db = join(t.dir, 'w.duckdb');
    // A lock is always taken after its process started: written now, like the holder would.
    const startedAt = new Date(Date.now() + 3000).toISOString();
    await writeFile(
      `${db}.lock`,
      JSON.stringify({ pid: t.child.pid, startedAt, host: hostname(), command: 'engage-etl run' }),
    );
    const attempt = RunLock.acquire(db);
    await expect(attempt).rejects.toBeInstanceOf(LockedError);
    await expect(attempt).rejects.toThrow(
      `another engage-etl run holds ${db} (pid ${t.child.pid}, started ${startedAt}); wait for it or stop it`,
    );
  });

  it('records the start of its process, and refuses a lock whose pid is alive with that same start', async () => {
    const db = join(t.dir, 'w.duckdb');
    const lock = await RunLock.acquire(db);
    const stored = JSON.parse(await readFile(`${db}.lock`, 'utf8')) as LockHolder;
    expect(Math.abs(Date.parse(stored.processStartedAt!) - (Date.now() - process.uptime() * 1000))).toBeLessThan(3000);
    await expect(RunLock.acquire(db)).rejects.toBeInstanceOf(LockedError);
    await lock.release();
  });

  it('takes over a lock whose pid is alive but belongs to a process started at another time (pid reused), without naming it as the holder', async () => {
    t.child = await startHolder();
    const db = join(t.dir, 'w.duckdb');
    const reused: LockHolder = {
      pid: t.child.pid!,
      startedAt: '2024-03-05T01:02:03.000Z',
      host: hostname(),
      command: 'engage-etl run',
      processStartedAt: '2024-03-05T01:02:01.000Z',
    };
    await writeFile(`${db}.lock`, JSON.stringify(reused));
    const lock = await RunLock.acquire(db);
    expect(lock.tookOverFrom?.pid).toBe(t.child.pid);
    expect(lock.staleBecause?.reason).toBe('pid-reused');
    expect(lock.staleNote).toMatch(
      new RegExp(
        `^took over a stale lock of a run that no longer exists \\(pid ${t.child.pid}\\) — .*unrelated process started .*left alone$`,
      ),
    );
    expect(lock.staleNote).not.toMatch(/stop it|kill/);
    expect(t.child.exitCode).toBeNull();
    await lock.release();
  });

  it('takes over a lock written before this start-time record, whose live pid started after the lock was taken', async () => {
    t.child = await startHolder();
    const db = join(t.dir, 'w.duckdb');
    await writeFile(
      `${db}.lock`,
      JSON.stringify({
        pid: t.child.pid,
        startedAt: '2024-03-05T01:02:03.000Z',
        host: hostname(),
        command: 'engage-etl run',
      }),
    );
    const lock = await RunLock.acquire(db);
    expect(lock.staleBecause?.reason).toBe('pid-reused');
    await lock.release();
  });

  it('takes over the lock of a process that has died, and says so', async () => {
    t.child = await startHolder();
    const deadPid = t.child.pid!;
    const exited = new Promise((ok) => t.child!.once('exit', ok));
    t.child.kill('SIGKILL');
    await exited;
    const db = join(t.dir, 'w.duckdb');
    await writeFile(
      `${db}.lock`,
      JSON.stringify({
        pid: deadPid,
        startedAt: '2024-03-05T01:02:03.000Z',
        host: hostname(),
        command: 'engage-etl run',
      }),
    );
    const lock = await RunLock.acquire(db);
    expect(lock.tookOverStale).toBe(true);
    expect(lock.tookOverFrom?.pid).toBe(deadPid);
    expect(JSON.parse(await readFile(`${db}.lock`, 'utf8')).pid).toBe(process.pid);
    await lock.release();
  });

  it('refuses a second acquire while the first is held, and allows it after release', async () => {
    const db = join(t.dir, 'w.duckdb');
    const first = await RunLock.acquire(db);
    await expect(RunLock.acquire(db)).rejects.toThrow(/another engage-etl run holds .* \(pid \d+, started /);
    await first.release();
    const second = await RunLock.acquire(db);
    await second.release();
  });

  it('does not remove a lock that another run has taken since', async () => {
    const db = join(t.dir, 'w.duckdb');
    const lock = await RunLock.acquire(db);
    const other = JSON.stringify({
      pid: process.pid,
      startedAt: '2030-01-01T00:00:00.000Z',
      host: hostname(),
      command: 'x',
    });
    await writeFile(`${db}.lock`, other);
    await lock.release();
    expect(await readFile(`${db}.lock`, 'utf8')).toBe(other);
  });

  it('names a lock file that is not an engage-etl lock and how to fix it', async () => {
    const db = join(t.dir, 'w.duckdb');
    await writeFile(`${db}.lock`, 'garbage');
    await expect(RunLock.acquire(db)).rejects.toThrow(/is not an engage-etl lock .*if no run is active, delete it/);
  });
});
