// Where the rows of a push come from: a SELECT run on the warehouse, a table of it, or a CSV / JSON / Parquet file read
// by DuckDB's own readers. The user's SQL must be one read-only statement (DuckDB's own parser says so) and runs once.
import { existsSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import { tableNames } from '../load/stored-tables.js';
import type { Warehouse } from '../load/warehouse.js';

export type RowSource =
  | { kind: 'sql'; sql: string }
  | { kind: 'table'; table: string }
  | { kind: 'file'; path: string };

export interface SourceRows {
  /** Column names in the source's order. */
  columns: string[];
  rows: Record<string, unknown>[];
}

const FILE_READERS: Record<string, string> = {
  '.csv': 'read_csv_auto',
  '.tsv': 'read_csv_auto',
  '.json': 'read_json_auto',
  '.ndjson': 'read_json_auto',
  '.jsonl': 'read_json_auto',
  '.parquet': 'read_parquet',
};

/** One line naming the source, for `_push_runs.source` and messages (SQL cut to 200 characters). */
export function describeSource(source: RowSource): string {
  switch (source.kind) {
    case 'sql': {
      const flat = source.sql.replace(/\s+/g, ' ').trim();
      return `sql: ${flat.length > 200 ? `${flat.slice(0, 197)}...` : flat}`;
    }
    case 'table':
      return `table: ${source.table}`;
    case 'file':
      return `file: ${resolve(source.path)}`;
  }
}

/** The one SELECT that reads the source. Throws ConfigError for a missing table or file, or an unknown file type. */
async function sourceQuery(warehouse: Warehouse, source: RowSource): Promise<{ sql: string; flag: string }> {
  switch (source.kind) {
    case 'sql': {
      const sql = source.sql.trim();
      if (sql.replace(/;\s*$/, '').trim() === '')
        throw new ConfigError(
          '--sql',
          "is empty; give a SELECT whose columns follow the target's conventions (see docs/push.md)",
        );
      return { sql, flag: '--sql' };
    }
    case 'table': {
      const names = await tableNames(warehouse);
      if (!names.includes(source.table)) {
        const shown = names.filter((n) => !n.startsWith('_')).join(', ');
        throw new ConfigError(
          '--table',
          `no table "${source.table}" in ${warehouse.path}; tables: ${shown || '(none)'} — or use --sql`,
        );
      }
      return { sql: `SELECT * FROM "${source.table.replace(/"/g, '""')}"`, flag: '--table' };
    }
    case 'file': {
      const path = resolve(source.path);
      const reader = FILE_READERS[extname(path).toLowerCase()];
      if (!reader)
        throw new ConfigError(
          '--file',
          `${path} is not a .csv, .tsv, .json, .ndjson, .jsonl or .parquet file; convert it or load it with --sql`,
        );
      if (!existsSync(path)) throw new ConfigError('--file', `${path} does not exist`);
      return { sql: `SELECT * FROM ${reader}('${path.replaceAll("'", "''")}')`, flag: '--file' };
    }
  }
}

/** Read every row of the source, in the source's order, running its query once. */
export async function readSourceRows(warehouse: Warehouse, source: RowSource): Promise<SourceRows> {
  const { sql, flag } = await sourceQuery(warehouse, source);
  try {
    return await warehouse.readQuery(sql);
  } catch (err) {
    throw new ConfigError(flag, (err as Error).message, { cause: err });
  }
}
