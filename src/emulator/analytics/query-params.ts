// Validation of the read routes' query parameters (spec section 4). A bad parameter throws ParamError, which the read
// route wrapper turns into a 400 `{ message }` naming the parameter, the value received and what is accepted.
import { DateTime } from 'luxon';
import type { SeriesUnit } from '../../api/types.js';
import type { EmulatorRequest, EmulatorResponse, Route, RouteContext } from '../route.js';
import { badRequest } from '../route.js';
import type { EndpointSpec } from '../../api/endpoints.js';
import { DAY_MS, unitMs, unitStart } from './time-units.js';

/** A query parameter the route cannot accept; its message is the 400 body's `message`. */
export class ParamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ParamError';
  }
}

/** A read route whose handler may throw ParamError for a bad parameter. */
export function readRoute(
  endpoint: EndpointSpec,
  handle: (req: EmulatorRequest, ctx: RouteContext) => EmulatorResponse,
): Route {
  return {
    endpoint,
    handle(req, ctx) {
      try {
        return handle(req, ctx);
      } catch (err) {
        if (err instanceof ParamError) return badRequest(err.message);
        throw err;
      }
    },
  };
}

function show(value: string): string {
  return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
}

/** `length`: required integer in [1, max]. */
export function lengthParam(query: URLSearchParams, max: number, name = 'length'): number {
  const raw = query.get(name);
  if (raw === null || raw === '') throw new ParamError(`${name} is required: an integer from 1 to ${max}`);
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max)
    throw new ParamError(`${name} must be an integer from 1 to ${max}, got ${show(raw)}`);
  return Number(raw);
}

/** `unit`: one of the allowed units; default day. */
export function unitParam(query: URLSearchParams, allowed: readonly SeriesUnit[]): SeriesUnit {
  const raw = query.get('unit');
  if (raw === null) return 'day';
  const unit = allowed.find((u) => u === raw);
  if (!unit) throw new ParamError(`unit must be ${allowed.map((u) => `"${u}"`).join(' or ')}, got ${show(raw)}`);
  return unit;
}

/**
 * An ISO 8601 instant parameter (`ending_at`, `starting_at`, `last_edit.time[gt]`, `modified_after`); a date or a time
 * without a zone is UTC. A `+hh:mm` offset that arrived as a space (an unencoded `+` in the query string) is read as `+`.
 */
export function instantParam(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  const plain = plainUtcInstant(raw);
  if (plain !== undefined) return plain;
  // The platform's own examples write offsets with a one-digit hour (`2020-06-28T23:59:59-5:00`): padded to `-05:00`.
  const text = raw
    .replace(/ (\d{1,2}(:?\d{2})?)$/, '+$1')
    .replace(
      /(T[\d:.]+[+-])(\d)(:?\d{2})?$/,
      (_m, time: string, hour: string, rest: string | undefined) => `${time}0${hour}${rest ?? ''}`,
    );
  const dt = DateTime.fromISO(text, { zone: 'utc' });
  if (!dt.isValid)
    throw new ParamError(`${name} must be an ISO 8601 date-time such as 2024-03-01T00:00:00Z, got ${show(raw)}`);
  return dt.toMillis();
}

/**
 * Epoch ms of `YYYY-MM-DDTHH:MM:SSZ` from 1970 on, the form a client writes in nearly every request, read without a
 * luxon parse; undefined for any other text or an impossible date, which the full ISO 8601 reading then handles.
 */
function plainUtcInstant(raw: string): number | undefined {
  const m = PLAIN_UTC.exec(raw);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (year < 1970 || hour > 23 || minute > 59 || second > 59) return undefined;
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  const date = new Date(ms);
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day ? ms : undefined;
}

const PLAIN_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;

/** A boolean flag that must be the literal `true` or `false`; default false. */
export function booleanParam(query: URLSearchParams, name: string, message?: string): boolean {
  const raw = query.get(name);
  if (raw === null) return false;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new ParamError(message ?? `${name} must be true or false, got ${show(raw)}`);
}

/** An optional id that must name an entity of the workspace. */
export function idParam<T>(
  query: URLSearchParams,
  name: string,
  find: (id: string) => T | undefined,
  validIds: () => readonly string[],
  omitted: string,
): T | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  const found = find(raw);
  if (found === undefined) {
    // Only an unknown id pays for listing the catalogue; long ones (segments, products) are named in part.
    const valid = validIds();
    const named = valid.length > 12 ? `${valid.slice(0, 10).join(', ')}, … (${valid.length} in all)` : valid.join(', ');
    throw new ParamError(
      `${name} ${show(raw)} is not known to this workspace; use one of ${named}, or omit ${name} for ${omitted}`,
    );
  }
  return found;
}

/** Starts of the `length` units ending with the unit that contains `endingMs`, oldest first. */
export function unitStartsEndingAt(endingMs: number, length: number, unit: SeriesUnit): number[] {
  const last = unitStart(endingMs, unit);
  return Array.from({ length }, (_, i) => last - (length - 1 - i) * unitMs(unit));
}

/** Day starts from the day containing `startMs` to the day containing `endMs`, inclusive. */
export function daysBetween(startMs: number, endMs: number): number[] {
  const first = unitStart(startMs, 'day');
  const last = unitStart(endMs, 'day');
  const out: number[] = [];
  for (let d = first; d <= last; d += DAY_MS) out.push(d);
  return out;
}
