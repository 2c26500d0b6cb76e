// Reads the server's rate-limit advice: Retry-After and the X-RateLimit-* trio. Servers differ in spelling and units
// (header case, epoch seconds vs milliseconds vs a delta, empty values on 401), so every reader here is forgiving.

/** What a response said about its limit pool. Each field is absent when the server did not say (or said it empty). */
export interface RateLimitAdvice {
  limit?: number;
  remaining?: number;
  /** Epoch milliseconds at which the server's window resets. */
  resetAt?: number;
  /** The headers as the server wrote them (`X-RateLimit-Remaining: 0, X-RateLimit-Reset: 99999999999`), for messages. */
  said?: string;
}

/** Anything with a case-insensitive `get`, like the fetch `Headers`. */
export interface HeaderReader {
  get(name: string): string | null;
}

// Below this a reset value cannot be an epoch time (it would be 2001-09-09): it is a number of seconds from now.
const EPOCH_SECONDS_FLOOR = 1e9;
// Above this an epoch value is in milliseconds (epoch seconds reach 1e12 only in the year 33658).
const EPOCH_MS_FLOOR = 1e12;

function firstValue(headers: HeaderReader, name: string): string | undefined {
  const raw = headers.get(name);
  if (raw === null) return undefined;
  // Repeated headers arrive joined by ", "; the first one is as good as any and an empty one means "not said".
  const first = raw.split(',')[0]?.trim() ?? '';
  return first === '' ? undefined : first;
}

function parseNumber(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * Converts an `X-RateLimit-Reset` value to epoch milliseconds: epoch seconds, epoch milliseconds (obviously large values),
 * a small number of seconds from now, or an HTTP date.
 */
export function parseResetValue(value: string | undefined, now: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const n = parseNumber(value);
  if (n === undefined) {
    const date = Date.parse(value);
    return Number.isNaN(date) ? undefined : date;
  }
  if (n < 0) return undefined;
  if (n >= EPOCH_MS_FLOOR) return n;
  if (n >= EPOCH_SECONDS_FLOOR) return n * 1000;
  return now + n * 1000;
}

/** Reads `X-RateLimit-Limit`, `-Remaining` and `-Reset` in any header case, ignoring empty or non-numeric values. */
export function readRateLimitAdvice(headers: HeaderReader, now: number): RateLimitAdvice {
  const advice: RateLimitAdvice = {};
  const limit = parseNumber(firstValue(headers, 'x-ratelimit-limit'));
  if (limit !== undefined && limit >= 0) advice.limit = Math.floor(limit);
  const remaining = parseNumber(firstValue(headers, 'x-ratelimit-remaining'));
  if (remaining !== undefined && remaining >= 0) advice.remaining = Math.floor(remaining);
  const resetAt = parseResetValue(firstValue(headers, 'x-ratelimit-reset'), now);
  if (resetAt !== undefined) advice.resetAt = resetAt;
  // Quoted only when something usable was said: the quote explains a wait, and garbage alone causes none.
  const said =
    Object.keys(advice).length > 0
      ? quoteHeaders(headers, ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'])
      : undefined;
  if (said !== undefined) advice.said = said;
  return advice;
}

/** The named headers present, as `Name: value, Name: value` (values cut at 40 characters), or undefined when none is. */
export function quoteHeaders(headers: HeaderReader, names: readonly string[]): string | undefined {
  const parts: string[] = [];
  for (const name of names) {
    const value = headers.get(name);
    if (value !== null) parts.push(`${name}: ${value.length > 40 ? `${value.slice(0, 40)}…` : value}`);
  }
  return parts.length === 0 ? undefined : parts.join(', ');
}

/**
 * How long the server asked us to wait, in milliseconds: `Retry-After` (delay seconds or HTTP date) first, else the time
 * until `X-RateLimit-Reset`. Undefined when neither header says anything usable. Never negative.
 * @param includeReset whether `X-RateLimit-Reset` counts as advice (yes for a 429; no for a 5xx). @default true
 */
export function readRetryAfterMs(headers: HeaderReader, now: number, includeReset = true): number | undefined {
  const retryAfter = firstRetryAfter(headers);
  if (retryAfter !== undefined) {
    const seconds = parseNumber(retryAfter);
    if (seconds !== undefined) return Math.max(0, Math.ceil(seconds * 1000));
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  if (!includeReset) return undefined;
  const resetAt = parseResetValue(firstValue(headers, 'x-ratelimit-reset'), now);
  return resetAt === undefined ? undefined : Math.max(0, resetAt - now);
}

function firstRetryAfter(headers: HeaderReader): string | undefined {
  // An HTTP date contains a comma ("Wed, 21 Oct 2015 07:28:00 GMT"), so it cannot be split like the other headers.
  const raw = headers.get('retry-after')?.trim();
  return raw ? raw : undefined;
}
