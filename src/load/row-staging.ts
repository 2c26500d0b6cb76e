// Rows of a batch straight into the staging table's DataChunks: each value checked and written to its vector in one
// pass, with no intermediate column arrays. Counts are staged as DOUBLE (exact to 2^53; a column handed a JS bigint is
// staged as BIGINT) and instants as epoch milliseconds, cast back in SQL: a BIGINT or TIMESTAMP vector takes a JS
// bigint per value, and allocating tens of millions of them (the demo's first run writes about 2.8 M rows of up to 43
// columns) cost more main-thread time than the append itself. Money is staged as the DOUBLE the JSON was parsed to and
// cast to DECIMAL in SQL, which rounds to the nearest cent: 3531.0199999999995 lands as 3531.02 exactly.
import { BIGINT, BOOLEAN, DOUBLE, INTEGER, LIST, VARCHAR, type DuckDBDataChunk, type DuckDBType } from '@duckdb/node-api';
import bindings from '@duckdb/node-bindings';
import { FatalError } from '../errors.js';
import { RestageError, type StagedAppend } from './append-columns.js';
import { toDuckDBValue } from './duckdb-values.js';
import { MONEY, ident, type ColumnSpec, type ColumnType, type TableSpec } from './table-definition.js';

const MS_PER_DAY = 86_400_000;

/** How a column's values are written into a chunk: straight into its vector's memory, or through @duckdb/node-api. */
type Writer = 'f64' | 'i32' | 'bool' | 'string' | 'api';

/** How a column of `type` is staged: the staging table's SQL type, the appender's type, and the SQL that reads it back. */
interface StagingColumn {
  sql: string;
  duck: DuckDBType;
  read: (expr: string) => string;
  writer: Writer;
}

const same = (expr: string): string => expr;

/** A BIGINT column of a batch that holds a bigint beyond 2^53: staged as BIGINT, one JS bigint per value (slow, exact). */
const EXACT_BIGINT: StagingColumn = { sql: 'BIGINT', duck: BIGINT, read: same, writer: 'api' };

function stagingColumn(type: ColumnType): StagingColumn {
  switch (type) {
    case 'VARCHAR':
      return { sql: 'VARCHAR', duck: VARCHAR, read: same, writer: 'string' };
    case 'JSON':
      return { sql: 'VARCHAR', duck: VARCHAR, read: (e) => `CAST(${e} AS JSON)`, writer: 'string' };
    case 'BIGINT':
      return { sql: 'DOUBLE', duck: DOUBLE, read: (e) => `CAST(${e} AS BIGINT)`, writer: 'f64' };
    case 'INTEGER':
      return { sql: 'INTEGER', duck: INTEGER, read: same, writer: 'i32' };
    case 'DOUBLE':
      return { sql: 'DOUBLE', duck: DOUBLE, read: same, writer: 'f64' };
    case MONEY:
      return { sql: 'DOUBLE', duck: DOUBLE, read: (e) => `CAST(${e} AS ${MONEY})`, writer: 'f64' };
    case 'BOOLEAN':
      return { sql: 'BOOLEAN', duck: BOOLEAN, read: same, writer: 'bool' };
    case 'TIMESTAMP':
      return { sql: 'DOUBLE', duck: DOUBLE, read: (e) => `epoch_ms(CAST(${e} AS BIGINT))`, writer: 'f64' };
    case 'DATE':
      return { sql: 'INTEGER', duck: INTEGER, read: (e) => `CAST(DATE '1970-01-01' + ${e} AS DATE)`, writer: 'i32' };
    case 'VARCHAR[]':
      return { sql: 'VARCHAR[]', duck: LIST(VARCHAR), read: same, writer: 'api' };
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
    case MONEY:
      return typeof value === 'number' && Number.isFinite(value) ? value : SLOW;
    case 'TIMESTAMP':
      return value instanceof Date && !Number.isNaN(value.getTime()) ? value.getTime() : SLOW;
    case 'DATE':
      return value instanceof Date && value.getTime() % MS_PER_DAY === 0 ? value.getTime() / MS_PER_DAY : SLOW;
    case 'INTEGER':
      return typeof value === 'number' && Number.isInteger(value) && value >= -2_147_483_648 && value <= 2_147_483_647 ? value : SLOW;
    case 'BOOLEAN':
      return typeof value === 'boolean' ? value : SLOW;
    default:
      return SLOW;
  }
}

/**
 * The staged form of any other value, with the checks and messages of {@link toDuckDBValue} (naming `where`); `exact`
 * is called for a bigint beyond 2^53 in a count staged as DOUBLE.
 */
