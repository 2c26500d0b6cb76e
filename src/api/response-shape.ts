// Checks on response bodies shared by the endpoint functions: servers may add fields or send numbers as strings, but a
// body missing what we store is refused with the endpoint, the parameters and the offending value named.
import type { ApiCall } from './api-call.js';
import { FatalApiError, FatalError, type RequestContext } from '../errors.js';

/** The printable context of a call, for errors raised after the response arrived. */
export function contextOf(call: ApiCall): RequestContext {
  const params: Record<string, unknown> = { ...call.pathParams };
  for (const [key, value] of Object.entries(call.query ?? {})) if (value !== undefined) params[key] = value;
  return { method: call.endpoint.method, endpoint: call.endpoint.path, params };
}

/** Refuses a 2xx body that does not have the documented shape. */
export function malformed(ctx: RequestContext, what: string, body: unknown, status?: number): FatalApiError {
  return new FatalApiError(
    ctx,
    `the response does not match the API spec: ${what}. The server may run another API version; check baseUrl and report the body below`,
    { status, body },
  );
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A finite number from a JSON number or a numeric string ("12", "3.5"); undefined for anything else. */
export function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value.trim());
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/** What a numeric field holds: a count (stored as BIGINT) or an amount (DOUBLE). */
export type NumberKind = 'count' | 'amount';

/**
 * A number from a JSON number or numeric string, or why it cannot be stored: not a number ("NaN", "abc"), beyond a float
 * (1e400), or for a count not a whole number held exactly (12.5, 1e20 — BIGINT and JavaScript agree up to 2^53-1).
 */
export function readNumber(value: unknown, kind: NumberKind): { value: number } | { problem: string } {
  // The common case first, with nothing built for it: a finite JSON number of its kind.
  if (typeof value === 'number' && (kind === 'amount' ? Number.isFinite(value) : Number.isSafeInteger(value)))
    return { value };
  if (value === undefined) return { problem: 'missing' };
  const shown = JSON.stringify(value) ?? String(value);
  if (
    typeof value === 'string' &&
    /^\s*[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?\s*$/i.test(value) &&
    !Number.isFinite(Number(value))
  ) {
    return { problem: `${shown} overflows a 64-bit float` };
  }
  // JSON.parse turns 1e400 into Infinity, which JSON.stringify would show as null.
  if (typeof value === 'number' && !Number.isNaN(value) && !Number.isFinite(value))
    return { problem: `a number beyond a 64-bit float (${value > 0 ? '' : '-'}1e309 or more) overflows` };
  const n = toNumber(value);
  if (n === undefined) return { problem: `${shown} is not a number` };
  if (kind === 'count' && !Number.isInteger(n))
    return { problem: `${shown} is not a whole number, as a count must be` };
  if (kind === 'count' && !Number.isSafeInteger(n)) {
    return {
      problem: `${shown} is past the largest count stored exactly (${Number.MAX_SAFE_INTEGER}); the server's value overflows`,
    };
  }
  return { value: n };
}

/** Throws a FatalError (the caller's mistake, caught before any request) unless `value` is an integer in [min, max]. */
export function checkIntegerParam(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new FatalError(
      `Parameter ${name} must be a whole number from ${min} to ${max}, got ${String(value)}; split the range into smaller requests.`,
    );
  }
}

/** Throws a FatalError unless `value` is a non-empty string. */
export function checkStringParam(name: string, value: unknown): void {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new FatalError(`Parameter ${name} must be a non-empty string, got ${JSON.stringify(value)}.`);
  }
}

/**
 * An empty record for keys an answer chose (ids, field names): an object without a prototype, which V8 keeps as a hash
 * table from the start. Filled with those keys, an ordinary object goes through a new hidden shape for each of them
 * (every Canvas has ids of its own), and reading the fields of an entry that way was the largest cost of reading it.
 * No key can be mistaken for an inherited property either.
 */
export function idKeyed<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}
