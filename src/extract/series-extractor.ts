// Fetches one planned window of a windowed series (purchases, revenue, sessions, segment size) and proves its coverage:
// every planned unit must come back. Units a server left out (it may read `length`/`ending_at` differently) are fetched
// again with follow-up windows that cover them under either reading; what is still absent after that is absent upstream.
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
  /** Planned units that no request returned (treated as absent upstream). */
  absentUnits: number;
}

export async function fetchSeriesWindow(client: ApiClient, source: SeriesSource, window: Window): Promise<WindowResult> {
  const points = new Map<number, number>();
  const startMs = window.start.toMillis();
  const endMs = window.end.toMillis();
  const collect = (batch: SeriesPoint[], asked: Window): DateTime[] => {
    const seen: DateTime[] = [];
    for (const point of batch) {
      const unitStart = parseSeriesTime(point.time, source.unit);
      if (!unitStart) {
        throw new FatalApiError(
          { method: 'GET', endpoint: source.endpoint, params: { ending_at: asked.endingAt, length: asked.length } },
          `the response has a time value that is not ISO 8601: ${JSON.stringify(point.time)}`,
        );
      }
      const ms = unitStart.toMillis();
      if (ms < startMs || ms >= endMs) continue;
      points.set(ms, point.value);
      seen.push(unitStart);
    }
    return seen;
  };

  const returned = collect(await source.fetch(client, window), window);
  let requests = 1;
  const runs = missingRuns(window, returned);
  for (const run of runs) {
    for (const followUp of followUpWindows(run, MAX_SERIES_LENGTH)) {
      collect(await source.fetch(client, followUp), followUp);
      requests++;
    }
  }
  let absentUnits = 0;
  for (const run of runs) {
    for (let t = run.start; t < run.end; t = addUnits(t, 1, source.unit)) {
      if (!points.has(t.toMillis())) absentUnits++;
    }
  }
  return { points, requests, absentUnits };
}
