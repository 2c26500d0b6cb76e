// Exact request windows for the analytics series: which units a run must (re)load, how to cut them into the fewest
// `length`/`ending_at` requests, and how to re-request units a response left out. Pure, UTC, closed start / open end.
import { DateTime } from 'luxon';
import type { Unit } from './series-time.js';
import { addUnits, ceilUnit, floorUnit, isoSeconds, unitsBetween } from './series-time.js';

// windows.ts is the one door to series time math: extractors import everything from here.
export { addUnits, ceilUnit, floorUnit, isAligned, isoSeconds, parseSeriesTime, parseUtcInstant, unitMs, unitsBetween } from './series-time.js';
export type { Unit } from './series-time.js';

/** A run of whole UTC units, [start, end): both ends on unit boundaries, start before end. */
export interface UnitRange {
  readonly unit: Unit;
  readonly start: DateTime;
  readonly end: DateTime;
}

/** One series request: the units it is meant to fetch plus the two parameters that ask for them. */
export interface Window extends UnitRange {
  /** The `length` query parameter. Equals the units in [start, end) except for follow-ups (one more, see followUpWindow). */
  readonly length: number;
  /** The `ending_at` query parameter, `YYYY-MM-DDTHH:mm:ssZ`. */
  readonly endingAt: string;
}

export interface PlanRangeInput {
  unit: Unit;
  /** End of the last complete unit already loaded (exclusive); absent on a first run or a full refresh. */
  watermark?: DateTime;
  /** Earliest instant the pipeline covers (its start_date, or --from). */
  from: DateTime;
  /** The run's frozen upper bound (--until, @default the run's start time). */
  until: DateTime;
  /** Complete days re-fetched before the watermark, to pick up restatements. Whole days even for hourly series. */
  lookbackDays: number;
}

/**
 * The units a run loads for one series, or undefined when there is nothing to load.
 *
 * - start: with a watermark, `floor(watermark) − lookbackDays days` (never before `floor(from)`); without, `floor(from)`.
 * - end: `ceil(until)` — the unit containing `until` is loaded although it is still in progress (it will be re-loaded
 *   next run because the watermark stops before it); when `until` is exactly a boundary the range ends there.
 */
export function planRange(input: PlanRangeInput): UnitRange | undefined {
  const { unit, watermark, from, until, lookbackDays } = input;
  if (!Number.isInteger(lookbackDays) || lookbackDays < 0) {
    throw new RangeError(`planRange: lookbackDays must be a whole number of days ≥ 0, got ${lookbackDays}`);
  }
  const floorFrom = floorUnit(from, unit);
  let start = floorFrom;
  if (watermark !== undefined) {
    // Days are whole multiples of hours, so subtracting days from an aligned instant keeps it aligned for both units.
    const rewound = addUnits(floorUnit(watermark, unit), -lookbackDays, 'day');
    start = rewound.toMillis() > floorFrom.toMillis() ? rewound : floorFrom;
  }
  const end = ceilUnit(until, unit);
  if (end.toMillis() <= start.toMillis()) return undefined;
  return { unit, start, end };
}

/** End of the last COMPLETE unit at `until` (= floor(until)): the furthest a watermark may advance. */
export function completeEnd(until: DateTime, unit: Unit): DateTime {
  return floorUnit(until, unit);
}

/**
 * The watermark after loading `range` successfully at `until`: the end of the loaded complete units, never past the
 * unit still in progress at `until`, and never moving backwards (a backfill with an earlier --until keeps the old one).
 */
export function advanceWatermark(previous: DateTime | undefined, range: UnitRange, until: DateTime): DateTime {
  const complete = completeEnd(until, range.unit).toMillis();
  const reached = Math.max(range.start.toMillis(), Math.min(range.end.toMillis(), complete));
  const best = previous === undefined ? reached : Math.max(previous.toMillis(), reached);
  return DateTime.fromMillis(best, { zone: 'utc' });
}

/** ceil(units / maxUnits): the fewest requests that can fetch the range when one request returns at most maxUnits. */
export function minimumRequests(range: UnitRange, maxUnits: number): number {
  assertMaxUnits(maxUnits);
  return Math.ceil(unitsBetween(range.start, range.end, range.unit) / maxUnits);
}

