// A load package: the rows of a commit written, as they arrive, into files on disk (one CSV file per table, its columns
// in table order after a sequence number, and one of each table's replace scopes), so a row or a scope lives in the
// heap only from its response to its line. A commit reads the files set-wise with DuckDB's `read_csv`: the rows into
// one staging table (warehouse.ts), whose columns are slots of value kinds shared by every table, and each table's
// scopes into a table of their own. What the load holds in memory is the files in flight, not the rows waiting for a
// commit. Each value is checked and written in its staged form: instants as epoch milliseconds, dates as days, money as
// the double the JSON was parsed to (cast to DECIMAL in SQL, which rounds to the cent), lists and JSON as JSON text.
// CSV, not NDJSON: a row is its values joined, with no key per value, which halves what JavaScript builds and writes
// (`node dist/bench/stage-formats.js` measures the formats).
import { closeSync, openSync, writeSync } from 'node:fs';
import { FatalError } from '../errors.js';
import { toDuckDBValue } from './duckdb-values.js';
import { MONEY, ident, type ColumnSpec, type ColumnType, type TableSpec } from './table-definition.js';

const MS_PER_DAY = 86_400_000;

/** The slot kinds of the staging table and how a column of each type is staged and read back. */
type Kind = 'f64' | 'i32' | 'i64' | 'bool' | 'string' | 'list';
const KINDS: readonly Kind[] = ['f64', 'i32', 'i64', 'bool', 'string', 'list'];
const KIND_SQL: Record<Kind, { sql: string; prefix: string }> = {
  f64: { sql: 'DOUBLE', prefix: 'd' },
  i32: { sql: 'INTEGER', prefix: 'i' },
  i64: { sql: 'BIGINT', prefix: 'x' },
  bool: { sql: 'BOOLEAN', prefix: 'b' },
  string: { sql: 'VARCHAR', prefix: 'v' },
  list: { sql: 'VARCHAR[]', prefix: 'l' },
};

const same = (expr: string): string => expr;

/** How a package's files are read: an unquoted empty field is NULL, a quoted one an empty string. */
const CSV_OPTIONS = `header = false, auto_detect = false, delim = ',', quote = '"', escape = '"', allow_quoted_nulls = false, new_line = '\\n'`;

function kindOf(type: ColumnType): { kind: Kind; read: (expr: string) => string } {
  switch (type) {
    case 'VARCHAR':
      return { kind: 'string', read: same };
    case 'JSON':
      return { kind: 'string', read: (e) => `CAST(${e} AS JSON)` };
    case 'BIGINT':
      return { kind: 'i64', read: same };
    case 'INTEGER':
      return { kind: 'i32', read: same };
    case 'DOUBLE':
      return { kind: 'f64', read: same };
    case MONEY:
      return { kind: 'f64', read: (e) => `CAST(${e} AS ${MONEY})` };
    case 'BOOLEAN':
      return { kind: 'bool', read: same };
    case 'TIMESTAMP':
      return { kind: 'i64', read: (e) => `epoch_ms(${e})` };
    case 'DATE':
      return { kind: 'i32', read: (e) => `CAST(DATE '1970-01-01' + ${e} AS DATE)` };
    case 'VARCHAR[]':
      return { kind: 'list', read: same };
  }
}

/**
 * File column `c<i>` of a column of `kind`: its `read_csv` type and the SQL of its value (a list is written as its
 * JSON text, read as text and parsed here).
 */
function fileColumn(kind: Kind, i: number): { type: string; value: string } {
  return kind === 'list'
    ? { type: `'c${i}': 'VARCHAR'`, value: `from_json("c${i}", '["VARCHAR"]')` }
    : { type: `'c${i}': '${KIND_SQL[kind].sql}'`, value: `"c${i}"` };
}

/** One table's columns in the staging layout: its file's columns, the slots they fill, the SQL that reads them back. */
interface TableLayout {
  spec: TableSpec;
  index: number;
  /** `read_csv`'s columns: `_seq`, then `c<i>` of each column's type in the file. */
  fileColumns: string;
  /** The staging table's slots the file's columns go to, and the expressions that put them there. */
  slots: string[];
  values: string[];
  select: string[];
  known: ReadonlySet<string>;
  /** A row's line in the table's file (rowEncoder). */
  encode: RowEncoder;
}

