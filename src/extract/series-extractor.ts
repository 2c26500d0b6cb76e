// Fetches one planned window of a series and proves its coverage: every wanted unit must come back. Units a server left
// out at an EDGE of what it returned (it may read `length`/`ending_at` differently, or return fewer than `length` units)
// are asked again with follow-up windows that cover them under any of those readings; what is still absent is reported
// as missing (the cursor turns it into holes). Points outside the asked window are ignored and counted, never loaded
// into another unit; one answer holding the same unit twice with different values is asked again, and a conflict that
// persists leaves that unit missing — never a silent pick.
import type { ApiClient } from '../api/api-client.js';
import type { SeriesUnit } from '../api/types.js';
import { FatalApiError } from '../errors.js';
import { followUpWindows, missingUnitRuns, parseSeriesTimeMs, unitMs, writtenOffset, type Window } from './windows.js';

/** One point of a series: `time` exactly as the server wrote it, and its value (a number, or a roll-up object). */
export interface SeriesPoint<V = number> {
  time: string;
  value: V;
}

/** How to ask for one series. */
export interface SeriesSource<V = unknown> {
  /** Endpoint path and series key, for messages. */
  endpoint: string;
  seriesKey: string;
  unit: SeriesUnit;
  /** The largest window one request may ask for, in units. */
  maxUnits: number;
  fetch(client: ApiClient, window: Window): Promise<SeriesPoint<V>[]>;
}

export interface MissingUnit {
  startMs: number;
  reason: string;
}

export interface WindowResult<V = unknown> {
  /** Unit start (epoch ms) → value, for the wanted units of the window that came back unambiguous. */
  points: Map<number, V>;
  /** Requests sent for this window: 1, plus follow-ups, plus re-asks of answers with conflicting duplicates. */
  requests: number;
  followUps: number;
  /** Wanted units of the window that no request returned, or returned only with conflicting values. */
  missing: MissingUnit[];
  /** Points dropped because they lay outside the window asked for (under any reading of it). */
  outside: { count: number; example?: string };
  /**
   * The UTC offsets (`+02:00`) the daily points were written with, each once, in the order of the days written with them
   * (a daylight-saving change gives two); empty for hours and bare dates.
   */
  offsets: string[];
}

/** Answers with conflicting duplicates are asked this many times in all before the unit is given up as missing. */
export const CONFLICT_ATTEMPTS = 3;

interface Answer<V> {
  /** Unit start → value, conflicts removed. */
  units: Map<number, V>;
  conflicts: Map<number, V[]>;
  firstMs: number;
  lastMs: number;
  outside: number;
  outsideExample?: string;
}

