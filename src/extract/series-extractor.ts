// Fetches one planned window of a windowed series (purchases, revenue, sessions, segment size) and proves its coverage:
// every planned unit must come back. Units a server left out at a window's EDGE (it may read `length`/`ending_at`
// differently, or return fewer than `length` units) are fetched again with follow-up windows that cover them under any
// of those readings. A unit missing INSIDE the span one response covered cannot be an alignment effect (alignment only
// moves the ends): the server omitted it, so no request is spent on it. What is still absent is absent upstream.
import type { DateTime } from 'luxon';
import { FatalApiError } from '../errors.js';
import type { ApiClient } from '../api/api-client.js';
import type { SeriesPoint } from '../api/analytics-endpoints.js';
import { MAX_SERIES_LENGTH } from '../api/endpoints.js';
import type { SeriesUnit } from '../api/types.js';
import { addUnits, followUpWindows, missingRuns, parseSeriesTime, type Window } from './windows.js';

/** How to ask for one series. */
export interface SeriesSource {
  /** Endpoint path, for messages. */
  endpoint: string;
  unit: SeriesUnit;
  fetch(client: ApiClient, window: Window): Promise<SeriesPoint[]>;
}

export interface WindowResult {
  /** Unit start (epoch ms) → value, only for units inside the planned window. */
  points: Map<number, number>;
  /** Requests sent for this window (1 + follow-ups). */
  requests: number;
  /** Planned units at a window edge that no request returned, follow-ups included (treated as absent upstream). */
  absentUnits: number;
  /**
   * Planned units a response skipped while returning units before AND after them (some servers leave zero-valued
   * points out). They are not re-requested and not stored: nothing was returned for them.
   */
  omittedUnits: number;
}

export async function fetchSeriesWindow(client: ApiClient, source: SeriesSource, window: Window): Promise<WindowResult> {
  const points = new Map<number, number>();
  const startMs = window.start.toMillis();
  const endMs = window.end.toMillis();
  // The first and last unit each response returned (inside the window or not): a unit strictly between them was omitted.
  const spans: { firstMs: number; lastMs: number }[] = [];
  const collect = (batch: SeriesPoint[], asked: Window): DateTime[] => {
    const seen: DateTime[] = [];
    let firstMs = Infinity;
    let lastMs = -Infinity;
    for (const point of batch) {
      const unitStart = parseSeriesTime(point.time, source.unit);
      if (!unitStart) {
        throw new FatalApiError(
          { method: 'GET', endpoint: source.endpoint, params: { ending_at: asked.endingAt, length: asked.length } },
          `the response has a time value that is not ISO 8601: ${JSON.stringify(point.time)}`,
        );
      }
      const ms = unitStart.toMillis();
      firstMs = Math.min(firstMs, ms);
      lastMs = Math.max(lastMs, ms);
      if (ms < startMs || ms >= endMs) continue;
      points.set(ms, point.value);
      seen.push(unitStart);
    }
    if (batch.length > 0) spans.push({ firstMs, lastMs });
    return seen;
  };
  const omitted = (ms: number): boolean => spans.some((s) => s.firstMs < ms && ms < s.lastMs);

  const returned = collect(await source.fetch(client, window), window);
  let requests = 1;
  const edgeRuns = missingRuns(window, returned).filter((run) => !omitted(run.start.toMillis()));
  for (const run of edgeRuns) {
    // followUpWindow's one extra unit covers both alignments; one more on the old side covers a server that returns
    // one unit fewer than `length` there (the spec calls `length` a maximum). Split so the total stays ≤ the maximum.
    for (const followUp of followUpWindows(run, MAX_SERIES_LENGTH - 1)) {
      const asked: Window = { ...followUp, length: followUp.length + 1 };
      collect(await source.fetch(client, asked), asked);
      requests++;
    }
  }
  let absentUnits = 0;
  let omittedUnits = 0;
  for (let t = window.start; t < window.end; t = addUnits(t, 1, source.unit)) {
    const ms = t.toMillis();
    if (points.has(ms)) continue;
    if (omitted(ms)) omittedUnits++;
    else absentUnits++;
  }
  return { points, requests, absentUnits, omittedUnits };
}
