// Rows of a batch straight into the staging table's DataChunks: each value checked and written to its vector in one
// pass, with no intermediate column arrays. Counts are staged as DOUBLE (exact to 2^53; a column handed a JS bigint is
// staged as BIGINT) and instants as epoch milliseconds, cast back in SQL: a BIGINT or TIMESTAMP vector takes a JS
// bigint per value, and allocating tens of millions of them (the demo's first run writes about 2.8 M rows of up to 43
// columns) cost more main-thread time than the append itself.
import { BIGINT, BOOLEAN, DOUBLE, INTEGER, LIST, VARCHAR, type DuckDBDataChunk, type DuckDBType } from '@duckdb/node-api';
import { FatalError } from '../errors.js';
import type { StagedAppend } from './append-columns.js';
import { toDuckDBValue } from './duckdb-values.js';
import { ident, type ColumnSpec, type ColumnType, type TableSpec } from './table-definition.js';

const MS_PER_DAY = 86_400_000;

/** How a column of `type` is staged: the staging table's SQL type, the appender's type, and the SQL that reads it back. */
interface StagingColumn {
  sql: string;
  duck: DuckDBType;
  read: (expr: string) => string;
}

const same = (expr: string): string => expr;

/** A BIGINT column of a batch that holds a JS bigint: staged as BIGINT, one bigint per value (the slow, exact way). */
const EXACT_BIGINT: StagingColumn = { sql: 'BIGINT', duck: BIGINT, read: same };

function stagingColumn(type: ColumnType): StagingColumn {
  switch (type) {
    case 'VARCHAR':
      return { sql: 'VARCHAR', duck: VARCHAR, read: same };
    case 'JSON':
      return { sql: 'VARCHAR', duck: VARCHAR, read: (e) => `CAST(${e} AS JSON)` };
    case 'BIGINT':
      return { sql: 'DOUBLE', duck: DOUBLE, read: (e) => `CAST(${e} AS BIGINT)` };
    case 'INTEGER':
      return { sql: 'INTEGER', duck: INTEGER, read: same };
    case 'DOUBLE':
      return { sql: 'DOUBLE', duck: DOUBLE, read: same };
    case 'BOOLEAN':
      return { sql: 'BOOLEAN', duck: BOOLEAN, read: same };
    case 'TIMESTAMP':
      return { sql: 'DOUBLE', duck: DOUBLE, read: (e) => `epoch_ms(CAST(${e} AS BIGINT))` };
    case 'DATE':
      return { sql: 'INTEGER', duck: INTEGER, read: (e) => `CAST(DATE '1970-01-01' + ${e} AS DATE)` };
    case 'VARCHAR[]':
      return { sql: 'VARCHAR[]', duck: LIST(VARCHAR), read: same };
  }
}

/** Returned by {@link fastValue} for a value it leaves to {@link slowValue}. */
const SLOW = Symbol('slow');

/** The staged form of the common values (null and undefined: NULL); SLOW for anything else. */
function fastValue(type: ColumnType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'BIGINT':
      return typeof value === 'number' && Number.isSafeInteger(value) ? value : SLOW;
    case 'VARCHAR':
      return typeof value === 'string' ? value : SLOW;
    case 'DOUBLE':
      return typeof value === 'number' && Number.isFinite(value) ? value : SLOW;
    case 'TIMESTAMP':
      return value instanceof Date && !Number.isNaN(value.getTime()) ? value.getTime() : SLOW;
    case 'DATE':
      return value instanceof Date && value.getTime() % MS_PER_DAY === 0 ? value.getTime() / MS_PER_DAY : SLOW;
    default:
      return SLOW;
  }
}

/** The staged form of any other value, with the checks and messages of {@link toDuckDBValue} (naming `where`). */
function slowValue(type: ColumnType, value: unknown, where: string): unknown {
  // Throws for a value that does not fit; what passes here is already in its staged form (JSON text, a list, ...).
  const checked = toDuckDBValue(type, value, where);
  return type === 'TIMESTAMP' || type === 'DATE' ? fastValue(type, value) : checked;
}