function same(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/**
 * One window of a series, with the follow-ups its answer calls for. `worthFollowing` says which wanted units missing at
 * an edge are worth asking again (a unit the object's activity says is quiet is not: it is no hole whatever comes back).
 */
export async function fetchSeriesWindow<V>(
  client: ApiClient,
  source: SeriesSource<V>,
  window: Window,
  isWanted: (unitStartMs: number) => boolean,
  worthFollowing: (unitStartMs: number) => boolean = isWanted,
): Promise<WindowResult<V>> {
  const size = unitMs(source.unit);
  const points = new Map<number, V>();
  const conflicted = new Map<number, V[]>();
  // Units of the window some answer covered (wanted or not, conflicting or not): what follow-ups need not ask again.
  const seen = new Set<number>();
  let requests = 0;
  let followUps = 0;
  const outside = { count: 0 } as { count: number; example?: string };
  // Offset → the earliest day written with it.
  const offsets = new Map<string, number>();

  // One answer read into units. A server may align the window one unit either way (and a follow-up asks one more), so
  // only points beyond two units before or one unit after the asked window are "outside".
  const read = async (asked: Window): Promise<Answer<V>> => {
    const batch = await source.fetch(client, asked);
    requests++;
    const lowMs = asked.start.toMillis() - 2 * size;
    const highMs = asked.end.toMillis() + size;
    const answer: Answer<V> = {
      units: new Map(),
      conflicts: new Map(),
      firstMs: Infinity,
      lastMs: -Infinity,
      outside: 0,
    };
    for (const point of batch) {
      const ms = parseSeriesTimeMs(point.time, source.unit);
      if (ms === undefined) {
        throw new FatalApiError(
          { method: 'GET', endpoint: source.endpoint, params: { ending_at: asked.endingAt, length: asked.length } },
          `the response has a time value that is not ISO 8601: ${JSON.stringify(point.time)} (series ${source.seriesKey})`,
        );
      }
      if (source.unit === 'day') {
        const offset = writtenOffset(point.time);
        if (offset !== undefined && !(ms >= (offsets.get(offset) ?? Infinity))) offsets.set(offset, ms);
      }
      if (ms < lowMs || ms >= highMs) {
        answer.outside++;
        answer.outsideExample ??= point.time;
        continue;
      }
      answer.firstMs = Math.min(answer.firstMs, ms);
      answer.lastMs = Math.max(answer.lastMs, ms);
      const conflict = answer.conflicts.get(ms);
      if (conflict) {
        if (!conflict.some((v) => same(v, point.value))) conflict.push(point.value);
        continue;
      }
      if (!answer.units.has(ms)) {
        answer.units.set(ms, point.value);
      } else if (!same(answer.units.get(ms), point.value)) {
        answer.conflicts.set(ms, [answer.units.get(ms)!, point.value]);
        answer.units.delete(ms);
      }
    }
    return answer;
  };

  // Ask until an answer has no conflicting duplicates, at most CONFLICT_ATTEMPTS times; keep the last answer's conflicts.
  const ask = async (asked: Window): Promise<Answer<V>> => {
    let answer = await read(asked);
    for (let attempt = 1; answer.conflicts.size > 0 && attempt < CONFLICT_ATTEMPTS; attempt++)
      answer = await read(asked);
    outside.count += answer.outside;
    outside.example ??= answer.outsideExample;
    return answer;
  };

  const take = (answer: Answer<V>, onlyNew: boolean): void => {
    for (const [ms, value] of answer.units) {
      if (ms < window.start.toMillis() || ms >= window.end.toMillis()) continue;
      seen.add(ms);
      if (!isWanted(ms)) continue;
      if (onlyNew && points.has(ms)) continue;
      points.set(ms, value);
      conflicted.delete(ms);
    }
    for (const [ms, values] of answer.conflicts) {
      seen.add(ms);
      if (!points.has(ms) && isWanted(ms)) conflicted.set(ms, values);
    }
  };

  const first = await ask(window);
  take(first, false);
  // Wanted units missing at an edge of what the answer covered (or all of them, when it returned nothing) may be an
  // alignment effect: follow them up. A unit missing strictly inside the answer's span was left out by the server.
  const wantedMissing = (): UnitRange[] =>
    missingUnitRuns(window, seen).filter((run) =>
      [...unitsOf(run.start.toMillis(), run.end.toMillis(), size)].some(worthFollowing),
    );
  if (source.maxUnits >= 3) {
    const edgeRuns = wantedMissing().filter(
      (run) => !(first.firstMs < run.start.toMillis() && run.end.toMillis() - size < first.lastMs),
    );
    for (const run of edgeRuns) {
      // followUpWindow's one extra unit covers both alignments; one more on the old side covers a server that returns
      // one unit fewer than `length` there (the spec calls `length` a maximum). Split so the total stays ≤ the maximum.
      for (const followUp of followUpWindows(run, source.maxUnits - 1)) {
        const asked: Window = { ...followUp, length: followUp.length + 1 };
        followUps++;
        take(await ask(asked), true);
      }
    }
  }

  const missing: MissingUnit[] = [];
  for (const ms of unitsOf(window.start.toMillis(), window.end.toMillis(), size)) {
    if (points.has(ms) || !isWanted(ms)) continue;
    const values = conflicted.get(ms);
    missing.push({
      startMs: ms,
      reason: values
        ? `${source.endpoint} answered ${new Date(ms).toISOString()} of ${source.seriesKey} with ${values.length} different values (${values.map((v) => JSON.stringify(v)).join(' vs ')}) in ${CONFLICT_ATTEMPTS} answers`
        : `${source.endpoint} did not return ${new Date(ms).toISOString()} of ${source.seriesKey}${followUps > 0 ? ' (follow-up asked)' : ''}`,
    });
  }
  return {
    points,
    requests,
    followUps,
    missing,
    outside,
    offsets: [...offsets].sort((a, b) => a[1] - b[1]).map(([offset]) => offset),
  };
}

type UnitRange = ReturnType<typeof missingUnitRuns>[number];

function* unitsOf(startMs: number, endMs: number, size: number): Generator<number> {
  for (let ms = startMs; ms < endMs; ms += size) yield ms;
}
