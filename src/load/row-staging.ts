// Rows of a batch straight into the staging table's DataChunks: each value checked and written to its vector in one
// pass, with no intermediate column arrays. Counts are staged as DOUBLE (exact to 2^53; a column handed a JS bigint is
// staged as BIGINT) and instants as epoch milliseconds, cast back in SQL: a BIGINT or TIMESTAMP vector takes a JS
// bigint per value, and allocating tens of millions of them (the demo's first run writes about 2.8 M rows of up to 43
// columns) cost more main-thread time than the append itself. Money is staged as the DOUBLE the JSON was parsed to and
// cast to DECIMAL in SQL, which rounds to the nearest cent: 3531.0199999999995 lands as 3531.02 exactly.
import { BIGINT, BOOLEAN, DOUBLE, DuckDBDataChunk, INTEGER, LIST, VARCHAR, type DuckDBType } from '@duckdb/node-api';
import bindings from '@duckdb/node-bindings';
import { FatalError } from '../errors.js';
import { filledAlready, type StagedAppend } from './append-columns.js';
import { toDuckDBValue } from './duckdb-values.js';
import { MONEY, ident, type ColumnSpec, type ColumnType, type TableSpec } from './table-definition.js';

const MS_PER_DAY = 86_400_000;

/**
 * The staging columns' kinds: every table of a batch is staged in ONE temp table whose columns are slots of these kinds,
 * a table's column taking the next free slot of its kind. DuckDB keeps a temp table until the transaction ends, at least
 * one 256 KiB block per column once it holds a few thousand rows: a temp table per table of the batch cost a block per
 * table and column (117 MB of a 128 MB writer during the demo's first run, a dozen tables of 15–46 columns each), the
 * shared table a block per slot. `f64` to `string` are written straight into the vectors' memory; `list` and `exact`
 * (a count beyond 2^53, one JS bigint per value: slow, exact) through @duckdb/node-api.
 */
type Kind = 'f64' | 'i32' | 'bool' | 'string' | 'list' | 'exact';
const KINDS: readonly Kind[] = ['f64', 'i32', 'bool', 'string', 'list', 'exact'];
const KIND_TYPE: Record<Kind, { sql: string; duck: DuckDBType; prefix: string }> = {
  f64: { sql: 'DOUBLE', duck: DOUBLE, prefix: 'd' },
  i32: { sql: 'INTEGER', duck: INTEGER, prefix: 'i' },
  bool: { sql: 'BOOLEAN', duck: BOOLEAN, prefix: 'b' },
  string: { sql: 'VARCHAR', duck: VARCHAR, prefix: 'v' },
  list: { sql: 'VARCHAR[]', duck: LIST(VARCHAR), prefix: 'l' },
  exact: { sql: 'BIGINT', duck: BIGINT, prefix: 'x' },
};

/** How a column of some type is staged: the slot kind, and the SQL that reads a slot back as the column's type. */
interface StagingColumn {
  kind: Kind;
  read: (expr: string) => string;
}

const same = (expr: string): string => expr;

/** A BIGINT column of a batch that holds a bigint beyond 2^53. */
const EXACT_BIGINT: StagingColumn = { kind: 'exact', read: same };

