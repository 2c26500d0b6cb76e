// Tables written by an earlier version, brought to this one when a database is opened for writing: a table whose
// columns are one of its declaration's `upgrades`, or whose money columns are still DOUBLE (before amounts were exact),
// is rebuilt in one transaction (columns of the same name copied and cast, the others computed or NULL), and every
// partition it holds is marked dirty so the next export rewrites its Parquet files.
import type { DuckDBConnection } from '@duckdb/node-api';
import { forgetExtentsStampSql } from './bulk-merge.js';
import { markDirtySql } from './dirty-partitions.js';
import {
  BOOKKEEPING_COLUMNS,
  MONEY,
  PARTITION_COLUMN,
  WHOLE_TABLE_PARTITION,
  allColumnNames,
  createTableSql,
  ident,
  sqlString,
  storedColumns,
} from './table-definition.js';
import type { TableSpec, TableUpgrade } from './table-definition.js';

/** A stored column: its name and DuckDB type. */
export interface FoundColumn {
  name: string;
  type: string;
}

/** The columns of each table of the main schema, in order. */
export async function tableColumns(conn: DuckDBConnection): Promise<Map<string, FoundColumn[]>> {
  const rows = (
    await conn.runAndReadAll(
      `SELECT "table_name", list({'name': "column_name", 'type': "data_type"} ORDER BY "ordinal_position") AS "columns"
       FROM information_schema.columns WHERE "table_schema" = 'main' GROUP BY "table_name"`,
    )
  ).getRowObjectsJS();
  return new Map(rows.map((r) => [r.table_name as string, r.columns as unknown as FoundColumn[]]));
}

/**
 * The upgrade of `spec` that matches the columns found, if any: one of its `upgrades`, or, for a table in this layout
 * whose money columns an earlier version stored as DOUBLE, the rebuild that casts them (to the nearest cent).
 */
export function matchingUpgrade(spec: TableSpec, found: readonly FoundColumn[]): TableUpgrade | undefined {
  const layout = (from: readonly string[]) => [...from, ...BOOKKEEPING_COLUMNS.map((c) => c.name)].join(', ');
  const stored = found.filter((c) => c.name !== PARTITION_COLUMN);
  const names = stored.map((c) => c.name).join(', ');
  const declared = spec.upgrades?.find((u) => layout(u.from) === names);
  if (declared) return declared;
  if (
    names !==
    storedColumns(spec)
      .map((c) => c.name)
      .join(', ')
  )
    return undefined;
  const money = spec.columns.filter((c) => c.type === MONEY);
  const retyped = money.some((c) => stored.find((f) => f.name === c.name)?.type === 'DOUBLE');
  return retyped ? { from: spec.columns.map((c) => c.name) } : undefined;
}

/** Whether the columns found are the table's, with their declared types. */
export function isCurrentLayout(spec: TableSpec, found: readonly FoundColumn[]): boolean {
  const types = new Map(storedColumns(spec).map((c) => [c.name, c.type]));
  return (
    found.map((c) => c.name).join(', ') === allColumnNames(spec).join(', ') &&
    found.every((c) => types.get(c.name) !== MONEY || c.type === MONEY)
  );
}

/** The INSERT … SELECT that moves the rows of `from` (an earlier layout) into the table of `spec`. */
export function upgradeInsertSql(spec: TableSpec, upgrade: TableUpgrade, from: string): string {
  const earlier = new Set([...upgrade.from, ...BOOKKEEPING_COLUMNS.map((c) => c.name)]);
  const columns = storedColumns(spec).map((c) => c.name);
  const values = columns.map((c) => upgrade.compute?.[c] ?? (earlier.has(c) ? ident(c) : 'NULL'));
  return `INSERT INTO ${ident(spec.name)} (${columns.map(ident).join(', ')}) SELECT ${values.join(', ')} FROM ${ident(from)}`;
}

/**
 * Upgrades every table of `specs` that an earlier version wrote; returns what was upgraded, one line each. A table in a
 * layout no upgrade names is left alone (the schema check then refuses it with the fix).
 */
export async function upgradeTables(conn: DuckDBConnection, specs: readonly TableSpec[]): Promise<string[]> {
  const found = await tableColumns(conn);
  const done: string[] = [];
  for (const spec of specs) {
    const columns = found.get(spec.name);
    if (columns === undefined || isCurrentLayout(spec, columns)) continue;
    const upgrade = matchingUpgrade(spec, columns);
    if (!upgrade) continue;
    const old = `${spec.name}__before_upgrade`;
    const month = spec.partitionSource ? ident(PARTITION_COLUMN) : sqlString(WHOLE_TABLE_PARTITION);
    await conn.run('BEGIN TRANSACTION');
    try {
      await conn.run(`ALTER TABLE ${ident(spec.name)} RENAME TO ${ident(old)}`);
      await conn.run(createTableSql(spec));
      await conn.run(upgradeInsertSql(spec, upgrade, old));
      await conn.run(markDirtySql(sqlString(spec.name), `SELECT ${month} AS "partition" FROM ${ident(spec.name)}`));
      // The rows keep their count, but an upgrade may compute the columns the ranges are kept by.
      await conn.run(forgetExtentsStampSql(spec.name));
      await conn.run(`DROP TABLE ${ident(old)}`);
      await conn.run('COMMIT');
    } catch (err) {
      await conn.run('ROLLBACK').catch(() => undefined);
      throw err;
    }
    done.push(`${spec.name}: upgraded from the layout (${upgrade.from.join(', ')})`);
  }
  return done;
}
