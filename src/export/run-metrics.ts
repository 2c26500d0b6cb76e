// `run --metrics-file`: the outcome of a run in the Prometheus text format, for node_exporter's textfile collector —
// last success time, duration, requests, rows and open holes per stream — written atomically (temp file + rename) so
// the collector never reads half a file. The last success of a stream not done by this run comes from the database
// (`_etl_stream_outcomes`) and the previous file, so a failed night keeps showing when the data was last fresh, also
// in a new metrics file.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { NoSnapshotError } from '../errors.js';
import { hasTable } from '../load/stored-tables.js';
import { SeriesStateStore } from '../load/series-state-store.js';
import { StreamOutcomeStore } from '../load/stream-outcomes.js';
import { withPublishedDatabase } from '../store/open-snapshot-store.js';
import type { StreamFinished } from '../pipeline/run-events.js';
import type { MetricFamily } from './prometheus-text.js';
import { formatPrometheusText, parsePrometheusText } from './prometheus-text.js';
import { writeFileAtomically } from '../process/write-file-atomically.js';

export interface RunMetricsInput {
  pipeline: string;
  /** The streams this run was asked to do. */
  streams: readonly string[];
  /** 'succeeded' (exit 0, or 3 with holes), 'incomplete' (exit 3: some series failed after every retry), 'failed' or 'interrupted'. */
  status: string;
  exitCode: number;
  finishedAt: Date;
  seconds: number;
  requests: number;
  /** Streams whose fetching finished in this run. */
  finished: readonly StreamFinished[];
  /** Open holes per stream (the `_etl_holes` table), 0 when absent. */
  openHoles: Readonly<Record<string, number>>;
  /** When a run last completed each stream, in Unix seconds, as the published database records it. @default {} */
  lastSuccess?: Readonly<Record<string, number>>;
  /** Streams that failed alone in a run that published the others: the others count as successes. @default [] */
  failedStreams?: readonly string[];
}

const LAST_SUCCESS = 'engage_etl_stream_last_success_timestamp_seconds';

/** The metric families of one run; `previousLastSuccess` carries the streams' earlier successes over. */
function runMetricFamilies(m: RunMetricsInput, previousLastSuccess: ReadonlyMap<string, number>): MetricFamily[] {
  const pipeline = { pipeline: m.pipeline };
  const succeeded = m.status === 'succeeded';
  const finishedAt = Math.round(m.finishedAt.getTime() / 1000);
  const lastSuccess = new Map(previousLastSuccess);
  for (const [stream, at] of Object.entries(m.lastSuccess ?? {}))
    lastSuccess.set(stream, Math.max(at, lastSuccess.get(stream) ?? 0));
  // A run whose only failures were streams failing alone published every other stream: those succeeded.
  const published = succeeded || (m.failedStreams ?? []).length > 0;
  if (published) for (const s of m.streams) if (!m.failedStreams?.includes(s)) lastSuccess.set(s, finishedAt);
  const perStream = (pick: (f: StreamFinished) => number) =>
    m.finished.map((f) => ({ labels: { ...pipeline, stream: f.stream }, value: pick(f) }));
  const gauge = (name: string, help: string, samples: MetricFamily['samples']): MetricFamily => ({
    name,
    help,
    type: 'gauge',
    samples,
  });
  return [
    gauge('engage_etl_run_success', 'Whether the last run succeeded (1, warnings included) or not (0).', [
      { labels: pipeline, value: succeeded ? 1 : 0 },
    ]),
    gauge(
      'engage_etl_run_exit_code',
      'Exit code of the last run: 0 done, 1 failed, 2 configuration error, 3 completed with some units missing (asked again by the next runs), 130 interrupted.',
      [{ labels: pipeline, value: m.exitCode }],
    ),
    gauge('engage_etl_run_finished_timestamp_seconds', 'When the last run ended, in Unix seconds.', [
      { labels: pipeline, value: finishedAt },
    ]),
    gauge('engage_etl_run_duration_seconds', 'Wall time of the last run.', [{ labels: pipeline, value: m.seconds }]),
    gauge('engage_etl_run_requests', 'Requests the last run sent, retries included.', [
      { labels: pipeline, value: m.requests },
    ]),
    gauge(
      LAST_SUCCESS,
      'When a run that included the stream last succeeded, in Unix seconds.',
      [...lastSuccess]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([stream, value]) => ({ labels: { ...pipeline, stream }, value })),
    ),
    gauge(
      'engage_etl_stream_duration_seconds',
      "Seconds from the start of fetching to the stream's last request, in the last run.",
      perStream((f) => f.seconds),
    ),
    gauge(
      'engage_etl_stream_requests',
      'Requests the stream needed in the last run.',
      perStream((f) => f.requests),
    ),
    gauge(
      'engage_etl_stream_rows',
      'Rows the stream fetched in the last run.',
      perStream((f) => f.rows),
    ),
    gauge(
      'engage_etl_stream_open_holes',
      'Units of the stream the service did not deliver and a later run must retry.',
      m.streams.map((stream) => ({ labels: { ...pipeline, stream }, value: m.openHoles[stream] ?? 0 })),
    ),
  ];
}

/** Writes the metrics of a run to `path` atomically, carrying the last successes of the previous file over. */
export async function writeRunMetrics(path: string, m: RunMetricsInput): Promise<void> {
  const file = resolve(path);
  const previous = new Map<string, number>();
  if (existsSync(file)) {
    try {
      for (const s of parsePrometheusText(await readFile(file, 'utf8'))) {
        if (s.name === LAST_SUCCESS && s.labels['pipeline'] === m.pipeline && s.labels['stream'])
          previous.set(s.labels['stream'], s.value);
      }
    } catch {
      // A damaged file is replaced whole; only the carried-over success times are lost.
    }
  }
  await writeFileAtomically(file, formatPrometheusText(runMetricFamilies(m, previous)));
}

/** What the published database says per stream: its open holes, and when a run last completed it (Unix seconds). */
export interface PublishedStreamState {
  openHoles: Record<string, number>;
  lastSuccess: Record<string, number>;
}

/**
 * Open holes per stream from `_etl_holes` (status 'open') and last successes from `_etl_stream_outcomes`, read from the
 * published file readers see; empty when the database or a table does not exist.
 */
export async function readPublishedStreamState(db: string): Promise<PublishedStreamState> {
  try {
    return await withPublishedDatabase(db, async (wh) => {
      return {
        openHoles: await new SeriesStateStore(wh).openHoleCounts(),
        lastSuccess: (await hasTable(wh, '_etl_stream_outcomes'))
          ? await new StreamOutcomeStore(wh).lastSuccesses()
          : {},
      };
    });
  } catch (err) {
    if (err instanceof NoSnapshotError) return { openHoles: {}, lastSuccess: {} };
    throw err;
  }
}