/** The staging table's layout, the same for every package: as many slots of each kind as the widest table needs. */
export class StagingLayout {
  readonly slots: { name: string; sql: string }[] = [];
  readonly #tables = new Map<string, TableLayout>();

  constructor(specs: readonly TableSpec[]) {
    const perKind = new Map<Kind, number>(KINDS.map((k) => [k, 0]));
    for (const spec of specs) {
      const used = new Map<Kind, number>();
      for (const col of spec.columns) {
        const { kind } = kindOf(col.type);
        used.set(kind, (used.get(kind) ?? 0) + 1);
      }
      for (const [kind, n] of used) perKind.set(kind, Math.max(perKind.get(kind)!, n));
    }
    for (const kind of KINDS) {
      for (let i = 0; i < perKind.get(kind)!; i++)
        this.slots.push({ name: `${KIND_SQL[kind].prefix}${i}`, sql: KIND_SQL[kind].sql });
    }
    specs.forEach((spec, index) => {
      const next = new Map<Kind, number>();
      const fileColumns = [`'_seq': 'BIGINT'`];
      const slots: string[] = [];
      const values: string[] = [];
      const select: string[] = [];
      spec.columns.forEach((col, c) => {
        const { kind, read } = kindOf(col.type);
        const i = next.get(kind) ?? 0;
        next.set(kind, i + 1);
        const slot = `${KIND_SQL[kind].prefix}${i}`;
        const file = fileColumn(kind, c);
        fileColumns.push(file.type);
        slots.push(ident(slot));
        values.push(file.value);
        select.push(`${read(ident(slot))} AS ${ident(col.name)}`);
      });
      this.#tables.set(spec.name, {
        spec,
        index,
        fileColumns: fileColumns.join(', '),
        slots,
        values,
        select,
        known: new Set(spec.columns.map((c) => c.name)),
        encode: rowEncoder(spec),
      });
    });
  }

  table(spec: TableSpec): TableLayout {
    const layout = this.#tables.get(spec.name);
    if (!layout) throw new FatalError(`no staging layout for table "${spec.name}"`);
    return layout;
  }

  /** The staging table's DDL. */
  ddl(name: string): string {
    return `CREATE OR REPLACE TEMP TABLE ${ident(name)} ("_tbl" INTEGER, "_seq" BIGINT${this.slots.map((s) => `, ${ident(s.name)} ${s.sql}`).join('')})`;
  }

  /**
   * The statement that reads one table's file of a package into the staging table. An unquoted empty field is NULL, a
   * quoted one an empty string; quoted fields may hold quotes (doubled) and line breaks.
   */
  load(name: string, table: StagedTable): string {
    const layout = this.table(table.spec);
    return `INSERT INTO ${ident(name)} ("_tbl", "_seq", ${layout.slots.join(', ')})
      SELECT ${layout.index}, "_seq", ${layout.values.join(', ')} FROM read_csv(${sqlText(table.file)}, ${CSV_OPTIONS}, columns = {${layout.fileColumns}})`;
  }
}

/** One table's rows in a package: how the merge reads them from the staging table. */
export interface StagedTable {
  spec: TableSpec;
  /** Its rows' `_tbl` in the staging table. */
  index: number;
  rows: number;
  /** Whether two of its rows may share a key (then the merge keeps the last). */
  duplicates: boolean;
  /** `<slot read as the column's type> AS <column>`, in table order, over the staging table's columns. */
  select: string[];
  /** The package's file of this table's rows. */
  file: string;
}

/**
 * One table's replace scopes in a package (bulk-merge.ts): the columns every scope of the table names, and the file of
 * their values, one scope a line in the staged form of the rows' files.
 */
export interface StagedScope {
  spec: TableSpec;
  columns: string[];
  rows: number;
  file: string;
}

/** What a closed package holds: its tables' rows and their replace scopes, each in files of its own. */
export interface StagedPackage {
  tables: StagedTable[];
  scopes: StagedScope[];
}

/**
 * The statement that makes temp table `name` of a package's scope file: a column of each scope column, of the table's
 * type, read from its staged form as the rows' files are.
 */
