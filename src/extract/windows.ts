// Exact request windows for the analytics series: how to cut a range of units into the fewest `length`/`ending_at`
// requests, and how to re-request units a response left out. Pure, UTC, closed start / open end. Which units a run
// loads, and how far its watermark moves, is the incremental cursor's (incremental-cursor.ts).
import type { Unit } from '../time/utc-time.js';
import type { DateTime } from 'luxon';
import { addUnits, isoSeconds, unitMs, unitsBetween, utcAt } from '../time/utc-time.js';

// windows.ts is the one door to series time math for extractors.
export {
  addUnits,
  ceilUnit,
  floorUnit,
  isAligned,
  isoSeconds,
  parseSeriesTime,
  parseSeriesTimeMs,
  parseUtcInstant,
  unitMs,
  unitsBetween,
  writtenOffset,
} from '../time/utc-time.js';
export type { Unit } from '../time/utc-time.js';

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
  const size = unitMs(window.unit);
  return missingUnitRuns(window, new Set(returned.map((t) => Math.floor(t.toMillis() / size) * size)));
}

/**
 * missingRuns of the units whose starts (epoch milliseconds) are in `seen`: a DateTime is made only at the edge of a run,
 * not for each unit of every window.
 */
export function missingUnitRuns(window: UnitRange, seen: ReadonlySet<number>): UnitRange[] {
  const total = unitsBetween(window.start, window.end, window.unit);
  const size = unitMs(window.unit);
  const startMs = window.start.toMillis();
  const runs: UnitRange[] = [];
  let runStart: number | undefined;
  for (let i = 0; i <= total; i += 1) {
    const ms = startMs + i * size;
    const missing = i < total && !seen.has(ms);
    if (missing && runStart === undefined) runStart = ms;
    if (!missing && runStart !== undefined) {
      runs.push({ unit: window.unit, start: utcAt(runStart), end: utcAt(ms) });
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
    throw new RangeError(
      `followUpWindows: maxUnits must be a whole number ≥ 2 (a follow-up asks for one extra unit), got ${maxUnits}`,
    );
  }
  return splitWindows(run, maxUnits - 1).map((w) => followUpWindow(w));
}