function slowValue(type: ColumnType, value: unknown, where: string, exact: () => never): unknown {
  if (type === 'BIGINT' && typeof value === 'bigint') {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : exact();
  }
  // Throws for a value that does not fit; what passes here is in its staged form already (JSON text, a list).
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

// Scratch memory of one chunk's column, copied into the vector once filled (a chunk holds at most 2,048 rows).
const CHUNK_ROWS = 2048;
const F64 = new Float64Array(CHUNK_ROWS);
const I32 = new Int32Array(CHUNK_ROWS);
const U8 = new Uint8Array(CHUNK_ROWS);
const MASK = new Uint8Array(CHUNK_ROWS / 8);

/**
 * Check `rows` against `spec` (known columns, keys present, allowed values) and stage them in temp table `name`, the
 * row's position first (`_seq`); the values are checked and converted as the appender's chunks are filled, straight
 * into the vectors' memory: node-api's per-value setters built a bigint or two per value for the null mask alone.
 * `duplicates` says whether two rows share a key (then the merge keeps the last; else it needs no de-duplication).
 */
export function stageRows(spec: TableSpec, rows: readonly Record<string, unknown>[], name: string): { append: StagedAppend; duplicates: boolean } {
  const cols = spec.columns;
  const known = new Set(cols.map((col) => col.name));
  const keyNames = spec.key;
  const keys = new Set<string>();
  let duplicates = false;
  let shape: string[] = [];
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (row === null || typeof row !== 'object' || Array.isArray(row)) {
      throw new FatalError(`${spec.name} row ${i}: expected an object of column values, got ${JSON.stringify(row)}`);
    }
    // Rows built by one piece of code share their keys in order: only a row whose keys differ from the last is checked.
    const names = Object.keys(row);
    let same = names.length === shape.length;
    for (let j = 0; same && j < names.length; j++) same = names[j] === shape[j];
    if (!same) {
      for (const colName of names) {
        if (!known.has(colName)) {
          throw new FatalError(`${spec.name} row ${i}: unknown column "${colName}"; the table's columns are ${cols.map((col) => col.name).join(', ')}`);
        }
      }
      shape = names;
    }
    let key = '';
    for (let k = 0; k < keyNames.length; k++) {
      const value = row[keyNames[k]!];
      if (value === null || value === undefined) {
        throw new FatalError(`${spec.name} row ${i} column "${keyNames[k]}": a key column must have a value, got ${String(value)}; fix the row the pipeline builds`);
      }
      key += `${value instanceof Date ? value.getTime() : String(value)}\u0000`;
    }
    if (!duplicates) {
      if (keys.has(key)) duplicates = true;
      else keys.add(key);
    }
  }
  return { append: stagedRows(spec, rows, name, new Set()), duplicates };
}

/** The staged table of `rows`, the counts named in `exact` staged as BIGINT. */
function stagedRows(spec: TableSpec, rows: readonly Record<string, unknown>[], name: string, exact: ReadonlySet<string>): StagedAppend {
  const cols = spec.columns;
  const staging = cols.map((col) => (exact.has(col.name) ? EXACT_BIGINT : stagingColumn(col.type)));
  const ddl = `CREATE OR REPLACE TEMP TABLE ${ident(name)} ("_seq" INTEGER, ${cols.map((col, c) => `${ident(col.name)} ${staging[c]!.sql}`).join(', ')})`;
  const fill = (chunk: DuckDBDataChunk, start: number, end: number): void => {
    const n = end - start;
    for (let j = 0; j < n; j++) I32[j] = start + j;
    bindings.copy_data_to_vector(bindings.data_chunk_get_vector(chunk.chunk, 0), 0, I32.buffer, 0, n * 4);
    for (let c = 0; c < cols.length; c++) {
      const col: ColumnSpec = cols[c]!;
      const writer = staging[c]!.writer;
      const where = (i: number): string => `${spec.name} row ${i} column "${col.name}"`;
      if (writer === 'api') {
        const vector = chunk.getColumnVector(c + 1);
        for (let i = start; i < end; i++) {
          const value = rows[i]![col.name];
          vector.setItem(i - start, (col.type === 'BIGINT' ? toDuckDBValue('BIGINT', value, where(i)) : slowValue(col.type, value, where(i), () => { throw new Error('unreachable'); })) as never);
        }
        vector.flush();
        continue;
      }
      const vector = bindings.data_chunk_get_vector(chunk.chunk, c + 1);
      let nulls = false;
      for (let i = start; i < end; i++) {
        const j = i - start;
        const value = rows[i]![col.name];
        if (col.allowed && value !== null && value !== undefined && !col.allowed.includes(value as string)) {
          throw new FatalError(`${where(i)}: expected one of ${col.allowed.map((v) => `"${v}"`).join(', ')}, got ${JSON.stringify(value)}; fix the row the pipeline builds`);
        }
        let staged = fastValue(col.type, value);
        if (staged === SLOW) staged = slowValue(col.type, value, where(i), () => { throw new RestageError(stagedRows(spec, rows, name, new Set([...exact, col.name]))); });
        if (staged === null) {
          if (!nulls) {
            MASK.fill(255);
            nulls = true;
          }
          MASK[j >> 3]! &= ~(1 << (j & 7));
          continue;
        }
        if (writer === 'f64') F64[j] = staged as number;
        else if (writer === 'i32') I32[j] = staged as number;
        else if (writer === 'bool') U8[j] = staged ? 1 : 0;
        else bindings.vector_assign_string_element(vector, j, staged as string);
      }
      if (writer === 'f64') bindings.copy_data_to_vector(vector, 0, F64.buffer, 0, n * 8);
      else if (writer === 'i32') bindings.copy_data_to_vector(vector, 0, I32.buffer, 0, n * 4);
      else if (writer === 'bool') bindings.copy_data_to_vector(vector, 0, U8.buffer, 0, n);
      if (nulls) {
        bindings.vector_ensure_validity_writable(vector);
        bindings.copy_data_to_vector_validity(vector, 0, MASK.buffer, 0, Math.ceil(n / 64) * 8);
      }
    }
  };
  return { table: name, ddl, types: [INTEGER, ...staging.map((s) => s.duck)], rowCount: rows.length, fill };
}
