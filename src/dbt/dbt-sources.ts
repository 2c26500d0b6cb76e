// The dbt sources file of a warehouse: source `engage_etl` holds every data table (its comment, every column with its
// type and description, the key tests and, for series, the freshness of `status --fail-if-stale`); over the DuckDB file
// a second source `engage_etl_analytics` holds the analyst views. With a Parquet lake the tables are read where the
// runs export them (`meta.external_location`, dbt-duckdb's external sources), with the hive partition columns, and only
// the tables the lake holds files of are listed: the others are named, with the reason, in the file's opening comment
// and the source's description. Output depends only on its inputs: the same database, lake and flags give the same bytes.
import { stringify } from 'yaml';
import { PARQUET_PARTITION_COLUMN, WORKSPACE_PARTITION_COLUMN } from '../export/parquet-layout.js';
import { columnDescription } from '../load/column-descriptions.js';
import { sqlString, storedColumns, tableSpec } from '../streams/table-specs.js';
import type { TableSpec } from '../streams/table-specs.js';
import { sourceFreshness } from './source-freshness.js';
import { UNIQUE_KEY_TEST } from './unique-key-test.js';
import type { CatalogColumn, CatalogTable, WarehouseCatalog } from './warehouse-catalog.js';

export const TABLES_SOURCE = 'engage_etl';
export const VIEWS_SOURCE = 'engage_etl_analytics';
/** The dbt variable naming the attached engage-etl database (dbt-duckdb's `attach` alias). */
export const DATABASE_VAR = 'engage_etl_database';

/** The Parquet lake the sources read. */
export interface ParquetLake {
  /** Where the runs export Parquet: an absolute local folder or `s3://BUCKET/PREFIX`. */
  location: string;
  /** The catalog's tables the lake holds no Parquet file of, each with why (lake-absences.ts): left out of the sources. */
  absent: ReadonlyMap<string, string>;
}

export interface DbtSourcesOptions {
  /** Read the tables from this lake; absent: read the DuckDB file. */
  parquet?: ParquetLake;
  /** Hours between scheduled runs. */
  everyHours: number;
}

/** The line the file starts with: it marks the file as engage-etl's (rewritten by every `engage-etl dbt`). */
export const OWNED_MARK = 'Written by `engage-etl dbt`';

interface YamlColumn {
  name: string;
  description: string;
  data_type: string;
  data_tests?: unknown[];
}

/** The text of the sources file. */
export function dbtSourcesYaml(catalog: WarehouseCatalog, opts: DbtSourcesOptions): string {
  const sources: Record<string, unknown>[] = [tablesSource(catalog, opts)];
  if (opts.parquet === undefined) sources.push(viewsSource(catalog));
  const head = [
    `# ${OWNED_MARK}: rerunning it rewrites this file from the database's catalog. Keep your own`,
    '# models, sources and tests in other files of this project; engage-etl never touches them.',
    ...absentComment(opts.parquet),
  ];
  return `${head.join('\n')}\n${stringify({ version: 2, sources }, { lineWidth: 0 })}`;
}

/**
 * The lines naming the tables left out of a lake's sources, and why: a location that matches no file fails every
 * `dbt test` and `dbt source freshness` that reads it, so a table is listed once an export has written its files.
 */
function absentComment(lake: ParquetLake | undefined): string[] {
  if (lake === undefined || lake.absent.size === 0) return [];
  return [
    '#',
    `# Source ${TABLES_SOURCE} lists the tables the lake holds Parquet files of: dbt-duckdb fails reading a location that`,
    '# matches no file. Left out until an export writes their files (then run engage-etl dbt again):',
    ...[...lake.absent].map(([table, reason]) => `#   ${table}: ${reason}`),
  ];
}

function tablesSource(catalog: WarehouseCatalog, opts: DbtSourcesOptions): Record<string, unknown> {
  const lake = opts.parquet;
  const where =
    lake === undefined
      ? 'the engage-etl DuckDB file (attached read-only)'
      : `the Parquet tree ${lake.location}${catalog.workspace === undefined ? '' : ` (workspace ${catalog.workspace})`}`;
  const leftOut =
    lake === undefined || lake.absent.size === 0
      ? ''
      : ` Left out, having no Parquet file in the lake yet (the comment atop this file says why): ${[...lake.absent.keys()].join(', ')}.`;
  return {
    name: TABLES_SOURCE,
    description: `The tables engage-etl loads from the engagement platform's REST API, read from ${where}. The platform's "*" rows (all apps, all products, no segment) sit beside the breakdowns: filter them, or use the analyst views.${leftOut}`,
    ...(lake === undefined ? { database: `{{ var('${DATABASE_VAR}', 'engage_etl') }}`, schema: 'main' } : {}),
    tables: catalog.tables.filter((t) => !lake?.absent.has(t.name)).map((t) => sourceTable(t, catalog, opts)),
  };
}

