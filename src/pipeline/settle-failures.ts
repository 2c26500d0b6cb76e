// Settling a run's failures: what failed is named per series (stream, series, id, error, whether retrying can help),
// recorded for `status` in `_etl_series_failures` and, per stream, in `_etl_stream_outcomes`. Nothing is undone: what
// the failing series fetched completely stays committed, and their watermarks say where the next run starts.
import { SeriesFailureStore } from '../load/series-failure-store.js';
import { StreamOutcomeStore } from '../load/stream-outcomes.js';
import type { Warehouse } from '../load/warehouse.js';
import type { StreamName } from '../streams/registry.js';
import type { SeriesFailure, StreamFailure } from './stream-failure.js';
import { streamFailures } from './stream-failure.js';

export interface SettledFailures {
  series: SeriesFailure[];
  streams: StreamFailure[];
}

/** The failures of the run, each series once (the first reason counts), in the order they were met. */
export function settleFailures(found: readonly SeriesFailure[]): SettledFailures {
  const seen = new Map<string, SeriesFailure>();
  for (const f of found) {
    const key = `${f.stream}\u0000${f.series}`;
    if (!seen.has(key)) seen.set(key, f);
  }
  const series = [...seen.values()];
  return { series, streams: streamFailures(series) };
}

/** Records the failures of the streams this run ran (other streams keep theirs) and every stream's outcome. */
export async function recordFailures(
  wh: Warehouse,
  runId: string,
  finishedAt: Date,
  streams: readonly StreamName[],
  failures: SettledFailures,
): Promise<void> {
  await new SeriesFailureStore(wh).replace(streams, runId, finishedAt, failures.series);
  await new StreamOutcomeStore(wh).record(
    runId,
    finishedAt,
    streams.map((stream) => {
      const failure = failures.streams.find((f) => f.stream === stream);
      return { stream, status: failure ? 'failed' : 'succeeded', error: failure?.error ?? null };
    }),
  );
}
