// Targeted faults in the answers of series endpoints: an answer that leaves out points (an outage `data: []`
// or one missing point), repeats a time with another value, or carries a point outside the asked window. Each fault is
// aimed at an endpoint, optionally a time and query values, for a number of answers, so a test states exactly which
// answer is bad and when the server is healthy again. Unlike `faultRate`, these answers are 200s with a valid body.
import type { EndpointSpec } from '../api/endpoints.js';
import { ENDPOINTS } from '../api/endpoints.js';
import { ConfigError } from '../errors.js';
import { DAY_MS, formatUnit, HOUR_MS } from './analytics/time-units.js';
import { hashUnit } from './random.js';

export const SERIES_FAULT_MODES = [
  'drop_all',
  'drop_point',
  'conflicting_duplicate',
  'outside_window',
  'misplaced_point',
] as const;
export type SeriesFaultMode = (typeof SERIES_FAULT_MODES)[number];

export interface SeriesFault {
  /** The series endpoint: its catalogue name (`sessionsDataSeries`) or its path (`/sessions/data_series`). */
  endpoint: string;
  /**
   * `drop_all`: the answer's points are all left out (`data: []`, an outage). `drop_point`: one point is left out.
   * `conflicting_duplicate`: one point is repeated right after itself with a different value (its first number + 1).
   * `outside_window`: a point one unit before the first point is added (a copy of the first point's values).
   * `misplaced_point`: one point is sent under a time a year (366 days) earlier, far outside the window asked: its unit
   * is missing and a point lies outside.
   */
  mode: SeriesFaultMode;
  /**
   * Only answers holding a point at this time are hit, and that point is the one dropped or repeated: a date
   * (`2024-06-01`) or an ISO 8601 instant (`2024-06-01T05:00:00Z`); compared as instants, so a date also names the
   * 00:00 hour. @default any answer with points; the point at index ⌊n/2⌋
   */
  atTime?: string;
  /** Only requests whose query holds these values; `null` means the parameter is absent (e.g. `{ app_id: null }` for all apps). @default any request */
  query?: Record<string, string | null>;
  /** How many answers are hit; later ones are healthy. @default every matching answer */
  times?: number;
  /**
   * Probability in (0, 1] that a matching answer is hit, decided by (seed, request number) so a run replays exactly:
   * random outages for property tests. An answer spared does not use up `times`. @default 1
   */
  rate?: number;
}

/** One answer a series fault altered, for tests to compare what a client stored with what it was sent. */
export interface SeriesFaultRecord {
  /** Request number (from 1, every request since start, as for `faultRate`). */
  sequence: number;
  /** Catalogue name of the endpoint. */
  endpoint: string;
  /** The request's query string. */
  query: string;
  mode: SeriesFaultMode;
  /** The times of the points dropped (`drop_all`, `drop_point`), repeated (`conflicting_duplicate`), added (`outside_window`) or moved (`misplaced_point`). */
  times: string[];
}

interface Armed {
  fault: SeriesFault;
  endpointName: string;
  atMs: number | undefined;
  remaining: number;
  rate: number;
}

/** Epoch ms of a wire time or a fault's `atTime`: a bare date or a time without a zone is UTC. */
function timeMs(text: string): number {
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return Date.parse(`${text}T00:00:00Z`);
  return Date.parse(/(Z|[+-]\d{2}:?\d{2})$/i.test(text) ? text : `${text}Z`);
}

/** The points of a series body: `data` itself, or `data.stats` (Canvas data series); undefined for any other body. */
function seriesPoints(body: unknown): Record<string, unknown>[] | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const data = (body as { data?: unknown }).data;
  if (Array.isArray(data)) return data as Record<string, unknown>[];
  const stats = typeof data === 'object' && data !== null ? (data as { stats?: unknown }).stats : undefined;
  return Array.isArray(stats) ? (stats as Record<string, unknown>[]) : undefined;
}

/** A copy of a point whose first number (depth first, `time` aside) is one more: same time, another value (every series point has a number). */
function conflicting(point: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(point);
  const bump = (o: Record<string, unknown>): boolean => {
    for (const [k, v] of Object.entries(o)) {
      if (k === 'time') continue;
      if (typeof v === 'number') {
        o[k] = v + 1;
        return true;
      }
      if (typeof v === 'object' && v !== null && bump(v as Record<string, unknown>)) return true;
    }
    return false;
  };
  bump(copy);
  return copy;
}

