// Shared fixtures of the load and export tests: a fresh temp folder per test and small builders of rows.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterEach, beforeEach } from 'vitest';

/** A fresh temp folder and its removal. */
export async function tempDir(prefix = 'engage-etl-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * A fresh temp dir for every test of the calling file, and a slot for a child process that is killed after each test:
 * `const t = tempDirPerTest();` then `t.dir`, `t.child = spawn(...)`.
 */
export function tempDirPerTest(): { readonly dir: string; child: ChildProcess | undefined } {
  let current: { dir: string; cleanup: () => Promise<void> } | undefined;
  const state = {
    get dir(): string {
      if (!current) throw new Error('tempDirPerTest: the dir exists only inside a test');
      return current.dir;
    },
    child: undefined as ChildProcess | undefined,
  };
  beforeEach(async () => {
    current = await tempDir();
  });
  afterEach(async () => {
    if (state.child && state.child.exitCode === null) state.child.kill('SIGKILL');
    state.child = undefined;
    await current?.cleanup();
    current = undefined;
  });
  return state;
}

export const utc = (iso: string): Date =>
  new Date(`${iso}${iso.length === 10 ? 'T00:00:00Z' : iso.endsWith('Z') ? '' : 'Z'}`);

export function revenueRow(
  time: string,
  revenue: number,
  app = '*',
  product = '*',
  unit = 'day',
): Record<string, unknown> {
  return { app_id: app, product, unit, time: utc(time), revenue };
}
