// The warehouse's data tables, as the stream declarations define them (src/streams/), each followed by its history
// table when it declares one: the merge, the Parquet export, the schema check and the tests read this one list. The DDL
// is generated from it (createTableSql).
import { FatalError } from '../errors.js';
import { STREAMS, STREAM_TABLE_SPECS } from '../streams/registry.js';
import type { TableName as FetchedTableName } from '../streams/registry.js';
import type { TableSpec } from './table-definition.js';
import { historySpec } from './table-history.js';

/** A table rows are fetched into, or the history table of one (`<table>_history`, see table-history.ts). */
export type TableName = FetchedTableName | `${FetchedTableName}_history`;
export type { ColumnSpec, ColumnType, TableSpec } from './table-definition.js';
export { PARTITION_COLUMN, WHOLE_TABLE_PARTITION, allColumnNames, ident, sqlString, storedColumns } from './table-definition.js';

/** The tables fetched rows are merged into, in registry order. */
export const FETCHED_TABLE_SPECS: readonly TableSpec<FetchedTableName>[] = STREAM_TABLE_SPECS as readonly TableSpec<FetchedTableName>[];

/** Every table spec, in registry order, a history table right after its table. */
export const TABLE_SPECS: readonly TableSpec<TableName>[] = FETCHED_TABLE_SPECS.flatMap((s) => (s.history ? [s, historySpec(s)] : [s])) as readonly TableSpec<TableName>[];

const TABLE_NAMES: readonly TableName[] = TABLE_SPECS.map((s) => s.name);

const BY_NAME = new Map<string, TableSpec<TableName>>(TABLE_SPECS.map((s) => [s.name, s]));

export function isTableName(name: string): name is TableName {
  return BY_NAME.has(name);
}

/** The spec of a table; throws for a name outside the registry (a programming error, not user input). */
export function tableSpec(name: TableName | string): TableSpec<TableName> {
  const spec = BY_NAME.get(name);
  if (!spec) throw new FatalError(`unknown warehouse table "${name}"; use one of: ${TABLE_NAMES.join(', ')}`);
  return spec;
}

const SERIES_STREAM_OF = new Map<string, string>(STREAMS.flatMap((s) => (s.kind === 'series' ? s.tables.map((t) => [t.name, s.name] as [string, string]) : [])));

/** The series stream that fills `table`, or undefined for tables of lists and snapshots (their changes are not restatements). */
export function seriesStreamOfTable(table: string): string | undefined {
  return SERIES_STREAM_OF.get(table);
}
