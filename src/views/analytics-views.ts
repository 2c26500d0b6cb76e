// The analyst views of schema "analytics": their SQL lives in sql/views/*.sql (one file per family, applied in name
// order). They read the base tables as "main"."<table>", so the same text defines them over the DuckDB file or, behind
// one base view per table, over the Parquet tree.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findSqlDir } from '../load/sql-dir.js';
import { sqlString } from '../load/table-definition.js';
import { SettingsStore } from '../load/settings-store.js';
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

const VIEW_HEAD = /CREATE OR REPLACE VIEW ("analytics"\."[^"]+") AS\s+/g;

/** Index of the `;` ending the statement that starts at `from`: the first one outside a quoted string or name. */
function statementEnd(sql: string, from: number): number {
  let quote: string | undefined;
  for (let i = from; i < sql.length; i++) {
    const c = sql[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === ';') return i;
  }
  return sql.length;
}

/**
 * The views of a database that exports one workspace of a shared lake: each gets `workspace` as its first column (a
 * constant — one database holds one workspace), so rows read side by side with another workspace's stay apart.
 */
function withWorkspaceColumn(sql: string, workspace: string): string {
  const out: string[] = [];
  let at = 0;
  for (const head of sql.matchAll(VIEW_HEAD)) {
    if (head.index < at) continue;
    const bodyStart = head.index + head[0].length;
    const end = statementEnd(sql, bodyStart);
    const name = head[1]!;
    out.push(
      sql.slice(at, head.index),
      [
        `CREATE OR REPLACE VIEW ${name} AS`,
        `SELECT ${sqlString(workspace)} AS "workspace", COLUMNS(c -> c <> 'workspace') FROM (`,
        sql.slice(bodyStart, end).trimEnd(),
        ');',
        `COMMENT ON COLUMN ${name}."workspace" IS 'The workspace these rows come from (the pipeline''s workspace:), as in the workspace=NAME/ part of the Parquet paths.'`,
      ].join('\n'),
    );
    at = end;
  }
  return out.join('') + sql.slice(at);
}

/**
 * The whole script: schema, then every view with its comments. Idempotent (CREATE OR REPLACE). With a workspace, every
 * view starts with a `workspace` column.
 */
export function analyticsViewsSql(files: readonly ViewFile[] = viewFiles(), workspace?: string): string {
  const sql =
    [`CREATE SCHEMA IF NOT EXISTS "${ANALYTICS_SCHEMA}";`, ...files.map((f) => `-- ${f.name}\n${f.sql.trim()}`)].join(
      '\n\n',
    ) + '\n';
  return workspace === undefined ? sql : withWorkspaceColumn(sql, workspace);
}

/**
 * (Re)create every analyst view in the warehouse in one transaction: a reader sees the old views or the new ones, and a
 * view that no longer binds fails the call naming its file. The workspace is the one the database records.
 */
export async function createAnalyticsViews(wh: Warehouse): Promise<void> {
  await wh
    .query(`BEGIN TRANSACTION; ${analyticsViewsSql(undefined, await new SettingsStore(wh).workspace())} COMMIT;`)
    .catch(async (err: unknown) => {
      await wh.query('ROLLBACK').catch(() => undefined);
      throw err;
    });
}