export function scopeTableSql(name: string, scope: StagedScope): string {
  const cols = scope.columns.map((c) => scope.spec.columns.find((col) => col.name === c)!);
  const files = cols.map((col, i) => {
    const { kind, read } = kindOf(col.type);
    return { ...fileColumn(kind, i), read };
  });
  const fileColumns = files.map((f) => f.type);
  const select = files.map((f, i) => `${f.read(f.value)} AS ${ident(cols[i]!.name)}`);
  return `CREATE OR REPLACE TEMP TABLE ${ident(name)} AS SELECT ${select.join(', ')} FROM read_csv(${sqlText(scope.file)}, ${CSV_OPTIONS}, columns = {${fileColumns.join(', ')}})`;
}

/** What a package needs of the warehouse's tables (warehouse-tables.ts): their specs by name and their staging layout. */
export interface PackageTables {
  readonly all: readonly TableSpec[];
  readonly staging: StagingLayout;
  has(name: string): boolean;
  spec(name: string): TableSpec;
}

function sqlText(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * Rows written to a package's files as they are added: `<folder>/<table>.csv`. `close()` ends the files; the rows are
 * then read by the warehouse (`Warehouse.prepareCommit`), and the folder is the caller's to delete.
 */
export class RowPackage {
  readonly folder: string;
  #closed = false;
  #seq = 0;
  #bytes = 0;
  /** The tables of the warehouse the package is for: the names its rows may name, and their staging layout. */
  readonly tables: PackageTables;
  readonly #tables = new Map<string, { layout: TableLayout; rows: number; out: PackageFile; file: string }>();
  readonly #scopes = new Map<string, { scope: StagedScope; cols: ColumnSpec[]; out: PackageFile }>();

  /** `folder` exists and is this package's alone. */
  constructor(folder: string, tables: PackageTables) {
    this.folder = folder;
    this.tables = tables;
  }

  /** Rows added so far. */
  get rows(): number {
    return this.#seq;
  }

  /** Bytes written to its files so far (lines held for a file's next write are not counted until it happens). */
  get bytes(): number {
    return this.#bytes;
  }

  /** Write one table's rows; a value that does not fit its column throws a FatalError naming the table, row and column. */
  add(spec: TableSpec, rows: readonly Record<string, unknown>[]): void {
    if (this.#closed) throw new Error(`package ${this.folder} is closed`);
    if (rows.length === 0) return;
    let entry = this.#tables.get(spec.name);
    if (!entry) {
      const file = `${this.folder}/${spec.name}.csv`;
      this.#tables.set(
        spec.name,
        (entry = { layout: this.tables.staging.table(spec), rows: 0, out: openFile(file), file }),
      );
    }
    const { layout } = entry;
    const encode = layout.encode;
    let shape: string[] = [];
    const lines: string[] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      const at = entry.rows + i;
      if (row === null || typeof row !== 'object' || Array.isArray(row)) {
        throw new FatalError(`${spec.name} row ${at}: expected an object of column values, got ${JSON.stringify(row)}`);
      }
      // Rows built by one piece of code share their keys in order: only a row whose keys differ from the last is checked.
      // Compared with for…in, which reads V8's cached keys of the row's shape; Object.keys would copy them for each row.
      let j = 0;
      let sameShape = true;
      for (const name in row) {
        if (name !== shape[j++]) {
          sameShape = false;
          break;
        }
      }
      if (!sameShape || j !== shape.length) {
        const names = Object.keys(row);
        for (const name of names) {
          if (!layout.known.has(name)) {
            throw new FatalError(
              `${spec.name} row ${at}: unknown column "${name}"; the table's columns are ${spec.columns.map((c) => c.name).join(', ')}`,
            );
          }
        }
        shape = names;
      }
      lines[i] = encode(row, this.#seq++, at);
    }
    this.#write(entry.out, lines);
    entry.rows += rows.length;
  }

  /**
   * Write replace scopes of a table (bulk-merge.ts): each of `values` is one scope's values on `columns`. Every scope of
   * a table in one package names the same columns; a value that does not fit its column throws a FatalError.
   */
  addScopes(spec: TableSpec, columns: readonly string[], values: readonly unknown[][]): void {
    if (this.#closed) throw new Error(`package ${this.folder} is closed`);
    let entry = this.#scopes.get(spec.name);
    if (!entry) {
      const cols = columns.map((name) => {
        const col = spec.columns.find((candidate) => candidate.name === name);
        if (!col) {
          throw new FatalError(
            `replace scope of ${spec.name}: unknown column "${name}"; use columns of the table: ${spec.columns.map((c) => c.name).join(', ')}`,
          );
        }
        return col;
      });
      const file = `${this.folder}/${spec.name}.scope.csv`;
      entry = { scope: { spec, columns: [...columns], rows: 0, file }, cols, out: openFile(file) };
      this.#scopes.set(spec.name, entry);
    } else if (columns.join('\u0000') !== entry.scope.columns.join('\u0000')) {
      throw new FatalError(
        `replace scopes of ${spec.name} name different columns ([${entry.scope.columns.join(', ')}] and [${columns.join(', ')}]); ` +
          'send one replace entry per set of scope columns in separate batches',
      );
    }
    if (values.length === 0) return;
    const { cols, scope } = entry;
    const lines: string[] = new Array(values.length);
    for (let i = 0; i < values.length; i++) {
      const tuple = values[i];
      if (!Array.isArray(tuple) || tuple.length !== cols.length) {
        throw new FatalError(
          `replace scope of ${spec.name} row ${scope.rows + i}: expected ${cols.length} values for [${scope.columns.join(', ')}], got ${JSON.stringify(tuple)}`,
        );
      }
      lines[i] = cols
        .map((col, c) =>
          tuple[c] === null || tuple[c] === undefined
            ? ''
            : csvValue(col.type, tuple[c], `replace scope of ${spec.name}`, scope.rows + i, col.name),
        )
        .join(',');
    }
    this.#write(entry.out, lines);
    scope.rows += values.length;
  }

  /**
   * Lines to a file: held until the file has WRITE_CHARS of them, then written at once. A window adds a few hundred
   * rows to each of several files, and a write for each call was a tenth of the fetch's main thread in system calls.
   */
  #write(out: PackageFile, lines: readonly string[]): void {
    const text = `${lines.join('\n')}\n`;
    out.held.push(text);
    out.chars += text.length;
    if (out.chars >= WRITE_CHARS) this.#flush(out);
  }

  #flush(out: PackageFile): void {
    if (out.held.length === 0 || out.fd === undefined) return;
    const bytes = Buffer.from(out.held.join(''));
    out.held = [];
    out.chars = 0;
    for (let at = 0; at < bytes.length; ) at += writeSync(out.fd, bytes, at);
    this.#bytes += bytes.length;
  }

  /** Ends the files; returns how each table's rows are read once loaded into the staging table, and its scopes. */
  close(): StagedPackage {
    if (this.#closed) return this.#staged();
    this.#closed = true;
    // Every file is closed, even when a write fails (a full disk): the first failure is thrown after.
    let failure: unknown;
    for (const { out } of [...this.#tables.values(), ...this.#scopes.values()]) {
      try {
        this.#flush(out);
      } catch (err) {
        failure ??= err;
      }
      if (out.fd !== undefined) closeSync(out.fd);
      out.fd = undefined;
      out.held = [];
    }
    if (failure !== undefined) throw failure;
    return this.#staged();
  }

  #staged(): StagedPackage {
    return {
      tables: [...this.#tables.values()].map(({ layout, rows, file }) => ({
        spec: layout.spec,
        index: layout.index,
        rows,
        duplicates: true,
        select: layout.select,
        file,
      })),
      scopes: [...this.#scopes.values()].map((e) => e.scope),
    };
  }
}