/**
 * Cut a range into the minimum number of windows, contiguous and in chronological order, each at most `maxUnits`.
 * Windows are filled from the most recent end backwards, so only the OLDEST window may be short: the recent units,
 * the ones re-loaded every night, always travel in full requests. `endingAt` is the last second of the window's last
 * unit (`…T23:59:59Z` for days, `…T13:59:59Z` for hours), as the vendor's own examples write it.
 */
export function splitWindows(range: UnitRange, maxUnits: number): Window[] {
  const total = unitsBetween(range.start, range.end, range.unit);
  assertMaxUnits(maxUnits);
  const windows: Window[] = [];
  for (let endOffset = total; endOffset > 0; endOffset -= maxUnits) {
    const length = Math.min(maxUnits, endOffset);
    const end = addUnits(range.start, endOffset, range.unit);
    const start = addUnits(end, -length, range.unit);
    windows.push({ unit: range.unit, start, end, length, endingAt: isoSeconds(end.minus(1000)) });
  }
  return windows.reverse();
}

function assertMaxUnits(maxUnits: number): void {
  if (!Number.isInteger(maxUnits) || maxUnits < 1) {
    throw new RangeError(`maxUnits must be a whole number ≥ 1 (the endpoint's largest length), got ${maxUnits}`);
  }
}

/**
 * The contiguous runs of the window's units that a response did not contain. `returned` are the parsed point times
 * (see parseSeriesTime); points outside the window are ignored here (the caller decides whether they are an error).
 */
export function missingRuns(window: UnitRange, returned: readonly DateTime[]): UnitRange[] {
  const seen = new Set(returned.map((t) => floorUnit(t, window.unit).toMillis()));
  const total = unitsBetween(window.start, window.end, window.unit);
  const runs: UnitRange[] = [];
  let runStart: DateTime | undefined;
  for (let i = 0; i <= total; i += 1) {
    const t = addUnits(window.start, i, window.unit);
    const missing = i < total && !seen.has(t.toMillis());
    if (missing && runStart === undefined) runStart = t;
    if (!missing && runStart !== undefined) {
      runs.push({ unit: window.unit, start: runStart, end: t });
      runStart = undefined;
    }
  }
  return runs;
}

/**
 * The request that re-fetches a missing run whichever way the server reads `length` / `ending_at`:
 * `ending_at` is the exact boundary at the end of the run and `length` is one more than the run, so
 * - (S1) a server whose series ends with the unit CONTAINING ending_at returns [run.start, run.end + 1 unit);
 * - (S2) a server that returns only WHOLE units before ending_at returns [run.start − 1 unit, run.end).
 * Both contain the run; the caller keeps only the points inside [start, end). `length` may therefore exceed the run's
 * unit count by one — use followUpWindows to stay within an endpoint's maximum.
 */
export function followUpWindow(run: UnitRange): Window {
  return {
    unit: run.unit,
    start: run.start,
    end: run.end,
    length: unitsBetween(run.start, run.end, run.unit) + 1,
    endingAt: isoSeconds(run.end),
  };
}

/** Follow-ups for a run of any size, each with `length` ≤ maxUnits (so each covers at most maxUnits − 1 units). */
export function followUpWindows(run: UnitRange, maxUnits: number): Window[] {
  if (!Number.isInteger(maxUnits) || maxUnits < 2) {
    throw new RangeError(`followUpWindows: maxUnits must be a whole number ≥ 2 (a follow-up asks for one extra unit), got ${maxUnits}`);
  }
  return splitWindows(run, maxUnits - 1).map((w) => followUpWindow(w));
}

/** One Canvas data-summary request: a single UTC day. */
export interface CanvasDayWindow {
  /** Start of the UTC day. */
  readonly day: DateTime;
  /** `YYYY-MM-DDT00:00:00Z` */
  readonly startingAt: string;
  /** `YYYY-MM-DDT23:59:59Z` */
  readonly endingAt: string;
}

/**
 * Every UTC day touched by the range, oldest first: Canvas summaries are roll-ups, so one request per day is the only
 * way to get per-day figures (a multi-day request would sum them).
 */
export function canvasDayWindows(range: UnitRange): CanvasDayWindow[] {
  const first = floorUnit(range.start, 'day');
  const days = unitsBetween(first, ceilUnit(range.end, 'day'), 'day');
  const out: CanvasDayWindow[] = [];
  for (let i = 0; i < days; i += 1) {
    const day = addUnits(first, i, 'day');
    out.push({ day, startingAt: isoSeconds(day), endingAt: isoSeconds(addUnits(day, 1, 'day').minus(1000)) });
  }
  return out;
}
