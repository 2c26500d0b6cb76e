// Conversions between the JS values the pipeline hands over and DuckDB values: checked on the way in (a bad value names
// table, row, column and the type expected), plain JS on the way out (bigint becomes number when it fits).
import {
  BIGINT,
  BOOLEAN,
  DATE,
  DOUBLE,
  INTEGER,
  LIST,
  TIMESTAMP,
  VARCHAR,
  dateValue,
  listValue,
  timestampValue,
} from '@duckdb/node-api';
import type { DuckDBType, DuckDBValue } from '@duckdb/node-api';
import { FatalError } from '../errors.js';
import { MONEY } from './table-definition.js';
import type { ColumnType } from './table-definition.js';

const MS_PER_DAY = 86_400_000;

/** The DuckDB type a staging column of this kind is appended as (JSON travels as its text). */
export function stagingType(type: ColumnType): DuckDBType {
  switch (type) {
    case 'VARCHAR':
    case 'JSON':
      return VARCHAR;
    case 'BIGINT':
      return BIGINT;
    case 'INTEGER':
      return INTEGER;
    case 'DOUBLE':
    case MONEY:
      return DOUBLE;
    case 'BOOLEAN':
      return BOOLEAN;
    case 'TIMESTAMP':
      return TIMESTAMP;
    case 'DATE':
      return DATE;
    case 'VARCHAR[]':
      return LIST(VARCHAR);
  }
}

/** SQL type of a staging column (JSON is staged as VARCHAR, money as DOUBLE, each cast when merged). */
export function stagingSqlType(type: ColumnType): string {
  return type === 'JSON' ? 'VARCHAR' : type === MONEY ? 'DOUBLE' : type;
}

function show(value: unknown): string {
  let text: string;
  if (value instanceof Date) text = `Date(${Number.isNaN(value.getTime()) ? 'invalid' : value.toISOString()})`;
  else if (typeof value === 'bigint') text = `${value}n`;
  else if (typeof value === 'string') text = JSON.stringify(value);
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function bad(where: string, expected: string, value: unknown): FatalError {
  return new FatalError(
    `${where}: expected ${expected}, got ${show(value)} (${typeof value}); fix the value the pipeline hands to the loader`,
  );
}

function validDate(value: unknown): value is Date {
  return value instanceof Date && !Number.isNaN(value.getTime());
}

/** A TIMESTAMP literal of a valid Date (UTC), for SQL run as a script, where no parameter can be bound. */
export function sqlTimestamp(value: Date, where: string): string {
  if (!validDate(value)) throw bad(where, 'a valid Date', value);
  return `TIMESTAMP '${value.toISOString().slice(0, -1)}'`;
}

/**
 * Convert one JS value for a column of `type`; null and undefined become SQL NULL.
 * @param where names the value in an error, e.g. `revenue row 3 column "revenue"`.
 */
export function toDuckDBValue(type: ColumnType, value: unknown, where: string): DuckDBValue {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'VARCHAR':
      if (typeof value !== 'string') throw bad(where, 'a string', value);
      return value;
    case 'JSON':
      try {
        const text = JSON.stringify(value);
        if (text === undefined) throw bad(where, 'a JSON-serializable value', value);
        return text;
      } catch (err) {
        if (err instanceof FatalError) throw err;
        throw bad(where, 'a JSON-serializable value', value);
      }
    case 'BIGINT':
      if (typeof value === 'bigint') return value;
      if (typeof value !== 'number' || !Number.isSafeInteger(value))
        throw bad(where, 'an integer (number or bigint)', value);
      return BigInt(value);
    case 'INTEGER':
      if (typeof value !== 'number' || !Number.isInteger(value) || value < -2_147_483_648 || value > 2_147_483_647) {
        throw bad(where, 'a 32-bit integer', value);
      }
      return value;
    case 'DOUBLE':
    case MONEY:
      if (typeof value !== 'number' || !Number.isFinite(value)) throw bad(where, 'a finite number', value);
      return value;
    case 'BOOLEAN':
      if (typeof value !== 'boolean') throw bad(where, 'a boolean', value);
      return value;
    case 'TIMESTAMP':
      if (!validDate(value)) throw bad(where, 'a valid Date (UTC timestamp)', value);
      return timestampValue(BigInt(value.getTime()) * 1000n);
    case 'DATE': {
      if (!validDate(value)) throw bad(where, 'a valid Date at UTC midnight', value);
      const ms = value.getTime();
      if (ms % MS_PER_DAY !== 0) throw bad(where, 'a Date at UTC midnight (a DATE has no time of day)', value);
      return dateValue(ms / MS_PER_DAY);
    }
    case 'VARCHAR[]':
      if (!Array.isArray(value) || !value.every((item) => typeof item === 'string'))
        throw bad(where, 'an array of strings', value);
      return listValue(value as string[]);
  }
}

/** A query result value as plain JS: bigint → number when safe (else kept), lists and structs converted deeply. */
export function fromDuckDBValue(value: unknown): unknown {
  if (typeof value === 'bigint') {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
  }
  if (Array.isArray(value)) return value.map(fromDuckDBValue);
  if (value !== null && typeof value === 'object' && !(value instanceof Date) && !(value instanceof Uint8Array)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fromDuckDBValue(v)]));
  }
  return value;
}

/** Bind JS parameters to a query with explicit types: DuckDB cannot type an untyped Date, so Dates travel as TIMESTAMP; string arrays as VARCHAR[]. */
export function toQueryParams(params: readonly unknown[]): { values: DuckDBValue[]; types: DuckDBType[] } {
  const values: DuckDBValue[] = [];
  const types: DuckDBType[] = [];
  const add = (type: ColumnType, param: unknown, where: string): void => {
    values.push(toDuckDBValue(type, param, where));
    types.push(stagingType(type));
  };
  params.forEach((param, i) => {
    const where = `query parameter $${i + 1}`;
    if (param instanceof Date) add('TIMESTAMP', param, where);
    else if (param === null || param === undefined || typeof param === 'string') add('VARCHAR', param, where);
    else if (typeof param === 'boolean') add('BOOLEAN', param, where);
    else if (typeof param === 'bigint' || (typeof param === 'number' && Number.isSafeInteger(param)))
      add('BIGINT', param, where);
    else if (typeof param === 'number') add('DOUBLE', param, where);
    else if (Array.isArray(param) && param.every((item) => typeof item === 'string')) add('VARCHAR[]', param, where);
    else throw bad(where, 'a string, number, bigint, boolean, Date, array of strings or null', param);
  });
  return { values, types };
}