/**
 * Characters a package file holds before they are written: small enough that a package's dozen or so files hold well
 * under a megabyte, large enough that a write carries many windows' rows.
 */
const WRITE_CHARS = 64 * 1024;

/** A package file being written: its descriptor (undefined once closed) and the lines held for its next write. */
interface PackageFile {
  fd: number | undefined;
  held: string[];
  chars: number;
}

function openFile(path: string): PackageFile {
  return { fd: openSync(path, 'w'), held: [], chars: 0 };
}

/** A row's line: its sequence number, then each column's field; `at` is its place in the table's rows, for messages. */
type RowEncoder = (row: Record<string, unknown>, seq: number, at: number) => string;

/**
 * The encoder of a table's rows, generated from its columns: each value is read by a property access with its column's
 * name written in the code, which V8 caches for the rows' shape, and handed to a field writer of its column's type.
 * Reading `row[col.name]` in a loop over the columns instead makes every read a lookup by a name that changes, which
 * was the largest part of a package's cost (a campaign message row has 45 columns). The names come from the table
 * declarations and are written as JSON string literals; nothing of a row's content is ever part of the code.
 */
function rowEncoder(spec: TableSpec): RowEncoder {
  const writers = spec.columns.flatMap((col) => [fieldWriter(spec, col), missingField(spec, col)]);
  const params = spec.columns.flatMap((_, c) => [`w${c}`, `m${c}`]);
  const body = spec.columns
    .map(
      (col, c) =>
        `v = row[${JSON.stringify(col.name)}]; line += ',' + (v === null || v === undefined ? m${c}(v, at) : w${c}(v, at));`,
    )
    .join('\n');
  const make = new Function(
    ...params,
    `return function encodeRow(row, seq, at) {\nlet v;\nlet line = '' + seq;\n${body}\nreturn line;\n};`,
  ) as (...writers: ((value: unknown, at: number) => string)[]) => RowEncoder;
  return make(...writers);
}

