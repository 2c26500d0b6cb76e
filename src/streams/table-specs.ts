// The warehouse's data tables, as the stream declarations define them (src/streams/), each followed by its history
// table when it declares one: the merge, the Parquet export, the schema check and the tests read this one list. The DDL
// is generated from it (createTableSql). WAREHOUSE_TABLES is what the layers above load/ hand the warehouse.
import { STREAMS, STREAM_TABLE_SPECS } from './registry.js';
import type { TableName as FetchedTableName } from './registry.js';
import type { TableSpec } from '../load/table-definition.js';
import { WarehouseTables } from '../load/warehouse-tables.js';

/** A table rows are fetched into, or the history table of one (`<table>_history`, see table-history.ts). */
export type TableName = FetchedTableName | `${FetchedTableName}_history`;
export type { ColumnSpec, ColumnType, TableSpec } from '../load/table-definition.js';
export {
  PARTITION_COLUMN,
  WHOLE_TABLE_PARTITION,
  allColumnNames,
  ident,
  sqlString,
  storedColumns,
} from '../load/table-definition.js';

/** The registry's tables, as the warehouse is opened with them. */
export const WAREHOUSE_TABLES = new WarehouseTables(
  STREAM_TABLE_SPECS,
  new Map(
    STREAMS.flatMap((s) => (s.kind === 'series' ? s.tables.map((t) => [t.name, s.name] as [string, string]) : [])),
  ),
);

/** The tables fetched rows are merged into, in registry order. */
export const FETCHED_TABLE_SPECS: readonly TableSpec<FetchedTableName>[] =
  WAREHOUSE_TABLES.fetched as readonly TableSpec<FetchedTableName>[];

/** Every table spec, in registry order, a history table right after its table. */
export const TABLE_SPECS: readonly TableSpec<TableName>[] = WAREHOUSE_TABLES.all as readonly TableSpec<TableName>[];

export function isTableName(name: string): name is TableName {
  return WAREHOUSE_TABLES.has(name);
}

/** The spec of a table; throws for a name outside the registry (a programming error, not user input). */
export function tableSpec(name: TableName | string): TableSpec<TableName> {
  return WAREHOUSE_TABLES.spec(name) as TableSpec<TableName>;
}

/** The series stream that fills `table`, or undefined for tables of lists and snapshots (their changes are not restatements). */
export function seriesStreamOfTable(table: string): string | undefined {
  return WAREHOUSE_TABLES.seriesStreamOf(table);
}
