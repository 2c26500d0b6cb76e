// Finds the project's sql/ folder (config/package-dir.ts) and applies its DDL.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { findShippedDir } from '../config/package-dir.js';
import { FatalError } from '../errors.js';

/** The sql/ folder of the package this module belongs to. */
export function findSqlDir(fromUrl: string = import.meta.url): string {
  return findShippedDir('sql', fromUrl);
}

/** Run every sql/*.sql file in name order; each is idempotent (CREATE … IF NOT EXISTS). */
export async function applySqlDir(conn: DuckDBConnection, sqlDir: string = findSqlDir()): Promise<void> {
  const files = (await readdir(sqlDir)).filter((name) => name.endsWith('.sql')).sort();
  for (const file of files) {
    const text = await readFile(join(sqlDir, file), 'utf8');
    try {
      await conn.run(text);
    } catch (err) {
      throw new FatalError(`applying ${join(sqlDir, file)} failed: ${(err as Error).message}`, { cause: err });
    }
  }
}