/** The field of an absent value: empty (NULL), except in a key column, which must have one. */
function missingField(spec: TableSpec, col: ColumnSpec): (value: unknown, at: number) => string {
  if (!spec.key.includes(col.name)) return () => '';
  return (value, at) => {
    throw new FatalError(
      `${spec.name} row ${at} column "${col.name}": a key column must have a value, got ${String(value)}; fix the row the pipeline builds`,
    );
  };
}

/** The writer of a column's present values: csvValue of its type, after the check of its allowed values if it has them. */
function fieldWriter(spec: TableSpec, col: ColumnSpec): (value: unknown, at: number) => string {
  const table = spec.name;
  const allowed = col.allowed;
  if (!allowed) return (value, at) => csvValue(col.type, value, table, at, col.name);
  return (value, at) => {
    if (!allowed.includes(value as string)) {
      throw new FatalError(
        `${table} row ${at} column "${col.name}": expected one of ${allowed.map((v) => `"${v}"`).join(', ')}, got ${JSON.stringify(value)}; fix the row the pipeline builds`,
      );
    }
    return csvValue(col.type, value, table, at, col.name);
  };
}

/** A value in its staged form as a CSV field; a value that does not fit its column throws (toDuckDBValue's messages). */
function csvValue(type: ColumnType, value: unknown, table: string, row: number, column: string): string {
  switch (type) {
    case 'VARCHAR':
      if (typeof value === 'string') return quoted(value);
      break;
    case 'BIGINT':
      if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
      if (typeof value === 'bigint' && value >= -(2n ** 63n) && value < 2n ** 63n) return value.toString();
      break;
    case 'DOUBLE':
    case MONEY:
      if (typeof value === 'number' && Number.isFinite(value)) return String(value);
      break;
    case 'INTEGER':
      if (typeof value === 'number' && Number.isInteger(value) && value >= -2_147_483_648 && value <= 2_147_483_647)
        return String(value);
      break;
    case 'BOOLEAN':
      if (typeof value === 'boolean') return value ? 'true' : 'false';
      break;
    case 'TIMESTAMP':
      if (value instanceof Date && !Number.isNaN(value.getTime())) return String(value.getTime());
      break;
    case 'DATE':
      if (value instanceof Date && value.getTime() % MS_PER_DAY === 0) return String(value.getTime() / MS_PER_DAY);
      break;
    case 'JSON':
    case 'VARCHAR[]':
      break;
  }
  // Everything else is checked (and JSON values serialized) as the appender's path checks it, with its messages.
  const checked = toDuckDBValue(type, value, `${table} row ${row} column "${column}"`);
  // JSON text escapes a lone surrogate, which JSON readers refuse: strings in it are made well-formed first.
  if (type === 'JSON')
    return quoted(
      JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? wellFormed(v) : v)) ?? String(checked),
    );
  if (type === 'VARCHAR[]') return quoted(JSON.stringify((value as string[]).map(wellFormed)));
  throw new FatalError(
    `${table} row ${row} column "${column}": ${String(checked)} passed the checks but has no staged form`,
  );
}

/** ES2024's String methods, on every Node this supports (20 and later). */
interface WellFormed {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

/** A text as a quoted CSV field: quotes doubled, a lone surrogate as U+FFFD. */
function quoted(text: string): string {
  const well = wellFormed(text);
  return well.includes('"') ? `"${well.replaceAll('"', '""')}"` : `"${well}"`;
}

/** A lone surrogate becomes U+FFFD, as any UTF-8 encoding of the string makes it: JSON readers refuse it escaped. */
function wellFormed(text: string): string {
  const s = text as unknown as WellFormed;
  return s.isWellFormed() ? text : s.toWellFormed();
}