function sourceTable(table: CatalogTable, catalog: WarehouseCatalog, opts: DbtSourcesOptions): Record<string, unknown> {
  const spec = tableSpec(table.name);
  const lake = opts.parquet;
  const freshness = sourceFreshness(table.name, catalog.seriesUnits, opts.everyHours);
  const columns = lake === undefined ? table.columns : parquetColumns(spec, table, catalog.workspace);
  const keyTests = spec.key.length === 1 ? [] : [{ [UNIQUE_KEY_TEST]: { columns: [...spec.key] } }];
  return {
    name: table.name,
    description: table.comment ?? spec.description,
    ...(lake === undefined
      ? {}
      : { meta: { external_location: externalLocation(lake.location, table.name, catalog.workspace) } }),
    ...(freshness === undefined
      ? {}
      : {
          loaded_at_field: freshness.loadedAtField,
          freshness: {
            warn_after: { count: freshness.warnAfterHours, period: 'hour' },
            error_after: { count: freshness.errorAfterHours, period: 'hour' },
          },
        }),
    ...(keyTests.length === 0 ? {} : { data_tests: keyTests }),
    columns: columns.map((c) => tableColumn(spec, c)),
  };
}

function tableColumn(spec: TableSpec, column: CatalogColumn): YamlColumn {
  const declared = spec.columns.find((c) => c.name === column.name);
  const tests: unknown[] = [];
  if (spec.key.includes(column.name)) tests.push('not_null');
  if (spec.key.length === 1 && spec.key[0] === column.name) tests.push('unique');
  if (declared?.allowed) tests.push({ accepted_values: { values: [...declared.allowed] } });
  return {
    name: column.name,
    description: column.comment ?? columnDescription(spec.name, column.name) ?? '',
    data_type: column.type,
    ...(tests.length === 0 ? {} : { data_tests: tests }),
  };
}

/**
 * The columns a reader of the Parquet files sees: the stored ones (the DuckDB file's computed `_month` is not written),
 * then the hive partitions of the path — `workspace` in a shared lake, `year` for tables split by year.
 */
function parquetColumns(spec: TableSpec, table: CatalogTable, workspace: string | undefined): CatalogColumn[] {
  const stored = new Set(storedColumns(spec).map((c) => c.name));
  const columns = table.columns.filter((c) => stored.has(c.name));
  if (workspace !== undefined) {
    columns.push({
      name: WORKSPACE_PARTITION_COLUMN,
      type: 'VARCHAR',
      comment: `The workspace (the pipeline's workspace:), from the workspace=NAME/ part of the path: "${workspace}" in every row of this database.`,
    });
  }
  if (spec.partitionSource !== undefined) {
    columns.push({
      name: PARQUET_PARTITION_COLUMN,
      type: 'BIGINT',
      comment: `The year of ${spec.partitionSource}, from the year=YYYY/ part of the path (one folder per year).`,
    });
  }
  return columns;
}

/**
 * What dbt-duckdb reads for a table: every Parquet file of its folder (of this database's workspace in a shared lake),
 * with the hive partitions as columns. A glob, not the manifest's list, so it stays right as runs add years.
 */
export function externalLocation(parquet: string, table: string, workspace: string | undefined): string {
  const folder = [
    parquet.replace(/\/+$/, ''),
    table,
    ...(workspace === undefined ? [] : [`${WORKSPACE_PARTITION_COLUMN}=${workspace}`]),
  ].join('/');
  return `read_parquet(${sqlString(`${folder}/**/*.parquet`)}, hive_partitioning = true)`;
}

function viewsSource(catalog: WarehouseCatalog): Record<string, unknown> {
  return {
    name: VIEWS_SOURCE,
    description:
      'The analyst views of the engage-etl DuckDB file (schema analytics): business names, one grain per view, no "*" rows mixed in; summing any column counts each event once.',
    database: `{{ var('${DATABASE_VAR}', 'engage_etl') }}`,
    schema: 'analytics',
    tables: catalog.views.map((v) => ({
      name: v.name,
      description: v.comment ?? '',
      columns: v.columns.map((c) => ({ name: c.name, description: c.comment ?? '', data_type: c.type })),
    })),
  };
}