/** The staging columns of `spec` read back as the table's columns, for the SELECT that leaves the staging table. */
export function readStaged(spec: TableSpec, alias?: string): string[] {
  return spec.columns.map((col) => {
    const name = ident(col.name);
    return `${stagingColumn(col.type).read(alias ? `${alias}.${name}` : name)} AS ${name}`;
  });
}

/**
 * Check `rows` against `spec` (known columns, keys present, allowed values) and stage them in temp table `name`, the
 * row's position first (`_seq`); the values are checked and converted as the appender's chunks are filled.
 * `duplicates` says whether two rows share a key (then the merge keeps the last; else it needs no de-duplication).
 */
export function stageRows(spec: TableSpec, rows: readonly Record<string, unknown>[], name: string): { append: StagedAppend; duplicates: boolean } {
  const cols = spec.columns;
  const known = new Set(cols.map((col) => col.name));
  const keyIndexes = spec.key.map((k) => cols.findIndex((col) => col.name === k));
  const keys = new Set<string>();
  let duplicates = false;
  // Columns given a JS bigint somewhere in the batch: staged as BIGINT, exact beyond 2^53 (a DOUBLE is not).
  const bigints = new Set<string>();
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (row === null || typeof row !== 'object' || Array.isArray(row)) {
      throw new FatalError(`${spec.name} row ${i}: expected an object of column values, got ${JSON.stringify(row)}`);
    }
    for (const colName in row) {
      if (!known.has(colName)) {
        throw new FatalError(`${spec.name} row ${i}: unknown column "${colName}"; the table's columns are ${cols.map((col) => col.name).join(', ')}`);
      }
      if (typeof row[colName] === 'bigint') bigints.add(colName);
    }
    let key = '';
    for (const k of keyIndexes) {
      const col = cols[k]!;
      const value = row[col.name];
      if (value === null || value === undefined) {
        throw new FatalError(`${spec.name} row ${i} column "${col.name}": a key column must have a value, got ${String(value)}; fix the row the pipeline builds`);
      }
      key += `${value instanceof Date ? value.getTime() : String(value)}\u0000`;
    }
    if (!duplicates) {
      if (keys.has(key)) duplicates = true;
      else keys.add(key);
    }
  }
  const staging = cols.map((col) => (bigints.has(col.name) ? EXACT_BIGINT : stagingColumn(col.type)));
  const ddl = `CREATE OR REPLACE TEMP TABLE ${ident(name)} ("_seq" INTEGER, ${cols.map((col, c) => `${ident(col.name)} ${staging[c]!.sql}`).join(', ')})`;
  const fill = (chunk: DuckDBDataChunk, start: number, end: number): void => {
    const seq = chunk.getColumnVector(0);
    for (let i = start; i < end; i++) seq.setItem(i - start, i);
    seq.flush();
    for (let c = 0; c < cols.length; c++) {
      const col: ColumnSpec = cols[c]!;
      const vector = chunk.getColumnVector(c + 1);
      if (staging[c] === EXACT_BIGINT) {
        for (let i = start; i < end; i++) vector.setItem(i - start, toDuckDBValue('BIGINT', rows[i]![col.name], `${spec.name} row ${i} column "${col.name}"`) as never);
        vector.flush();
        continue;
      }
      for (let i = start; i < end; i++) {
        const value = rows[i]![col.name];
        if (col.allowed && value !== null && value !== undefined && !col.allowed.includes(value as string)) {
          throw new FatalError(`${spec.name} row ${i} column "${col.name}": expected one of ${col.allowed.map((v) => `"${v}"`).join(', ')}, got ${JSON.stringify(value)}; fix the row the pipeline builds`);
        }
        let staged = fastValue(col.type, value);
        if (staged === SLOW) staged = slowValue(col.type, value, `${spec.name} row ${i} column "${col.name}"`);
        vector.setItem(i - start, staged as never);
      }
      vector.flush();
    }
  };
  return { append: { table: name, ddl, types: [INTEGER, ...staging.map((s) => s.duck)], rowCount: rows.length, fill }, duplicates };
}
