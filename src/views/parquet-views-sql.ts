// The SQL file that defines the analyst views over the Parquet tree for any DuckDB: one base view per exported table,
// named like the warehouse table and reading `read_parquet(…, hive_partitioning = true)`, then the very views of
// sql/views/ — the same text, so the answers are the same as in the warehouse.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EXPORTED_TABLES, PARQUET_PARTITION_COLUMN, WORKSPACE_PARTITION_COLUMN } from '../export/parquet-layout.js';
import { ident, sqlString } from '../load/table-definition.js';
import { TABLE_SPECS, storedColumns } from '../streams/table-specs.js';
import { analyticsViewsSql } from './analytics-views.js';

/**
 * The script for the tree at `parquetDir` (written into the file as given: pass an absolute path for a file used from
 * anywhere, a relative one for a file that travels with the tree). A data table with no folder yet (never exported,
 * still empty) gets an empty base view of the right columns, so every analyst view still binds. With `workspace`, the
 * base views read that workspace's part of a shared lake (`<table>/workspace=NAME/`) and every view starts with it.
 */
export function parquetViewsSql(parquetDir: string, workspace?: string): string {
  const lines = [
    `-- engage-etl analyst views over the Parquet tree ${parquetDir}`,
    '-- Run in any DuckDB (duckdb -init this-file, or .read this-file). The base views below are named like the warehouse',
    '-- tables, in schema main: run it in a fresh database, not in the engage-etl DuckDB file itself.',
    '',
  ];
  for (const t of EXPORTED_TABLES) {
    const folder =
      workspace === undefined
        ? join(parquetDir, t.folder)
        : join(parquetDir, t.folder, `${WORKSPACE_PARTITION_COLUMN}=${workspace}`);
    const source = `read_parquet(${sqlString(`${folder}/**/*.parquet`)}, hive_partitioning = true)`;
    const spec = TABLE_SPECS.find((s) => s.name === t.table);
    const absent = spec !== undefined && !existsSync(resolve(folder));
    const body = absent
      ? `SELECT ${storedColumns(spec)
          .map((c) => `CAST(NULL AS ${c.type}) AS ${ident(c.name)}`)
          .join(', ')} WHERE false`
      : `SELECT COLUMNS(c -> c NOT IN (${sqlString(PARQUET_PARTITION_COLUMN)}, ${sqlString(WORKSPACE_PARTITION_COLUMN)})) FROM ${source}`;
    lines.push(`CREATE OR REPLACE VIEW "main".${ident(t.table)} AS ${body};`);
  }
  return `${lines.join('\n')}\n\n${analyticsViewsSql(undefined, workspace)}`;
}
