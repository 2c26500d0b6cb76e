// Analyst views (and columns) left empty because the pipeline does not ask for what fills them: a view or column whose
// comment ends with "To fill: <the pipeline option>" (sql/views/) and that holds no row (no value) after a run. The hint
// has one source, the comment: the run's summary and the report read it from there.
import { ident } from '../load/table-definition.js';
import type { Warehouse } from '../load/warehouse.js';
import { ANALYTICS_SCHEMA } from './analytics-views.js';
import { viewsReadingAbsentHistory } from './absent-history.js';

/** What a view's comment says fills it, after this marker. */
const MARKER = 'To fill: ';

/**
 * The probe of a hinted view `v` is the table macro `analytics.v_filled()` beside it in sql/views/: one row, a boolean
 * "rows" and one boolean per hinted column, the answers the view gives, read from its base tables.
 */
const PROBE_SUFFIX = '_filled';

/** Whether a view has a row, and per hinted column (in the order asked) whether it holds a value. */
interface Filled {
  rows: boolean;
  columns: boolean[];
}

/** The answer of the view's probe; a hinted column the probe does not answer is read from the view. */
async function probeAnswer(wh: Warehouse, view: string, cols: readonly { name: string }[]): Promise<Filled> {
  const [row] = await wh.query(`SELECT * FROM ${ident(ANALYTICS_SCHEMA)}.${ident(`${view}${PROBE_SUFFIX}`)}()`);
  if (row === undefined || ['rows', ...cols.map((c) => c.name)].some((c) => typeof row[c] !== 'boolean'))
    return viewAnswer(wh, view, cols);
  return { rows: row['rows'] === true, columns: cols.map((c) => row[c.name] === true) };
}

/**
 * The answer read from the view itself, for a view without a probe (a database whose views predate them): its first
 * row, or, with hinted columns, the whole view counted.
 */
async function viewAnswer(wh: Warehouse, view: string, cols: readonly { name: string }[]): Promise<Filled> {
  const name = `${ident(ANALYTICS_SCHEMA)}.${ident(view)}`;
  const [row] = await wh.query(
    cols.length === 0
      ? `SELECT count(*) AS "_rows" FROM (SELECT 1 FROM ${name} LIMIT 1)`
      : `SELECT count(*) AS "_rows"${cols.map((c, i) => `, count(${ident(c.name)}) AS "c${i}"`).join('')} FROM ${name}`,
  );
  return {
    rows: Number(row?.['_rows'] ?? 0) > 0,
    columns: cols.map((_, i) => Number(row?.[`c${i}`] ?? 0) > 0),
  };
}

/** An empty view (`column` undefined) or a column NULL on every row of a view that has rows, and what fills it. */
export interface UnfilledView {
  view: string;
  column?: string;
  fill: string;
}

function fillOf(comment: string): string {
  return comment.slice(comment.indexOf(MARKER) + MARKER.length).trim();
}

/**
 * Every view or column with a fill hint that is empty now, views first, in name order. Views that read a history table
 * the database lacks (written before them, opened read-only) are left out: they cannot be read until the next run.
 */
export async function unfilledViews(wh: Warehouse): Promise<UnfilledView[]> {
  const unreadable = new Set(await viewsReadingAbsentHistory(wh));
  const schema = `'${ANALYTICS_SCHEMA}'`;
  const hinted = await wh.query(
    `SELECT "view_name" AS "view", NULL AS "column", "comment" FROM duckdb_views() WHERE "schema_name" = ${schema} AND contains("comment", '${MARKER}')
     UNION ALL
     SELECT c."table_name", c."column_name", c."comment" FROM duckdb_columns() c JOIN duckdb_views() v ON v."schema_name" = c."schema_name" AND v."view_name" = c."table_name"
     WHERE c."schema_name" = ${schema} AND contains(c."comment", '${MARKER}')
     ORDER BY 1, 2 NULLS FIRST`,
  );
  const byView = new Map<string, { comment?: string; columns: { name: string; comment: string }[] }>();
  for (const h of hinted) {
    const view = String(h['view']);
    const entry = byView.get(view) ?? { columns: [] };
    if (h['column'] === null) entry.comment = String(h['comment']);
    else entry.columns.push({ name: String(h['column']), comment: String(h['comment']) });
    byView.set(view, entry);
  }
  const probes = new Set(
    (
      await wh.query(
        `SELECT "function_name" FROM duckdb_functions() WHERE "schema_name" = ${schema} AND "function_type" = 'table_macro' AND suffix("function_name", '${PROBE_SUFFIX}')`,
      )
    ).map((r) => String(r['function_name'])),
  );
  const views: UnfilledView[] = [];
  const columns: UnfilledView[] = [];
  for (const [view, { comment, columns: cols }] of byView) {
    if (unreadable.has(view)) continue;
    const filled = probes.has(`${view}${PROBE_SUFFIX}`)
      ? await probeAnswer(wh, view, cols)
      : await viewAnswer(wh, view, cols);
    if (!filled.rows) {
      if (comment !== undefined) views.push({ view, fill: fillOf(comment) });
      continue;
    }
    cols.forEach((c, i) => {
      if (!filled.columns[i]) columns.push({ view, column: c.name, fill: fillOf(c.comment) });
    });
  }
  return [...views, ...columns];
}
