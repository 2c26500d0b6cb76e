// The incremental cursor of a series, in one place: its key, the range a run loads ((watermark − look-back, until], in
// whole UTC units, plus the days before its low watermark a backfill still owes), the fewest windows that cover them and
// the series' open holes, in the order the pipeline's backfill_order asks, the loaded range [low, high) as windows finish
// (one contiguous block, its high end capped at the last complete unit), and what becomes of each hole. Pure; UTC.
import { DateTime } from 'luxon';
import type { BackfillOrder } from '../config/pipeline-definition.js';
import type { Unit } from '../time/utc-time.js';
import { addUnits, ceilUnit, floorUnit, isoSeconds, unitMs } from '../time/utc-time.js';
import type { UnitRange, Window } from './windows.js';

/** Stable identity of a series in the state tables, e.g. `unit=day|app_id=*|product=gems_small`. */
export function seriesKey(unit: Unit, dims: Readonly<Record<string, string>>): string {
  return [`unit=${unit}`, ...Object.entries(dims).map(([k, v]) => `${k}=${v}`)].join('|');
}

export interface PlanRangeInput {
  unit: Unit;
  /** Start of the first unit not yet final (exclusive end of what is loaded); absent on a first run or a full refresh. */
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

/** A unit a server left out, as stored between runs. */
export interface StoredHole {
  /** Start of the unit (epoch ms, UTC). */
  startMs: number;
  /** Runs that asked for the unit and did not get it. */
  attempts: number;
  status: 'open' | 'confirmed_absent';
}

/** A run of units [startMs, endMs). */
export interface Span {
  startMs: number;
  endMs: number;
}

/**
 * The fewest windows of at most `maxUnits` units that cover every wanted span, chronological. Greedy from the most recent
 * unit backwards, each window starting at the oldest wanted unit it can still reach — optimal for covering points with
 * fixed-length intervals, and for one contiguous range the same cut as splitWindows: only the oldest window is short.
 */
export function coverWindows(unit: Unit, wanted: readonly Span[], maxUnits: number): Window[] {
  const size = unitMs(unit);
  return coverSpans(unit, wanted, maxUnits).map(({ startMs, endMs }) => {
    const start = DateTime.fromMillis(startMs, { zone: 'utc' });
    const end = DateTime.fromMillis(endMs, { zone: 'utc' });
    return { unit, start, end, length: (endMs - startMs) / size, endingAt: isoSeconds(end.minus(1000)) };
  });
}

/** coverWindows as bare spans: what a plan counts without building a request. */
function coverSpans(unit: Unit, wanted: readonly Span[], maxUnits: number): Span[] {
  if (!Number.isInteger(maxUnits) || maxUnits < 1)
    throw new RangeError(`maxUnits must be a whole number ≥ 1, got ${maxUnits}`);
  const size = unitMs(unit);
  const spans = mergeSpans(wanted);
  const windows: Span[] = [];
  let k = spans.length - 1;
  while (k >= 0) {
    const endMs = spans[k]!.endMs;
    const minStart = endMs - maxUnits * size;
    let startMs = endMs;
    while (k >= 0 && spans[k]!.endMs > minStart) {
      const span = spans[k]!;
      if (span.startMs >= minStart) {
        startMs = span.startMs;
        k--;
      } else {
        startMs = minStart;
        spans[k] = { startMs: span.startMs, endMs: minStart };
        break;
      }
    }
    windows.push({ startMs, endMs });
  }
  return windows.reverse();
}

function mergeSpans(spans: readonly Span[]): Span[] {
  const sorted = [...spans].filter((s) => s.endMs > s.startMs).sort((a, b) => a.startMs - b.startMs);
  const out: Span[] = [];
  for (const s of sorted) {
    const last = out.at(-1);
    if (last && s.startMs <= last.endMs) last.endMs = Math.max(last.endMs, s.endMs);
    else out.push({ ...s });
  }
  return out;
}

/** The units [startMs, endMs) in which the series' object was active; Infinity bounds are allowed. */
export interface ActiveSpan {
  startMs: number;
  endMs: number;
}

const DAY_MS = 86_400_000;

/**
 * The span of an object whose details give its first and last activity: from the day of the first (open when unknown)
 * to the end of the day of the last (open while it has none). Undefined when neither is known: a server may leave both
 * out, and then every missing unit stays a hole.
 */
export function activeSpan(first: Date | null, last: Date | null): ActiveSpan | undefined {
  if (first === null && last === null) return undefined;
  return {
    startMs: first === null ? -Infinity : Math.floor(first.getTime() / DAY_MS) * DAY_MS,
    endMs: last === null ? Infinity : Math.floor(last.getTime() / DAY_MS) * DAY_MS + DAY_MS,
  };
}

export interface CursorInput extends PlanRangeInput {
  /**
   * Start of the first unit loaded: with `watermark`, [lowWatermark, watermark) is loaded (or recorded holes), and the
   * units from `from` to it are owed. Absent with a watermark: loaded from `from` (state older than the low watermark).
   */
  lowWatermark?: DateTime;
  /** Which end of the series the windows start from: the newest (and the loaded range grows backwards) or the oldest. */
  order: BackfillOrder;
  /** The largest window one request may ask for, in units. */
  maxUnits: number;
  /** Holes stored for this series (open and confirmed absent). */
  holes: readonly StoredHole[];
  /** When its object was active, when known: units left out outside it are quiet, not holes. @default unknown */
  active?: ActiveSpan;
}

/**
 * What a run does for one series, kept small (numbers, no request objects): a plan holds one per series of the workspace,
 * and its windows are built only when the series' turn comes (cursorWindows).
 */
export interface CursorPlan {
  unit: Unit;
  /** The range of this run, or undefined when nothing is due (holes may still be). */
  readonly range: Readonly<Span> | undefined;
  /** The units before the low watermark down to `from` (a backfill newest first not done, or a widened start_date). */
  readonly owed: Readonly<Span> | undefined;
  /** What the windows cover: the range, the units owed and the open holes. */
  wanted: readonly Span[];
  /** The largest window one request may ask for, in units. */
  maxUnits: number;
  /** The fewest windows that cover the range and the open holes: the requests this series sends. */
  windowCount: number;
  /** End of the last complete unit before --until: the farthest the watermark may go, and the first unit no hole may name. */
  completeEndMs: number;
  /** The stored watermark (epoch ms). */
  watermarkMs: number | undefined;
  /** The stored low watermark (epoch ms); absent when nothing is stored, -Infinity for a series loaded from the start. */
  lowMs: number | undefined;
  /** The order the windows are sent in. */
  order: BackfillOrder;
  /** Stored holes by unit start; open ones outside the range are what extends the windows. */
  holes: ReadonlyMap<number, StoredHole>;
  /** When the series' object was active, when known. */
  active?: ActiveSpan;
}

// Most series have no stored hole: they share one empty map.
const NO_HOLES: ReadonlyMap<number, StoredHole> = new Map();
const NOTHING_WANTED: readonly Span[] = Object.freeze([]);

// Most series of a plan want the same range (every series of a first run, every current one of a nightly run), planned
// one after the other: they share its frozen span and wanted list, the last one planned: a plan holds tens of thousands of series,
// and a range of their own would cost each one bytes for nothing.
let lastRange: { span: Readonly<Span>; wanted: readonly Span[] } | undefined;

function sharedRange(startMs: number, endMs: number): { span: Readonly<Span>; wanted: readonly Span[] } {
  if (lastRange?.span.startMs !== startMs || lastRange.span.endMs !== endMs) {
    const span = Object.freeze({ startMs, endMs });
    lastRange = { span, wanted: Object.freeze([span]) };
  }
  return lastRange;
}

/** The units owed before a stored low watermark: from floor(`from`) to it, when `from` lies before it. */
function owedSpan(input: CursorInput): Span | undefined {
  if (input.watermark === undefined || input.lowWatermark === undefined) return undefined;
  const startMs = floorUnit(input.from, input.unit).toMillis();
  const endMs = floorUnit(input.lowWatermark, input.unit).toMillis();
  return startMs < endMs ? { startMs, endMs } : undefined;
}

export function planCursor(input: CursorInput): CursorPlan {
  const range = planRange(input);
  const size = unitMs(input.unit);
  const shared = range ? sharedRange(range.start.toMillis(), range.end.toMillis()) : undefined;
  const span = shared?.span;
  const owed = owedSpan(input);
  const open = input.holes.filter((h) => h.status === 'open');
  const wanted: readonly Span[] =
    open.length === 0 && owed === undefined
      ? (shared?.wanted ?? NOTHING_WANTED)
      : [
          ...(span ? [span] : []),
          ...(owed ? [owed] : []),
          ...open.map((h) => ({ startMs: h.startMs, endMs: h.startMs + size })),
        ];
  const watermarkMs = input.watermark?.toMillis();
  return {
    unit: input.unit,
    range: span,
    owed,
    wanted,
    maxUnits: input.maxUnits,
    windowCount: coverSpans(input.unit, wanted, input.maxUnits).length,
    completeEndMs: completeEnd(input.until, input.unit).toMillis(),
    watermarkMs,
    lowMs: watermarkMs === undefined ? undefined : (input.lowWatermark?.toMillis() ?? -Infinity),
    order: input.order,
    holes: input.holes.length === 0 ? NO_HOLES : new Map(input.holes.map((h) => [h.startMs, h])),
    ...(input.active ? { active: input.active } : {}),
  };
}

/** The windows of a cursor, chronological: built when the series is fetched, not held by the plan. */
export function cursorWindows(plan: Pick<CursorPlan, 'unit' | 'wanted' | 'maxUnits'>): Window[] {
  return coverWindows(plan.unit, plan.wanted, plan.maxUnits);
}

/** The windows of a cursor in the order they are sent: newest first or oldest first, as the plan's order says. */
export function orderedWindows(plan: Pick<CursorPlan, 'unit' | 'wanted' | 'maxUnits' | 'order'>): Window[] {
  const windows = cursorWindows(plan);
  return plan.order === 'newest_first' ? windows.reverse() : windows;
}

/** True when the unit at `ms` lies outside the object's known activity: nothing happened, so nothing is missing. */
export function isQuiet(plan: Pick<CursorPlan, 'active'>, ms: number): boolean {
  return plan.active !== undefined && (ms < plan.active.startMs || ms >= plan.active.endMs);
}

/** True when the plan wants the unit starting at `ms`: inside the range or the units owed, or an open hole. */
export function isWanted(plan: CursorPlan, ms: number): boolean {
  const inRange = plan.range !== undefined && ms >= plan.range.startMs && ms < plan.range.endMs;
  const owed = plan.owed !== undefined && ms >= plan.owed.startMs && ms < plan.owed.endMs;
  return inRange || owed || plan.holes.get(ms)?.status === 'open';
}

/** A change to a stored hole, to commit with the rows of the window that decided it. */
export interface HoleChange {
  startMs: number;
  /** 'filled' removes the hole. */
  status: 'open' | 'confirmed_absent' | 'filled';
  attempts: number;
  reason: string;
}

/**
 * The hole changes a finished window implies: wanted complete units it did not return become (or stay) holes — confirmed
 * absent once `holeRetries` later runs could not fill them — and stored holes it did return are filled. Units at or after
 * `completeEnd` are still in progress: never holes, the watermark keeps them due anyway. Units outside the object's
 * activity (isQuiet) are days when nothing happened: never holes, and a stored hole there closes.
 */
export function holeChanges(
  plan: CursorPlan,
  returned: ReadonlySet<number>,
  missing: readonly { startMs: number; reason: string }[],
  holeRetries: number,
): HoleChange[] {
  const changes: HoleChange[] = [];
  const complete = plan.completeEndMs;
  for (const { startMs, reason } of missing) {
    if (startMs >= complete) continue;
    const stored = plan.holes.get(startMs);
    // A unit outside the object's activity: a stored hole closes, and none is opened.
    if (isQuiet(plan, startMs)) {
      if (stored) changes.push({ startMs, status: 'filled', attempts: stored.attempts, reason: '' });
      continue;
    }
    if (stored?.status === 'confirmed_absent') continue;
    const attempts = (stored?.attempts ?? 0) + 1;
    changes.push({ startMs, status: attempts > holeRetries ? 'confirmed_absent' : 'open', attempts, reason });
  }
  for (const ms of returned) {
    const stored = plan.holes.get(ms);
    if (stored) changes.push({ startMs: ms, status: 'filled', attempts: stored.attempts, reason: '' });
  }
  return changes;
}

/** How far behind --until a source may lag before its missing recent units count as holes: two days, in any unit. */
export const LAG_MS = 2 * 86_400_000;

/**
 * Where a lagging source's missing tail starts: when the complete units a window left out run without a gap up to the
 * last complete unit, and span at most LAG_MS, the source has not caught up yet — those units are waited for (the
 * watermark stays before them, the next runs ask again) instead of opened as holes. Undefined when there is no such tail,
 * or when it is longer: then it is missing, not late.
 */
export function laggingStart(
  plan: Pick<CursorPlan, 'unit' | 'completeEndMs' | 'active'>,
  missing: readonly { startMs: number }[],
): number | undefined {
  const size = unitMs(plan.unit);
  const complete = plan.completeEndMs;
  const absent = new Set(missing.map((m) => m.startMs));
  let start = complete;
  while (absent.has(start - size) && !isQuiet(plan, start - size)) start -= size;
  return start < complete && complete - start <= LAG_MS ? start : undefined;
}

/** How far a series' loaded range may move: its new [low, high) and the rows loaded since the last move. */
export interface RangeAdvance {
  /** The high watermark: start of the first unit not yet final. */
  watermarkMs: number;
  /** The low watermark: start of the first unit loaded; undefined for a series loaded from the start (state without one). */
  lowMs: number | undefined;
  rows: number;
}

/**
 * Tracks the windows of one series through a run and decides how far its loaded range [low, high) may move: it is the
 * one contiguous block of loaded units that holds the stored range (or, on a first run, the window sent first: the
 * newest for `newest_first`, the oldest for `oldest_first`) and grows as the finished windows touching it allow. The
 * high end never passes the last complete unit before the run's frozen upper bound nor a held unit, and never moves
 * backwards; the low end never moves forwards. Units a window left out do not break the block: they are recorded as
 * holes with its rows and re-requested by later runs.
 */
export class CursorProgress {
  readonly #spans: Span[];
  readonly #done: boolean[];
  readonly #completeEndMs: number;
  /** The span the block must hold: the stored range, else the first window sent. */
  readonly #anchor: Span | undefined;
  readonly #anchorWindow: number;
  #committed: { lowMs: number; highMs: number } | undefined;
  #rowsSinceAdvance = 0;
  #holdMs = Infinity;