/** The wire time one unit before `time`, in the same form (a date steps back a day, an instant an hour). */
/** The same wire form, 366 days earlier. */
function yearBefore(time: string): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(time)) return formatUnit(timeMs(time) - 366 * DAY_MS, 'day');
  return formatUnit(timeMs(time) - 366 * DAY_MS, 'hour');
}

function unitBefore(time: string): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(time)) return formatUnit(timeMs(time) - DAY_MS, 'day');
  return formatUnit(timeMs(time) - HOUR_MS, 'hour');
}

function endpointOf(name: string): EndpointSpec | undefined {
  const all = Object.values(ENDPOINTS) as EndpointSpec[];
  return all.find((e) => e.name === name) ?? all.find((e) => e.path === name);
}

const SERIES_PATH = /(_series|\/data_series)$/;

/** Check a fault and resolve its endpoint; every problem is a ConfigError naming `where` and the field. */
function arm(fault: SeriesFault, where: string): Armed {
  if (typeof fault !== 'object' || fault === null)
    throw new ConfigError(where, 'must be an object { endpoint, mode, atTime?, query?, times?, rate? }');
  const endpoint = typeof fault.endpoint === 'string' ? endpointOf(fault.endpoint) : undefined;
  const series = (Object.values(ENDPOINTS) as EndpointSpec[])
    .filter((e) => e.method === 'GET' && SERIES_PATH.test(e.path))
    .map((e) => e.name);
  if (!endpoint || !series.includes(endpoint.name)) {
    throw new ConfigError(
      `${where}.endpoint`,
      `${JSON.stringify(fault.endpoint)} is not a series endpoint; use one of ${series.join(', ')} (or its path)`,
    );
  }
  if (!SERIES_FAULT_MODES.includes(fault.mode))
    throw new ConfigError(
      `${where}.mode`,
      `${JSON.stringify(fault.mode)} is not a series fault mode; use one of ${SERIES_FAULT_MODES.join(', ')}`,
    );
  let atMs: number | undefined;
  if (fault.atTime !== undefined) {
    atMs = typeof fault.atTime === 'string' ? timeMs(fault.atTime) : Number.NaN;
    if (!Number.isFinite(atMs))
      throw new ConfigError(
        `${where}.atTime`,
        `${JSON.stringify(fault.atTime)} is not a date or ISO 8601 instant; write e.g. 2024-06-01 or 2024-06-01T05:00:00Z`,
      );
  }
  const times = fault.times ?? Number.POSITIVE_INFINITY;
  if (times !== Number.POSITIVE_INFINITY && (!Number.isInteger(times) || times < 1))
    throw new ConfigError(
      `${where}.times`,
      `must be an integer ≥ 1 (omit it for every answer), got ${String(fault.times)}`,
    );
  const rate = fault.rate ?? 1;
  if (typeof rate !== 'number' || !(rate > 0 && rate <= 1))
    throw new ConfigError(`${where}.rate`, `must be a probability in (0, 1], got ${String(fault.rate)}`);
  for (const [k, v] of Object.entries(fault.query ?? {})) {
    if (v !== null && typeof v !== 'string')
      throw new ConfigError(`${where}.query.${k}`, `must be a string, or null for "absent", got ${JSON.stringify(v)}`);
  }
  return {
    fault: { ...fault, ...(fault.query ? { query: { ...fault.query } } : {}) },
    endpointName: endpoint.name,
    atMs,
    remaining: times,
    rate,
  };
}

/** The armed series faults of one emulator; the server asks it to alter every successful answer. */
export class SeriesFaultInjector {
  readonly #armed: Armed[] = [];
  readonly #seed: number;
  /** Every answer altered so far, oldest first. */
  readonly applied: SeriesFaultRecord[] = [];

