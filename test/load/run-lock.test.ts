import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { LockedError } from '../../src/errors.js';
import { RunLock } from '../../src/load/run-lock.js';
import { tempDirPerTest } from './warehouse-helpers.js';

const t = tempDirPerTest();

/** A real process that stays alive until killed. */
async function startHolder(): Promise<ChildProcess> {
  const proc = spawn(process.execPath, ['-e', 'console.log("ready"); setInterval(() => {}, 1000)'], { stdio: ['ignore', 'pipe', 'inherit'] });
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
    await writeFile(`${db}.lock`, JSON.stringify({ pid: t.child.pid, startedAt: '2024-03-05T01:02:03.000Z', host: hostname(), command: 'engage-etl run' }));
    const attempt = RunLock.acquire(db);
    await expect(attempt).rejects.toBeInstanceOf(LockedError);
    await expect(attempt).rejects.toThrow(`another engage-etl run holds ${db} (pid ${t.child.pid}, started 2024-03-05T01:02:03.000Z); wait for it or stop it`);
  });

  it('takes over the lock of a process that has died, and says so', async () => {
    t.child = await startHolder();
    const deadPid = t.child.pid!;
    const exited = new Promise((ok) => t.child!.once('exit', ok));
    t.child.kill('SIGKILL');
    await exited;
    const db = join(t.dir, 'w.duckdb');
    await writeFile(`${db}.lock`, JSON.stringify({ pid: deadPid, startedAt: '2024-03-05T01:02:03.000Z', host: hostname(), command: 'engage-etl run' }));
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
    const other = JSON.stringify({ pid: process.pid, startedAt: '2030-01-01T00:00:00.000Z', host: hostname(), command: 'x' });
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
