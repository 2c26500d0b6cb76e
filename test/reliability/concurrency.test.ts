// Concurrency: a second `engage-etl run` on a database a live run holds is refused at once, naming that run's pid and
// start time; the lock of a killed run is stale and the next run takes it over.
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { CRASH_AT_ENV } from '../../src/process/crash-point.js';
import type { LockHolder } from '../../src/store/run-lock.js';
import {
  SecretScan,
  leftovers,
  makeTarget,
  removeDir,
  spawnRun,
  startEmulator,
  tempDir,
} from './reliability-helpers.js';

describe('two runs on one database', () => {
  let dir: string;
  let em: Emulator;
  const secrets = new SecretScan();

  beforeAll(async () => {
    dir = await tempDir();
    // Slow answers keep the first run going long enough to try a second one against it.
    em = await startEmulator({ latencyMs: 40 });
  });

  afterAll(async () => {
    await em?.close();
    const found = await secrets.find(em.demoApiKey);
    await removeDir(dir);
    expect(found.places).toEqual([]);
  });

  it("refuses the second run at once, naming the first run's pid and start time, and lets the first finish", async () => {
    const t = await makeTarget(dir, 'busy');
    secrets.target(t);
    // Slower answers still: the first run must outlast the second one's start-up even on a loaded machine (≈ 4 s).
    const slow = await startEmulator({ latencyMs: 200 });
    try {
      const first = spawnRun(t, slow, slow.demoApiKey);
      let firstDone = false;
      void first.done.then(() => (firstDone = true));
      const lockPath = `${t.db}.lock`;
      while (!existsSync(lockPath)) {
        if (firstDone) throw new Error(`the first run ended before taking the lock: ${(await first.done).stderr}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      const holder = JSON.parse(await readFile(lockPath, 'utf8')) as LockHolder;
      expect(holder.pid).toBe(first.child.pid);

      const second = await spawnRun(t, slow, slow.demoApiKey).done;
      secrets.text(second.stdout, second.stderr);
      expect(firstDone, 'the second run waited for the first instead of being refused at once').toBe(false);
      expect(second.code).not.toBe(0);
      const lines = second.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`pid ${first.child.pid}`);
      expect(lines[0]).toContain(`started ${holder.startedAt}`);
      expect(lines[0]).toMatch(/^engage-etl: another engage-etl run holds .*busy\.duckdb/);

      const firstResult = await first.done;
      secrets.text(firstResult.stdout, firstResult.stderr);
      expect(firstResult.code, firstResult.stderr.slice(-500)).toBe(0);
      expect(existsSync(lockPath)).toBe(false);
    } finally {
      await slow.close();
    }
  });

  it('takes over the lock of a killed run and says so', async () => {
    const t = await makeTarget(dir, 'stale');
    secrets.target(t);
    const killed = await spawnRun(t, em, em.demoApiKey, [], { [CRASH_AT_ENV]: 'commit-done:1' }).done;
    expect(killed.signal).toBe('SIGKILL');
    const stale = JSON.parse(await readFile(`${t.db}.lock`, 'utf8')) as LockHolder;

    const next = await spawnRun(t, em, em.demoApiKey).done;
    secrets.text(next.stdout, next.stderr);
    expect(next.code, next.stderr.slice(-500)).toBe(0);
    expect(next.stderr).toContain(`took over a stale lock of a run that no longer exists (pid ${stale.pid})`);
    expect(next.stderr).toMatch(new RegExp(`run \\S+ \\(pid ${stale.pid}\\) ended without recording its end`));
    expect(await leftovers(t.dir)).toEqual([]);
  });

  it('takes over a lock whose pid now belongs to a live, unrelated process (pid reused), without telling the user to stop it', async () => {
    const t = await makeTarget(dir, 'reused');
    secrets.target(t);
    // This test process is alive and is no engage-etl run: the lock records another process start for its pid.
    const lock: LockHolder = {
      pid: process.pid,
      startedAt: '2025-06-14T23:00:00.000Z',
      host: hostname(),
      command: 'engage-etl run',
      processStartedAt: '2025-06-14T22:59:58.000Z',
    };
    await writeFile(`${t.db}.lock`, JSON.stringify(lock));
    const next = await spawnRun(t, em, em.demoApiKey).done;
    secrets.text(next.stdout, next.stderr);
    expect(next.code, next.stderr.slice(-500)).toBe(0);
    expect(next.stderr).toContain(`took over a stale lock of a run that no longer exists (pid ${process.pid})`);
    expect(next.stderr).toContain('now belongs to an unrelated process');
    expect(next.stderr).not.toMatch(/stop it/);
    expect(existsSync(`${t.db}.lock`)).toBe(false);
  });

  it('takes over a lock file naming a process that has exited and sweeps the temp files such processes leave', async () => {
    const t = await makeTarget(dir, 'orphan');
    secrets.target(t);
    const gone = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid!;
    const lock: LockHolder = {
      pid: gone,
      startedAt: '2025-06-14T23:00:00.000Z',
      host: hostname(),
      command: 'engage-etl run',
    };
    await writeFile(`${t.db}.lock`, JSON.stringify(lock));
    // What a run killed while taking a lock or probing --out leaves; the next run must sweep it.
    await mkdir(t.out, { recursive: true });
    for (const leftover of [
      `${t.db}.lock.${gone}.0a1b2c3d.tmp`,
      `${t.db}.lock.stale-${gone}-0a1b2c3d`,
      join(t.out, `.engage-etl-write-test-${gone}`),
    ])
      await writeFile(leftover, '{}');

    const next = await spawnRun(t, em, em.demoApiKey).done;
    secrets.text(next.stdout, next.stderr);
    expect(next.code, next.stderr.slice(-500)).toBe(0);
    expect(next.stderr).toContain(`(pid ${gone})`);
    expect(existsSync(`${t.db}.lock`)).toBe(false);
    expect(await leftovers(t.dir)).toEqual([]);
  });
});