  constructor(seed: number, faults: readonly SeriesFault[] = []) {
    this.#seed = seed;
    if (!Array.isArray(faults))
      throw new ConfigError(
        'emulator option seriesFaults',
        'must be an array of { endpoint, mode, atTime?, query?, times?, rate? }',
      );
    faults.forEach((f, i) => this.add(f, `emulator option seriesFaults[${i}]`));
  }

  /** Arm one more fault (after those already armed; the first that matches an answer wins). */
  add(fault: SeriesFault, where = 'series fault'): void {
    this.#armed.push(arm(fault, where));
  }

  /** Disarm every fault. */
  clear(): void {
    this.#armed.length = 0;
  }

  /** Alter `body` in place when an armed fault matches; returns the mode applied. At most one fault per answer. */
  apply(sequence: number, endpoint: EndpointSpec, query: URLSearchParams, body: unknown): SeriesFaultMode | undefined {
    const points = seriesPoints(body);
    if (!points || points.length === 0) return undefined;
    for (const [index, armed] of this.#armed.entries()) {
      if (armed.remaining <= 0 || armed.endpointName !== endpoint.name) continue;
      const wanted = Object.entries(armed.fault.query ?? {});
      if (!wanted.every(([k, v]) => (v === null ? !query.has(k) : query.get(k) === v))) continue;
      const at =
        armed.atMs === undefined
          ? Math.floor(points.length / 2)
          : points.findIndex((p) => typeof p.time === 'string' && timeMs(p.time) === armed.atMs);
      if (at < 0) continue;
      if (armed.rate < 1 && hashUnit(this.#seed, 'series-fault', sequence, index) >= armed.rate) continue;
      armed.remaining -= 1;
      const mode = armed.fault.mode;
      let times: string[];
      switch (mode) {
        case 'drop_all':
          times = points.map((p) => String(p.time));
          points.length = 0;
          break;
        case 'drop_point':
          times = [String(points[at]!.time)];
          points.splice(at, 1);
          break;
        case 'conflicting_duplicate':
          times = [String(points[at]!.time)];
          points.splice(at + 1, 0, conflicting(points[at]!));
          break;
        case 'misplaced_point':
          times = [String(points[at]!.time)];
          points[at] = { ...points[at]!, time: yearBefore(String(points[at]!.time)) };
          break;
        case 'outside_window': {
          const first = points[0]!;
          times = [unitBefore(String(first.time))];
          points.unshift({ ...structuredClone(first), time: times[0] });
          break;
        }
      }
      this.applied.push({ sequence, endpoint: endpoint.name, query: query.toString(), mode, times });
      return mode;
    }
    return undefined;
  }
}

/**
 * The CLI form of a fault, `--series-fault endpoint=sessionsDataSeries,mode=drop_all,at=2024-06-01,times=1,app_id=app_1`:
 * `endpoint` and `mode` required, `at`, `times` and `rate` optional, any other key a query value to match.
 */
export function parseSeriesFaultFlag(text: string): SeriesFault {
  const fields = new Map<string, string>();
  for (const part of text.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0)
      throw new ConfigError(
        '--series-fault',
        `"${text}": each part must be key=value, e.g. endpoint=sessionsDataSeries,mode=drop_all,times=1`,
      );
    fields.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  const { endpoint, mode, at, times, rate } = Object.fromEntries(fields) as Record<string, string | undefined>;
  if (endpoint === undefined || mode === undefined)
    throw new ConfigError(
      '--series-fault',
      `"${text}" needs endpoint= and mode= (modes: ${SERIES_FAULT_MODES.join(', ')})`,
    );
  const query = Object.fromEntries(
    [...fields].filter(([k]) => !['endpoint', 'mode', 'at', 'times', 'rate'].includes(k)),
  );
  const fault: SeriesFault = { endpoint, mode: mode as SeriesFaultMode };
  if (at !== undefined) fault.atTime = at;
  if (times !== undefined) {
    if (!/^\d+$/.test(times))
      throw new ConfigError('--series-fault', `"${text}": times must be an integer ≥ 1, got "${times}"`);
    fault.times = Number(times);
  }
  if (rate !== undefined) fault.rate = rate.trim() === '' ? Number.NaN : Number(rate);
  if (Object.keys(query).length > 0) fault.query = query;
  arm(fault, '--series-fault');
  return fault;
}
