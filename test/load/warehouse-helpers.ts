// Shared fixtures of the load and export tests: a fresh temp folder per test and small builders of rows.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh temp folder and its removal. */
export async function tempDir(prefix = 'engage-etl-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export const utc = (iso: string): Date => new Date(`${iso}${iso.length === 10 ? 'T00:00:00Z' : iso.endsWith('Z') ? '' : 'Z'}`);

export function revenueRow(time: string, revenue: number, app = '*', product = '*', unit = 'day'): Record<string, unknown> {
  return { app_id: app, product, unit, time: utc(time), revenue };
}
