// Source values as JSON: DuckDB results (Date, bigint, lists, structs) turned into what a request body carries, with a
// stable text and hash so the ledger can tell whether a row changed since the platform last accepted it.
import { createHash } from 'node:crypto';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type RowValues = Record<string, Json>;

/**
 * The JSON form of one column value, or a string saying why it has none. Dates become ISO 8601 instants, lists arrays,
 * structs objects; a DuckDB MAP (a list of {key, value}) becomes an object.
 */
export function toJson(value: unknown, where: string): { ok: true; value: Json } | { ok: false; problem: string } {
  if (value === null || value === undefined) return { ok: true, value: null };
  if (typeof value === 'string' || typeof value === 'boolean') return { ok: true, value };
  if (typeof value === 'number') {
    return Number.isFinite(value)
      ? { ok: true, value }
      : { ok: false, problem: `${where} is ${value}, not a finite number; filter or COALESCE it in the query` };
  }
  if (typeof value === 'bigint') {
    return {
      ok: false,
      problem: `${where} is ${value}, beyond the integers JSON carries exactly (±2^53); cast it to VARCHAR or DOUBLE in the query`,
    };
  }
  if (value instanceof Date) {
    return Number.isNaN(value.getTime())
      ? { ok: false, problem: `${where} is an invalid date` }
      : { ok: true, value: value.toISOString() };
  }
  if (value instanceof Uint8Array)
    return { ok: false, problem: `${where} is a BLOB; cast it to VARCHAR (or base64 it) in the query` };
  if (Array.isArray(value)) {
    const isMap =
      value.length > 0 &&
      value.every(
        (e) => e !== null && typeof e === 'object' && !Array.isArray(e) && Object.keys(e).join() === 'key,value',
      );
    if (isMap) {
      const out: Record<string, Json> = {};
      for (const entry of value as { key: unknown; value: unknown }[]) {
        const v = toJson(entry.value, `${where}[${String(entry.key)}]`);
        if (!v.ok) return v;
        out[String(entry.key)] = v.value;
      }
      return { ok: true, value: out };
    }
    const out: Json[] = [];
    for (const [i, item] of value.entries()) {
      const v = toJson(item, `${where}[${i}]`);
      if (!v.ok) return v;
      out.push(v.value);
    }
    return { ok: true, value: out };
  }
  if (typeof value === 'object') {
    const out: Record<string, Json> = {};
    for (const [k, item] of Object.entries(value)) {
      const v = toJson(item, `${where}.${k}`);
      if (!v.ok) return v;
      out[k] = v.value;
    }
    return { ok: true, value: out };
  }
  return { ok: false, problem: `${where} has a value of type ${typeof value} that cannot be sent` };
}

/** JSON with object keys sorted at every level: equal values give equal text. */
export function stableStringify(value: Json): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify(value[k] as Json)}`).join(',')}}`;
}

/** Short hash of a row's values (sha256, hex, 32 characters). */
export function hashValues(values: Json): string {
  return createHash('sha256').update(stableStringify(values)).digest('hex').slice(0, 32);
}

/** Deep equality of JSON values (object key order ignored). */
export function sameJson(a: Json | undefined, b: Json | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return stableStringify(a) === stableStringify(b);
}

/** A value quoted for a message, cut to a readable length. */
export function show(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'bigint' ? `${value}` : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
