// A database written before the history tables existed, opened read-only (status, query, report): it is read as it is,
// and what it cannot answer yet — the history tables and the analyst views that read them — is named, with the fix.
import type { Warehouse } from '../load/warehouse.js';
import { ANALYTICS_SCHEMA } from './analytics-views.js';

/**
 * The analyst views that read one of the database's absent history tables, directly or through another such view: they
 * fail when read. A database whose views predate the history tables has none.
 */
export async function viewsReadingAbsentHistory(wh: Warehouse): Promise<string[]> {
  if (wh.absentHistory.length === 0) return [];
  const views = await wh.query(`SELECT "view_name", "sql" FROM duckdb_views() WHERE "schema_name" = $1`, [
    ANALYTICS_SCHEMA,
  ]);
  const missing = new Set<string>(wh.absentHistory);
  const reading = new Set<string>();
  for (let grew = true; grew; ) {
    grew = false;
    for (const v of views) {
      const name = String(v['view_name']);
      if (reading.has(name)) continue;
      if ([...missing].some((m) => namesIn(String(v['sql'])).has(m))) {
        reading.add(name);
        missing.add(name);
        grew = true;
      }
    }
  }
  return [...reading].sort();
}

/** The words of a view's SQL that could name a table or view (DuckDB keeps it normalized, quotes dropped where not needed). */
function namesIn(sql: string): Set<string> {
  return new Set(sql.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []);
}

/** What a read-only command says about such a database: what is absent, why, and that the next run creates it. */
export function absentHistoryNote(absent: readonly string[], views: readonly string[]): string {
  const unreadable =
    views.length === 0
      ? ''
      : `; the views that read them (${views.map((v) => `${ANALYTICS_SCHEMA}.${v}`).join(', ')}) cannot be read either`;
  return (
    `this database was written before engage-etl kept the history of definitions: it has no ${absent.join(', ')}${unreadable}. ` +
    'Everything else reads as usual; the next `engage-etl run` on it creates them, one version per stored row'
  );
}