  constructor(
    plan: Pick<CursorPlan, 'completeEndMs' | 'watermarkMs' | 'lowMs' | 'order'>,
    windows: readonly UnitRange[],
  ) {
    this.#spans = windows
      .map((w) => ({ startMs: w.start.toMillis(), endMs: w.end.toMillis() }))
      .sort((a, b) => a.startMs - b.startMs);
    this.#done = this.#spans.map(() => false);
    this.#completeEndMs = plan.completeEndMs;
    if (plan.watermarkMs !== undefined) {
      this.#committed = { lowMs: plan.lowMs ?? -Infinity, highMs: plan.watermarkMs };
      this.#anchor = { startMs: this.#committed.lowMs, endMs: plan.watermarkMs };
      this.#anchorWindow = -1;
    } else {
      this.#anchorWindow = plan.order === 'newest_first' ? this.#spans.length - 1 : 0;
      this.#anchor = this.#spans[this.#anchorWindow];
    }
  }

  /** Mark the window starting at `startMs` as finished (loaded, its holes recorded) with `rows` rows. */
  finish(startMs: number, rows = 0): void {
    this.#rowsSinceAdvance += rows;
    const index = this.#spans.findIndex((s) => s.startMs === startMs);
    if (index < 0)
      throw new RangeError(`CursorProgress: no planned window starts at ${new Date(startMs).toISOString()}`);
    this.#done[index] = true;
  }

