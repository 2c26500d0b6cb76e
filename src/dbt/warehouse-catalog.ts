// The warehouse as its own catalog describes it: the data tables of schema main and the analyst views of schema
// analytics, each with its comment, its columns in order (name, DuckDB type, comment) and, for tables, its row count.
// The dbt package is written from this, not from the declarations alone, so it describes the database it is run on.
import { isTableName } from '../streams/table-specs.js';
import { SeriesStateStore } from '../load/series-state-store.js';
import { SettingsStore } from '../load/settings-store.js';
import { rowCount } from '../load/stored-tables.js';
import type { Warehouse } from '../load/warehouse.js';
import { ANALYTICS_SCHEMA } from '../views/analytics-views.js';

export interface CatalogColumn {
  name: string;
  /** DuckDB's name of the type, e.g. `VARCHAR`, `TIMESTAMP`, `VARCHAR[]`, `JSON`. */
  type: string;
  comment: string | null;
}

export interface CatalogRelation {
  name: string;
  comment: string | null;
  columns: CatalogColumn[];
}

export interface CatalogTable extends CatalogRelation {
  rows: number;
}

export interface WarehouseCatalog {
  /** The workspace the database exports (pipeline `workspace:`), or undefined. */
  workspace: string | undefined;
  /** The data tables engage-etl declares, in name order (the `_etl_*` bookkeeping and push tables left out). */
  tables: CatalogTable[];
  /** The analyst views, in name order. */
  views: CatalogRelation[];
  /** The units of the series each series stream has loaded (`_etl_series_state`), by stream; absent: none loaded. */
  seriesUnits: Readonly<Record<string, readonly string[]>>;
}

/**
 * Read the catalog of an open warehouse (read-only: nothing is written). Its reads of DuckDB's catalog (tables, analyst
 * views, columns and their comments) are this module's own SQL: what dbt is told is what DuckDB holds, views included.
 */
export async function readWarehouseCatalog(wh: Warehouse): Promise<WarehouseCatalog> {
  // DuckDB's own catalog, not bookkeeping: no store owns it.
  const relations = await wh.query(
    `SELECT 'main' AS "schema", "table_name" AS "name", "comment" FROM duckdb_tables()
       WHERE "database_name" = current_database() AND "schema_name" = 'main'
     UNION ALL
     SELECT $1, "view_name", "comment" FROM duckdb_views()
       WHERE "database_name" = current_database() AND "schema_name" = $1 AND NOT "internal"
     ORDER BY "schema", "name"`,
    [ANALYTICS_SCHEMA],
  );
  // DuckDB's own catalog, not bookkeeping: no store owns it.
  const columns = await wh.query(
    `SELECT "schema_name" AS "schema", "table_name" AS "relation", "column_name" AS "name", "data_type" AS "type", "comment"
     FROM duckdb_columns() WHERE "database_name" = current_database() AND "schema_name" IN ('main', $1)
     ORDER BY "schema_name", "table_name", "column_index"`,
    [ANALYTICS_SCHEMA],
  );
  const columnsOf = (schema: string, relation: string): CatalogColumn[] =>
    columns
      .filter((c) => c['schema'] === schema && c['relation'] === relation)
      .map((c) => ({
        name: String(c['name']),
        type: String(c['type']),
        comment: (c['comment'] as string | null) || null,
      }));
  const tables: CatalogTable[] = [];
  for (const r of relations.filter((r) => r['schema'] === 'main' && isTableName(String(r['name'])))) {
    const name = String(r['name']);
    // The exact count, not duckdb_tables()'s estimate: a table with no rows has no Parquet file to read.
    tables.push({
      name,
      comment: (r['comment'] as string | null) || null,
      columns: columnsOf('main', name),
      rows: await rowCount(wh, name),
    });
  }
  const views = relations
    .filter((r) => r['schema'] === ANALYTICS_SCHEMA)
    .map((r) => ({
      name: String(r['name']),
      comment: (r['comment'] as string | null) || null,
      columns: columnsOf(ANALYTICS_SCHEMA, String(r['name'])),
    }));
  const seriesUnits = await new SeriesStateStore(wh).seriesUnits();
  return { workspace: await new SettingsStore(wh).workspace(), tables, views, seriesUnits };
}
