// Where each table lands in the Parquet tree. Every path part is a name Hive, Trino, Athena, Spark and BigQuery read
// (none starts with `_` or `.`, which they treat as hidden): `<out>/<table>/year=YYYY/data.parquet` for tables with a
// time column, `<out>/<table>/data.parquet` for the rest, and the manifests beside the tables in `<out>/manifests/`.
import { TABLE_SPECS } from '../streams/table-specs.js';

/** The hive partition column of time-partitioned tables; no data column of any table bears this name. */
export const PARQUET_PARTITION_COLUMN = 'year';

export const DATA_FILE = 'data.parquet';

/** A data file's name: `data.parquet`, or `data-<UTC time>-<hex>.parquet` where each publish writes new names. */
export const DATA_FILE_NAME = /^data(-[0-9A-Za-z-]+)?\.parquet$/;

/** Folder of the `<table>.json` manifests, beside the table folders. */
export const MANIFEST_DIR = 'manifests';

/** The folder and partition name of a year, e.g. `year=2025`. */
export const yearFolder = (year: string): string => `${PARQUET_PARTITION_COLUMN}=${year}`;
export const YEAR_FOLDER = /^year=(\d{4})$/;

/** Whether a path relative to a table's folder is a data file of the layout: `[year=YYYY/]data….parquet`. */
export function isLayoutFile(path: string): boolean {
  const parts = path.split('/');
  return (
    DATA_FILE_NAME.test(parts.at(-1)!) && (parts.length === 1 || (parts.length === 2 && YEAR_FOLDER.test(parts[0]!)))
  );
}

/** The layout before this one: `_month=YYYY-MM` folders and a `_manifest.json` in each table's folder (hidden to Hive). */
export const LEGACY_MONTH_FOLDER = /^_month=\d{4}-\d{2}$/;
export const LEGACY_MANIFEST = '_manifest.json';

export interface ExportedTable {
  /** The DuckDB table. */
  table: string;
  /** Its folder under the output folder. */
  folder: string;
}

/** The hive partition of a shared lake's workspace: `<table>/workspace=NAME/` (pipeline `workspace:`). */
export const WORKSPACE_PARTITION_COLUMN = 'workspace';

/** The loader's bookkeeping tables exported whole on every export, so freshness reads the same over Parquet. */
export const BOOKKEEPING_EXPORTS: readonly ExportedTable[] = [
  { table: '_etl_series_state', folder: 'etl_series_state' },
  { table: '_etl_runs', folder: 'etl_runs' },
  { table: '_etl_holes', folder: 'etl_holes' },
  { table: '_etl_stream_outcomes', folder: 'etl_stream_outcomes' },
  { table: '_etl_series_failures', folder: 'etl_series_failures' },
];

/** Every table of the tree and its folder. */
export const EXPORTED_TABLES: readonly ExportedTable[] = [
  ...TABLE_SPECS.map((s) => ({ table: s.name, folder: s.name })),
  ...BOOKKEEPING_EXPORTS,
];