  /** Keep the watermark at or before `ms`: the first unit of a lagging source's tail, asked again next run. */
  hold(ms: number): void {
    this.#holdMs = Math.min(this.#holdMs, ms);
  }

  /** The block of loaded units holding the anchor: the anchor and every finished window touching it, transitively. */
  #block(): Span | undefined {
    if (this.#anchor === undefined || (this.#anchorWindow >= 0 && !this.#done[this.#anchorWindow])) return undefined;
    let { startMs, endMs } = this.#anchor;
    // Windows are sorted and never overlap: one pass down from the anchor and one up extends it over touching ones.
    for (let i = this.#spans.length - 1; i >= 0; i--) {
      const s = this.#spans[i]!;
      if (this.#done[i] && s.endMs >= startMs && s.startMs < startMs) startMs = s.startMs;
    }
    for (let i = 0; i < this.#spans.length; i++) {
      const s = this.#spans[i]!;
      if (this.#done[i] && s.startMs <= endMs && s.endMs > endMs) endMs = s.endMs;
    }
    return { startMs, endMs };
  }

  /**
   * The range this series may now record (with the rows loaded since the last one), or undefined when it does not move:
   * the block's start, and its end capped at the last complete unit and at a held unit.
   */
  advance(): RangeAdvance | undefined {
    const block = this.#block();
    if (block === undefined) return undefined;
    const old = this.#committed;
    const highMs = Math.max(Math.min(block.endMs, this.#completeEndMs, this.#holdMs), old?.highMs ?? -Infinity);
    const lowMs = Math.min(block.startMs, old?.lowMs ?? Infinity);
    // A first block whose every unit is still in progress or held holds nothing final: nothing to record yet.
    if (old === undefined && highMs <= lowMs) return undefined;
    if (old !== undefined && highMs <= old.highMs && lowMs >= old.lowMs) return undefined;
    this.#committed = { lowMs, highMs };
    return this.#take();
  }

  /**
   * Once every window is finished and the range did not move (a re-fetch of the look-back on a series already current):
   * the range as it stands, with the rows since, so that the run is recorded as the last to touch the series. Undefined
   * otherwise, and when nothing was ever committed.
   */
  settle(): RangeAdvance | undefined {
    if (!this.finished || this.#committed === undefined) return undefined;
    return this.#take();
  }

  #take(): RangeAdvance {
    const rows = this.#rowsSinceAdvance;
    this.#rowsSinceAdvance = 0;
    const { lowMs, highMs } = this.#committed!;
    return { watermarkMs: highMs, lowMs: Number.isFinite(lowMs) ? lowMs : undefined, rows };
  }

  get finished(): boolean {
    return this.#done.every(Boolean);
  }
}
