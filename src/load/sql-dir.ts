// Finds the project's sql/ folder and applies its DDL. The code runs from src/ (vitest) and from dist/src/ (built), so the
// folder is found by walking up to the directory that holds package.json rather than by a fixed relative path.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DuckDBConnection } from '@duckdb/node-api';
import { FatalError } from '../errors.js';

/** The sql/ folder of the package this module belongs to. */
export function findSqlDir(fromUrl: string = import.meta.url): string {
  const start = dirname(fileURLToPath(fromUrl));
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) {
      const sql = join(dir, 'sql');
      if (!existsSync(sql)) throw new FatalError(`the package at ${dir} has no sql/ folder; reinstall engage-etl`);
      return sql;
    }
    if (dirname(dir) === dir) throw new FatalError(`no package.json above ${start}; engage-etl must run from its package folder`);
  }
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