function stagingColumn(type: ColumnType): StagingColumn {
  switch (type) {
    case 'VARCHAR':
      return { kind: 'string', read: same };
    case 'JSON':
      return { kind: 'string', read: (e) => `CAST(${e} AS JSON)` };
    case 'BIGINT':
      return { kind: 'f64', read: (e) => `CAST(${e} AS BIGINT)` };
    case 'INTEGER':
      return { kind: 'i32', read: same };
    case 'DOUBLE':
      return { kind: 'f64', read: same };
    case MONEY:
      return { kind: 'f64', read: (e) => `CAST(${e} AS ${MONEY})` };
    case 'BOOLEAN':
      return { kind: 'bool', read: same };
    case 'TIMESTAMP':
      return { kind: 'f64', read: (e) => `epoch_ms(CAST(${e} AS BIGINT))` };
    case 'DATE':
      return { kind: 'i32', read: (e) => `CAST(DATE '1970-01-01' + ${e} AS DATE)` };
    case 'VARCHAR[]':
      return { kind: 'list', read: same };
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

/** One table's rows in a batch's staging table: how to read them back as the table's columns. */
export interface StagedTable {
  spec: TableSpec;
  /** Its rows' `_tbl` in the staging table. */
  index: number;
  rows: number;
  /** Whether two of its rows share a key (then the merge keeps the last; else it needs no de-duplication). */
  duplicates: boolean;
  /** `<slot read as the column's type> AS <column>`, in table order, over the staging table's columns. */
  select: string[];
}

export interface StagedBatch {
  append: StagedAppend;
  tables: StagedTable[];
}

// Scratch memory of one slot's part of a chunk, copied into the vector once filled (a chunk holds at most 2,048 rows).
const CHUNK_ROWS = 2048;
const F64 = new Float64Array(CHUNK_ROWS);
const I32 = new Int32Array(CHUNK_ROWS);
const U8 = new Uint8Array(CHUNK_ROWS);
const MASK_BYTES = CHUNK_ROWS / 8;

/** Thrown by a fill that met a count beyond 2^53 in a column staged as DOUBLE: stage the batch again with it exact. */
class NeedsExact extends Error {
  constructor(readonly column: string) {
    super(`${column} is staged again as BIGINT`);
  }
}

/** Check every row of a table's part: known columns, keys present; whether two rows share a key. */
function checkRows(spec: TableSpec, rows: readonly Record<string, unknown>[]): boolean {
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
  return duplicates;
}

/**
 * Check the rows of every table of a batch (known columns, keys present, allowed values) and stage them in ONE temp
 * table `name`: `_tbl` (the table's index in `parts`), `_seq` (the row's position in its part), then the slots (see
 * {@link Kind}). The values are checked and converted as the appender's chunks are filled, straight into the vectors'
 * memory (node-api's per-value setters built a bigint or two per value for the null mask alone); the chunks are filled
 * now, packed across tables, so the batch needs no rows once this returns.
 */
export function stageBatch(parts: readonly { spec: TableSpec; rows: readonly Record<string, unknown>[] }[], name: string): StagedBatch {
  const duplicates = parts.map((part) => checkRows(part.spec, part.rows));
  const exact = new Set<string>();
  for (;;) {
    try {
      return stageWith(parts, duplicates, name, exact);
    } catch (err) {
      if (!(err instanceof NeedsExact)) throw err;
      exact.add(err.column);
    }
  }
}

/** {@link stageBatch} with the columns named in `exact` (`<table>.<column>`) staged as BIGINT. */
function stageWith(
  parts: readonly { spec: TableSpec; rows: readonly Record<string, unknown>[] }[],
  duplicates: readonly boolean[],
  name: string,
  exact: ReadonlySet<string>,
): StagedBatch {
  // Slots: per kind, as many as the table with the most columns of that kind needs; vectors 0 and 1 are _tbl and _seq.
  const staging = parts.map(({ spec }) => spec.columns.map((col) => (exact.has(`${spec.name}.${col.name}`) ? EXACT_BIGINT : stagingColumn(col.type))));
  const perKind = new Map<Kind, number>(KINDS.map((kind) => [kind, 0]));
  for (const cols of staging) {
    const used = new Map<Kind, number>();
    for (const col of cols) used.set(col.kind, (used.get(col.kind) ?? 0) + 1);
    for (const [kind, n] of used) perKind.set(kind, Math.max(perKind.get(kind)!, n));
  }
  const slotKinds: Kind[] = [];
  const slotNames: string[] = [];
  const firstSlot = new Map<Kind, number>();
  for (const kind of KINDS) {
    firstSlot.set(kind, slotKinds.length);
    for (let i = 0; i < perKind.get(kind)!; i++) {
      slotKinds.push(kind);
      slotNames.push(`${KIND_TYPE[kind].prefix}${i}`);
    }
  }
  // The slot of each column of each table, in table order.
  const slotOf = staging.map((cols) => {
    const next = new Map<Kind, number>();
    return cols.map((col) => {
      const i = next.get(col.kind) ?? 0;
      next.set(col.kind, i + 1);
      return firstSlot.get(col.kind)! + i;
    });
  });

  const ddl = `CREATE OR REPLACE TEMP TABLE ${ident(name)} ("_tbl" INTEGER, "_seq" INTEGER${slotNames.map((slot, s) => `, ${ident(slot)} ${KIND_TYPE[slotKinds[s]!].sql}`).join('')})`;
  const types = [INTEGER, INTEGER, ...slotKinds.map((kind) => KIND_TYPE[kind].duck)];
  const rowCount = parts.reduce((n, part) => n + part.rows.length, 0);

  // Chunks of up to 2,048 rows, packed across tables: a chunk holds a vector of every slot, used or not.
  const chunks: DuckDBDataChunk[] = [];
  const masks = new Uint8Array(slotKinds.length * MASK_BYTES);
  const masked = new Uint8Array(slotKinds.length);
  let part = 0;
  let from = 0;
  for (let done = 0; done < rowCount; ) {
    const size = Math.min(CHUNK_ROWS, rowCount - done);
    const chunk = DuckDBDataChunk.create(types, size);
    masks.fill(255);
    masked.fill(0);
    const apiRows: (unknown[] | undefined)[] = new Array(slotKinds.length);
    for (let at = 0; at < size; ) {
      while (from >= parts[part]!.rows.length) {
        part += 1;
        from = 0;
      }
      const { spec, rows } = parts[part]!;
      const n = Math.min(size - at, rows.length - from);
      fillSegment(chunk, spec, rows, from, n, at, part, staging[part]!, slotOf[part]!, slotKinds, masks, masked, apiRows);
      at += n;
      from += n;
    }
    // Slots no table of the chunk used, and rows of tables that do not use a slot: NULL.
    for (let s = 0; s < slotKinds.length; s++) {
      const api = apiRows[s];
      if (api) {
        const vector = chunk.getColumnVector(s + 2);
        for (let j = 0; j < size; j++) vector.setItem(j, (api[j] ?? null) as never);
        vector.flush();
      } else if (masked[s]) {
        const vector = bindings.data_chunk_get_vector(chunk.chunk, s + 2);
        bindings.vector_ensure_validity_writable(vector);
        bindings.copy_data_to_vector_validity(vector, 0, masks.buffer, s * MASK_BYTES, Math.ceil(size / 64) * 8);
      }
    }
    chunks.push(chunk);
    done += size;
  }

  const tables = parts.map(({ spec, rows }, t): StagedTable => ({
    spec,
    index: t,
    rows: rows.length,
    duplicates: duplicates[t]!,
    select: spec.columns.map((col, c) => `${staging[t]![c]!.read(ident(slotNames[slotOf[t]![c]!]!))} AS ${ident(col.name)}`),
  }));
  return { append: { table: name, ddl, types, rowCount, fill: filledAlready, chunks }, tables };
}

/**
 * Write rows [from, from + n) of one table into `chunk` at row `at`: `_tbl`, `_seq`, the slots its columns use; clear
 * the valid bits of NULL values and of the slots it does not use in `masks` (marking them in `masked`); values of the
 * node-api kinds go to `apiRows`, written when the chunk is complete.
 */
function fillSegment(
  chunk: DuckDBDataChunk,
  spec: TableSpec,
  rows: readonly Record<string, unknown>[],
  from: number,
  n: number,
  at: number,
  table: number,
  staging: readonly StagingColumn[],
  slotOf: readonly number[],
  slotKinds: readonly Kind[],
  masks: Uint8Array,
  masked: Uint8Array,
  apiRows: (unknown[] | undefined)[],
): void {
  const cols = spec.columns;
  I32.fill(table, 0, n);
  bindings.copy_data_to_vector(bindings.data_chunk_get_vector(chunk.chunk, 0), at * 4, I32.buffer, 0, n * 4);
  for (let j = 0; j < n; j++) I32[j] = from + j;
  bindings.copy_data_to_vector(bindings.data_chunk_get_vector(chunk.chunk, 1), at * 4, I32.buffer, 0, n * 4);
  const clear = (s: number, j: number): void => {
    const bit = at + j;
    masks[s * MASK_BYTES + (bit >> 3)]! &= ~(1 << (bit & 7));
    masked[s] = 1;
  };
  const used = new Uint8Array(slotKinds.length);
  for (let c = 0; c < cols.length; c++) {
    const col: ColumnSpec = cols[c]!;
    const s = slotOf[c]!;
    used[s] = 1;
    const kind = staging[c]!.kind;
    const where = (i: number): string => `${spec.name} row ${i} column "${col.name}"`;
    if (kind === 'list' || kind === 'exact') {
      const values = (apiRows[s] ??= []);
      for (let j = 0; j < n; j++) {
        const value = rows[from + j]![col.name];
        values[at + j] = kind === 'exact' ? toDuckDBValue('BIGINT', value, where(from + j)) : slowValue(col.type, value, where(from + j), unreachable);
      }
      continue;
    }
    const vector = bindings.data_chunk_get_vector(chunk.chunk, s + 2);
    for (let j = 0; j < n; j++) {
      const i = from + j;
      const value = rows[i]![col.name];
      if (col.allowed && value !== null && value !== undefined && !col.allowed.includes(value as string)) {
        throw new FatalError(`${where(i)}: expected one of ${col.allowed.map((v) => `"${v}"`).join(', ')}, got ${JSON.stringify(value)}; fix the row the pipeline builds`);
      }
      let staged = fastValue(col.type, value);
      if (staged === SLOW) staged = slowValue(col.type, value, where(i), () => { throw new NeedsExact(`${spec.name}.${col.name}`); });
      if (staged === null) {
        clear(s, j);
        continue;
      }
      if (kind === 'f64') F64[j] = staged as number;
      else if (kind === 'i32') I32[j] = staged as number;
      else if (kind === 'bool') U8[j] = staged ? 1 : 0;
      else bindings.vector_assign_string_element(vector, at + j, staged as string);
    }
    if (kind === 'f64') bindings.copy_data_to_vector(vector, at * 8, F64.buffer, 0, n * 8);
    else if (kind === 'i32') bindings.copy_data_to_vector(vector, at * 4, I32.buffer, 0, n * 4);
    else if (kind === 'bool') bindings.copy_data_to_vector(vector, at, U8.buffer, 0, n);
  }
  for (let s = 0; s < slotKinds.length; s++) {
    if (used[s]) continue;
    if (apiRows[s]) continue; // a node-api slot: the rows it has no value for stay undefined, written as NULL
    for (let j = 0; j < n; j++) clear(s, j);
  }
}

function unreachable(): never {
  throw new Error('unreachable: a count beyond 2^53 is staged in an exact slot');
}
