// The first look `status` prints by default: the last run's headline and one line per stream, so that it fits on a
// screen whatever the number of series (a workspace of 2,000 Canvases has thousands). Per-series detail is for
// `--stream NAME`, `--verbose` and `--json`.
import type { Hole, StatusRow } from '../load/series-state-store.js';
import { isSnapshot } from '../load/series-freshness.js';
import type { BackfillProgress } from '../load/backfill-store.js';
import { backfillReach } from '../pipeline/backfill-progress.js';
import { backfillFromRow } from '../load/backfill-store.js';

/** What `status` read, as the summary needs it (rows of the bookkeeping tables, already filtered to --stream). */
export interface StatusInput {
  rows: readonly StatusRow[];
  holes: readonly Hole[];
  /** `_etl_stream_outcomes` rows. */
  streams: readonly Record<string, unknown>[];
  /** `_etl_series_failures` rows. */
  failedSeries: readonly Record<string, unknown>[];
  /** `_etl_backfill` rows of the streams whose backfill is not complete. */
  backfill: readonly Record<string, unknown>[];
  /** Rows in the table of each snapshot stream now: its series' count is only what the last snapshot changed. */
  snapshotRows?: ReadonlyMap<string, number>;
}

/** One stream at a glance. */
export interface StreamSummary {
  stream: string;
  rows: number;
  /** Series loaded (a list or id-by-id stream has one: its snapshot). */
  series: number;
  snapshot: boolean;
  /** While its backfill is incomplete: days loaded of days asked (averaged over its series), series complete, range loaded. */
  backfill: BackfillProgress | null;
  /** The series furthest behind the last completable unit, in milliseconds (0: every series current). */
  behindMs: number;
  /** A snapshot stream: the instant its snapshot was taken as of (its oldest, if several). */
  asOf: Date | null;
  openHoles: number;
  failedSeries: number;
  /** The stream's last outcome ('succeeded', 'failed') and when; null when no run recorded one. */
  outcome: { status: string; at: Date | null } | null;
}

export function streamSummaries(input: StatusInput): StreamSummary[] {
  const names = new Set<string>([
    ...input.rows.map((r) => r.stream),
    ...input.streams.map((r) => String(r['stream'])),
    ...input.backfill.map((r) => String(r['stream'])),
    ...input.failedSeries.map((r) => String(r['stream'])),
  ]);
  return [...names].sort().map((stream) => {
    const rows = input.rows.filter((r) => r.stream === stream);
    const b = input.backfill.find((r) => r['stream'] === stream);
    const o = input.streams.find((r) => r['stream'] === stream);
    const snapshot = rows.length > 0 && rows.every((r) => isSnapshot(r.unit));
    return {
      stream,
      rows: (snapshot ? input.snapshotRows?.get(stream) : undefined) ?? rows.reduce((n, r) => n + r.rowsLoaded, 0),
      series: rows.length,
      snapshot,
      backfill: b === undefined ? null : backfillFromRow(b),
      behindMs: Math.max(0, ...rows.map((r) => r.stalenessMs)),
      asOf: snapshot ? new Date(Math.min(...rows.map((r) => r.watermark.getTime()))) : null,
      openHoles: input.holes.filter((h) => h.stream === stream && h.status === 'open').length,
      failedSeries: input.failedSeries.filter((r) => r['stream'] === stream).length,
      outcome: o === undefined ? null : { status: String(o['status']), at: (o['finished_at'] as Date | null) ?? null },
    };
  });
}

/** "current", or how far behind: "behind 1.0 d", "behind 3.0 h". */
export function freshnessText(ms: number): string {
  if (ms === 0) return 'current';
  const hours = ms / 3_600_000;
  return `behind ${hours < 48 ? `${hours.toFixed(1)} h` : `${(hours / 24).toFixed(1)} d`}`;
}

/** `2026-11-26 10:51` (UTC, to the minute). */
export function minuteText(at: Date | null | undefined): string {
  return at instanceof Date ? `${at.toISOString().slice(0, 16).replace('T', ' ')}` : '';
}

/** The table rows of the summary, as formatRows prints them. */
export function summaryRows(summaries: readonly StreamSummary[]): Record<string, unknown>[] {
  return summaries.map((s) => ({
    stream: s.stream,
    rows: s.rows,
    series: s.snapshot ? 'snapshot' : String(s.series),
    coverage: s.backfill === null ? (s.series === 0 ? 'none' : 'complete') : coverageText(s.backfill),
    // A snapshot is not behind a unit: it is as of an instant, which says more than "0.1 h" right after a run.
    freshness:
      s.series === 0 ? 'never loaded' : s.asOf !== null ? `as of ${minuteText(s.asOf)}` : freshnessText(s.behindMs),
    open_holes: s.openHoles,
    failed_series: s.failedSeries,
    last_outcome: s.outcome === null ? '' : `${s.outcome.status} ${minuteText(s.outcome.at)}`.trim(),
  }));
}

/** A backfill in the summary's coverage column: `loaded back to 2025-03-02, 41 % (3/9 series)`; `status --verbose` says more. */
function coverageText(b: BackfillProgress): string {
  const { reach, percent } = backfillReach(b);
  return `${reach}, ${percent} % (${b.seriesComplete}/${b.series} series)`;
}

/** The run's headline: which run, how it ended, when, how many requests, and whether the backfill is complete. */
export function headline(lastRun: Record<string, unknown> | undefined, summaries: readonly StreamSummary[]): string {
  if (lastRun === undefined) return 'no run yet';
  const finished = lastRun['finished_at'] as Date | null;
  const started = lastRun['started_at'] as Date | null;
  const when = finished ? `finished ${minuteText(finished)} UTC` : `started ${minuteText(started)} UTC`;
  // A run still recorded as running has not counted its requests yet.
  const requests =
    lastRun['requests'] === null || lastRun['requests'] === undefined || finished === null
      ? ''
      : `, ${Number(lastRun['requests']).toLocaleString('en-US')} requests`;
  const filling = summaries.filter((s) => s.backfill !== null);
  const backfill =
    filling.length === 0
      ? 'backfill complete'
      : `backfill in progress in ${filling.length} stream(s) (the next runs continue it)`;
  // The reason of a run that did not succeed comes first: it is what the reader must act on.
  const error = lastRun['error'] ? ` — ${String(lastRun['error'])};` : ',';
  return `last run ${String(lastRun['run_id'])}: ${String(lastRun['status'])}${error} ${when}${requests}; ${backfill}`;
}
