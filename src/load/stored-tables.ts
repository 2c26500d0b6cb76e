// What a database holds, read from DuckDB's catalog: its tables, a table's columns and its row count (for the commands
// that read databases of any version, where a bookkeeping table may be missing, and for push's `--table`); and the
// dates a table records per id (the planner's activity of the objects behind series).
import { ident } from './table-definition.js';
import type { Warehouse } from './warehouse.js';

/** The tables of the main schema, by name. */
export async function tableNames(wh: Warehouse): Promise<string[]> {
  const rows = await wh.query(
    `SELECT "table_name" FROM information_schema.tables WHERE "table_schema" = 'main' ORDER BY 1`,
  );
  return rows.map((r) => r['table_name'] as string);
}

/** Whether the database has table `name` (databases written before a bookkeeping table existed have none). */
export async function hasTable(wh: Warehouse, name: string): Promise<boolean> {
  const [row] = await wh.query('SELECT count(*) AS n FROM information_schema.tables WHERE "table_name" = $1', [name]);
  return Number(row?.['n'] ?? 0) > 0;
}

/** The columns of table `name` of the main schema, in their order, with DuckDB's name of their type. */
export async function columnsOfTable(wh: Warehouse, name: string): Promise<{ name: string; type: string }[]> {
  const rows = await wh.query(
    `SELECT "column_name", "data_type" FROM information_schema.columns WHERE "table_schema" = 'main' AND "table_name" = $1 ORDER BY "ordinal_position"`,
    [name],
  );
  return rows.map((c) => ({ name: c['column_name'] as string, type: c['data_type'] as string }));
}

/** Per row of table `name`: its id (`idColumn`, as text) and the values of the date columns `first` and `last`. */
export async function datesById(
  wh: Warehouse,
  name: string,
  idColumn: string,
  first: string,
  last: string,
): Promise<{ id: string; first: Date | null; last: Date | null }[]> {
  const rows = await wh.query(
    `SELECT ${ident(idColumn)} AS id, ${ident(first)} AS first, ${ident(last)} AS last FROM ${ident(name)}`,
  );
  return rows.map((r) => ({ id: String(r['id']), first: r['first'] as Date | null, last: r['last'] as Date | null }));
}

/** The rows of table `name`. */
export async function rowCount(wh: Warehouse, name: string): Promise<number> {
  const [row] = await wh.query(`SELECT count(*) AS n FROM ${ident(name)}`);
  return Number(row?.['n'] ?? 0);
}
