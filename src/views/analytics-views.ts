// The analyst views of schema "analytics": their SQL lives in sql/views/*.sql (one file per family, applied in name
// order). They read the base tables as "main"."<table>", so the same text defines them over the DuckDB file or, behind
// one base view per table, over the Parquet tree.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findSqlDir } from '../load/sql-dir.js';
import type { Warehouse } from '../load/warehouse.js';

export const ANALYTICS_SCHEMA = 'analytics';

export interface ViewFile {
  /** File name, e.g. `20-purchases.sql`. */
  name: string;
  sql: string;
}

/** The view files in the order they are applied (a later file may read an earlier file's views). */
function viewFiles(sqlDir: string = findSqlDir()): ViewFile[] {
  const dir = join(sqlDir, 'views');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.sql'))
    .sort()
    .map((name) => ({ name, sql: readFileSync(join(dir, name), 'utf8') }));
}

/** The whole script: schema, then every view with its comments. Idempotent (CREATE OR REPLACE). */
export function analyticsViewsSql(files: readonly ViewFile[] = viewFiles()): string {
  return [`CREATE SCHEMA IF NOT EXISTS "${ANALYTICS_SCHEMA}";`, ...files.map((f) => `-- ${f.name}\n${f.sql.trim()}`)].join('\n\n') + '\n';
}

/**
 * (Re)create every analyst view in the warehouse in one transaction: a reader sees the old views or the new ones, and a
 * view that no longer binds fails the call naming its file.
 */
export async function createAnalyticsViews(wh: Warehouse): Promise<void> {
  await wh.query(`BEGIN TRANSACTION; ${analyticsViewsSql()} COMMIT;`).catch(async (err: unknown) => {
    await wh.query('ROLLBACK').catch(() => undefined);
    throw err;
  });
}
