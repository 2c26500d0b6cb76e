// Shared fixtures of the load and export tests: a fresh temp folder or warehouse per test and small builders of rows.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterEach, beforeEach } from 'vitest';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';

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

/**
 * A fresh warehouse file per test of the calling file, opened with every table before each test and closed after it:
 * `const db = warehousePerTest('x.duckdb');` then `db.wh`; `db.reopen()` closes it and opens the same file again.
 */
export function warehousePerTest(file = 'warehouse.duckdb'): {
  readonly wh: Warehouse;
  readonly path: string;
  reopen(): Promise<Warehouse>;
} {
  const folder = tempDirPerTest();
  let wh: Warehouse | undefined;
  const state = {
    get wh(): Warehouse {
      if (!wh) throw new Error('warehousePerTest: the warehouse is open only inside a test');
      return wh;
    },
    get path(): string {
      return join(folder.dir, file);
    },
    async reopen(): Promise<Warehouse> {
      await wh?.close();
      wh = await Warehouse.open(state.path, WAREHOUSE_TABLES);
      return wh;
    },
  };
  beforeEach(async () => {
    wh = await Warehouse.open(state.path, WAREHOUSE_TABLES);
  });
  // Registered after tempDirPerTest's, so it runs before the folder is removed.
  afterEach(async () => {
    await wh?.close();
    wh = undefined;
  });
  return state;
}
