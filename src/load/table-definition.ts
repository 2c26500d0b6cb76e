// How a warehouse table is declared: ordered, typed columns, a key and an optional month partition. A stream declaration
// defines its tables with `defineTable`; the row type follows from the columns (a misspelt column is a compile error) and
// the DDL is generated from the same object, so the schema has one source.

/**
 * Money: the platform documents every amount in USD (spec 2.7 "revenue (float, USD)", 4.11 revenue as a number), so an
 * amount has cents and no finer part: scale 2. Precision 18 is the widest decimal Parquet stores in an INT64 (up to
 * 9,999,999,999,999,999.99), which every reader (DuckDB, pyarrow, Spark, Trino) maps to its own exact decimal.
 */
export const MONEY = 'DECIMAL(18,2)';

/** Digits after the point of a {@link MONEY} value. */
export const MONEY_SCALE = 2;

/** DuckDB column types used by the warehouse. JSON columns take any JS value and store its JSON text. */
export type ColumnType =
  | 'VARCHAR'
  | 'BIGINT'
  | 'INTEGER'
  | 'DOUBLE'
  | typeof MONEY
  | 'BOOLEAN'
  | 'TIMESTAMP'
  | 'DATE'
  | 'VARCHAR[]'
  | 'JSON';

export interface ColumnSpec<N extends string = string, T extends ColumnType = ColumnType> {
  readonly name: N;
  readonly type: T;
  /** On update the stored value is kept and a new value does not count as a change (custom_events.first_seen_at). */
  readonly keepOnUpdate?: boolean;
  /** The only values the column accepts (besides NULL). */
  readonly allowed?: readonly string[];
}

export interface TableSpec<N extends string = string, C extends readonly ColumnSpec[] = readonly ColumnSpec[]> {
  readonly name: N;
  /** Key and value columns in table order; the `_` bookkeeping columns follow them. */
  readonly columns: C;
  readonly key: readonly C[number]['name'][];
  /** The TIMESTAMP/DATE column whose month (`YYYY-MM`) names the row's Parquet partition; absent for whole-table files. */
  readonly partitionSource?: C[number]['name'];
  /** One line on what a row is; it becomes the table's COMMENT. */
  readonly description: string;
  /** How a table an earlier version wrote becomes this one, applied when a database is opened. @default none */
  readonly upgrades?: readonly TableUpgrade[];
  /**
   * Keep every version of each row in `<name>_history` (src/load/table-history.ts), written by the merge in the same
   * transaction. `validFrom`: the TIMESTAMP column that says when the object was edited (the details' `updated_at`);
   * without it, or when it is NULL or does not move past the stored version, a version starts at the run's --until.
   * @default undefined (the table keeps only its current rows)
   */
  readonly history?: { readonly validFrom?: C[number]['name'] };
}

/**
 * One earlier layout of a table and how its rows move into this one (src/load/table-upgrade.ts): the table is rebuilt
 * in one transaction, columns of the same name copied, the others computed from `compute` or NULL.
 */
export interface TableUpgrade {
  /** The earlier version's data columns, in order; the bookkeeping columns followed them as they follow these. */
  readonly from: readonly string[];
  /** SQL expressions over the earlier table's columns (quoted names, no alias), by new column. @default {} */
  readonly compute?: Readonly<Record<string, string>>;
}

/** The JS value a column takes in a row handed to the loader. */
export type ColumnValue<T extends ColumnType> = T extends 'VARCHAR'
  ? string
  : T extends 'BIGINT' | 'INTEGER' | 'DOUBLE' | typeof MONEY
    ? number
    : T extends 'BOOLEAN'
      ? boolean
      : T extends 'TIMESTAMP' | 'DATE'
        ? Date
        : T extends 'VARCHAR[]'
          ? string[]
          : unknown;

/** One row of a table: every column present, nullable. */
export type RowOf<S extends TableSpec> = { [C in S['columns'][number] as C['name']]: ColumnValue<C['type']> | null };

/** A typed batch of rows for one table, as extractors hand them over. */
export interface TableRows<S extends TableSpec = TableSpec> {
  readonly table: S['name'];
  readonly rows: RowOf<S>[];
}

/** A column of a table declaration. */
export function col<const N extends string, const T extends ColumnType>(
  name: N,
  type: T,
  opts: { keepOnUpdate?: boolean; allowed?: readonly string[] } = {},
): ColumnSpec<N, T> {
  return { name, type, ...opts };
}

/** Declares a table; the literal column names and types are kept so rows can be typed from them. */
export function defineTable<const N extends string, const C extends readonly ColumnSpec[]>(
  spec: TableSpec<N, C>,
): TableSpec<N, C> {
  return spec;
}

/** Rows for `table`, checked against its columns at compile time. */
export function rowsOf<S extends TableSpec>(
  table: S,
  rows: RowOf<S>[],
): { table: S['name']; rows: Record<string, unknown>[] } {
  return { table: table.name, rows: rows as Record<string, unknown>[] };
}

/** Bookkeeping columns every table carries after its data columns. */
export const BOOKKEEPING_COLUMNS: readonly ColumnSpec[] = [
  { name: '_loaded_at', type: 'TIMESTAMP' },
  { name: '_run_id', type: 'VARCHAR' },
];

/** Name of the virtual column holding the partition month of a partitioned table; it is the table's last column. */
export const PARTITION_COLUMN = '_month';

/** The partition value recorded for tables exported as a single file. */
export const WHOLE_TABLE_PARTITION = '';

/** The columns stored for each row, in table order: data, then bookkeeping (the virtual `_month` is not stored). */
export function storedColumns(spec: TableSpec): ColumnSpec[] {
  return [...spec.columns, ...BOOKKEEPING_COLUMNS];
}

/** Every column the table holds, in order: data, bookkeeping, and `_month` for partitioned tables. */
export function allColumnNames(spec: TableSpec): string[] {
  const names = storedColumns(spec).map((c) => c.name);
  if (spec.partitionSource) names.push(PARTITION_COLUMN);
  return names;
}

/** Quote an identifier for DuckDB SQL. */
export function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A SQL string literal. */
export function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** The idempotent DDL of a table, generated from its declaration (the only schema there is). */
export function createTableSql(spec: TableSpec): string {
  const lines = storedColumns(spec).map((c) => `  ${ident(c.name)} ${c.type}`);
  if (spec.partitionSource) {
    lines.push(
      `  ${ident(PARTITION_COLUMN)} VARCHAR GENERATED ALWAYS AS (strftime(${ident(spec.partitionSource)}, '%Y-%m')) VIRTUAL`,
    );
  }
  const key = spec.key.map((k) => k).join(', ');
  return [
    `-- ${spec.description} Key: ${key}.`,
    `CREATE TABLE IF NOT EXISTS ${ident(spec.name)} (\n${lines.join(',\n')}\n);`,
    `COMMENT ON TABLE ${ident(spec.name)} IS ${sqlString(`${spec.description} Key: ${key}.`)};`,
  ].join('\n');
}
