// `engage-etl status`: the last run and one line per stream (status-summary.ts); with --stream or --verbose, per series
// the watermark, the last run that touched it, rows loaded and how far behind it is. With --fail-if-stale it is a
// freshness check for monitors (like `dbt source freshness`): exit 1 when a series is too far behind.
// It also shows the latest reconciliation and, per stream with an auto look-back, how many days it re-reads, since when
// and why; with --restatements, how many stored values changed at each age and the look-back that covers them.
import { absentHistoryNote, viewsReadingAbsentHistory } from '../views/absent-history.js';
import { Command, InvalidArgumentError } from 'commander';
import { DEFAULT_DB_PATH } from '../config/default-paths.js';
import { parseDuration } from '../config/duration.js';
import { suggestion } from '../config/nearest-name.js';
import { STREAM_NAMES } from '../config/pipeline-definition.js';
import { isStreamName, streamDeclaration } from '../streams/registry.js';
import { isSnapshot } from '../load/series-freshness.js';
import { ConfigError, NoDatabaseError, NoSnapshotError } from '../errors.js';
import { latestLookbacks, latestReconciliation, restatementsByAge } from '../load/audit-store.js';
import type { LookbackNow } from '../load/audit-store.js';
import { BackfillStore } from '../load/backfill-store.js';
import { RunLog } from '../load/run-log.js';
import { SeriesFailureStore } from '../load/series-failure-store.js';
import { hasTable, rowCount } from '../load/stored-tables.js';
import { StreamOutcomeStore } from '../load/stream-outcomes.js';
import { openSnapshotStore } from '../store/open-snapshot-store.js';
import type { SnapshotStore } from '../store/snapshot-store.js';
import { Warehouse } from '../load/warehouse.js';
import { WAREHOUSE_TABLES } from '../streams/table-specs.js';
import { SeriesStateStore } from '../load/series-state-store.js';
import type { Hole, StatusRow } from '../load/series-state-store.js';
import { parseDbLocation } from '../store/location.js';
import { snapshotFiles } from '../store/published-snapshot.js';
import { freshnessText, headline, minuteText, streamSummaries, summaryRows } from './status-summary.js';
import { DEFAULT_RESTATEMENT_SHARE, recommendLookback } from '../pipeline/lookback-advice.js';
import { backfillSentence } from '../pipeline/backfill-progress.js';
import { backfillFromRow } from '../load/backfill-store.js';
import { EXIT } from './exit-codes.js';
import { formatRows } from './format-rows.js';
import { withJsonFailure, writeJsonLine } from './json-line.js';

interface StatusFlags {
  db: string;
  json?: boolean;
  failIfStale?: string;
  stream?: string;
  verbose?: boolean;
  restatements?: boolean;
  share: number;
}

/** A series older than the threshold, or a named stream with no series at all. */
interface Stale {
  stream: string;
  series: string | null;
  hours: number | null;
}

export function makeStatusCommand(): Command {
  return new Command('status')
    .description(
      'Show the last run and one line per stream (rows, series, backfill coverage, freshness, holes, failures, last outcome); --stream or --verbose for each series; with --fail-if-stale, fail when data is behind by more than a threshold.',
    )
    .option(
      '--db <file>',
      'DuckDB database file (the published state of the last successful run; works while a run goes on), or s3://BUCKET/KEY.duckdb',
      DEFAULT_DB_PATH,
    )
    .option('--json', 'print the result as one JSON line on stdout (on failure too), with `error` and `exit_code`')
    .option(
      '--fail-if-stale <duration>',
      "exit 1 when a series' watermark is older than this (e.g. 26h, 90m, 2d), or when nothing was loaded",
    )
    .option('--stream <name>', 'only this stream (shown and checked), with its series one by one')
    .option('--verbose', 'every series, hole, failed series and reconciliation check, below the per-stream summary')
    .option(
      '--restatements',
      'per stream, how many stored values a re-fetch changed at each age (days before --until), and the lookback_days that covers --share of them',
    )
    .option(
      '--share <fraction>',
      'share of the restated values the advised lookback_days must cover',
      shareArg,
      DEFAULT_RESTATEMENT_SHARE,
    )
    .addHelpText(
      'after',
      '\nExamples:\n  engage-etl status\n  engage-etl status --stream revenue\n  engage-etl status --verbose\n  engage-etl status --fail-if-stale 26h\n  engage-etl status --fail-if-stale 2d --stream revenue --json\n  engage-etl status --restatements\n\nFreshness is measured against the last unit that could be complete: a daily series holding every day before today (UTC) is current.\nA run whose lock is still there but whose process is gone is shown as abandoned. Before any run has published, the\nstate an interrupted first run committed (which the next run resumes from) is shown.',
    )
    .action(async (flags: StatusFlags) =>
      withJsonFailure(flags.json, async () => {
        const store = await openSnapshotStore(flags.db);
        try {
          await showStatus(flags, store);
        } finally {
          await store.close();
        }
      }),
    );
}

/** What `--fail-if-stale` found, as the one line a monitor shows. */
function staleProblem(stale: readonly Stale[], threshold: string): string {
  const shown = stale
    .slice(0, 5)
    .map((s) => (s.series === null ? `${s.stream} (never loaded)` : `${s.stream} ${s.series} (${s.hours} h)`))
    .join(', ');
  return `${stale.length} series older than ${threshold}: ${shown}${stale.length > 5 ? ', …' : ''}; run \`engage-etl run\` or look at the last run's error`;
}

/** The rows in each snapshot stream's table (its first: the objects; a stream's other tables hold their parts). */
async function snapshotTableRows(wh: Warehouse, rows: readonly StatusRow[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const streams = new Set(rows.filter((r) => isSnapshot(r.unit)).map((r) => r.stream));
  for (const stream of streams) {
    if (!isStreamName(stream)) continue;
    const table = streamDeclaration(stream).tables[0]?.name;
    if (table === undefined) continue;
    if (!(await hasTable(wh, table))) continue;
    counts.set(stream, await rowCount(wh, table));
  }
  return counts;
}

/** What `status` prints, from the published state and the lock and last-run note beside it. */
async function showStatus(flags: StatusFlags, store: SnapshotStore): Promise<void> {
  const thresholdMs = flags.failIfStale === undefined ? undefined : parseDuration(flags.failIfStale, '--fail-if-stale');
  if (flags.stream !== undefined && !isStreamName(flags.stream)) {
    throw new ConfigError(
      '--stream',
      `unknown stream ${JSON.stringify(flags.stream)}.${suggestion(flags.stream, STREAM_NAMES)}`,
    );
  }
  const { wh, source } = await openShown(flags.db, store);
  let rows: StatusRow[];
  let holes: Hole[];
  let lastRun: Record<string, unknown> | undefined;
  let reconciliation: Reconciliation;
  let streams: Record<string, unknown>[];
  let failedSeries: Record<string, unknown>[];
  let backfill: Record<string, unknown>[];
  let snapshotRows: Map<string, number>;
  let lookbacks: LookbackNow[];
  let absentNote: string | undefined;
  try {
    if (flags.restatements) {
      const report = (await restatementReport(wh, flags.share)).filter(
        (r) => flags.stream === undefined || r.stream === flags.stream,
      );
      if (flags.json) writeJsonLine({ share: flags.share, streams: report }, EXIT.done, null);
      else process.stdout.write(formatRestatements(report, flags.share));
      return;
    }
    reconciliation = (await latestReconciliation(wh)).filter(
      (r) => flags.stream === undefined || r.stream === flags.stream,
    );
    const seriesState = new SeriesStateStore(wh);
    rows = (await seriesState.status()).filter((r) => flags.stream === undefined || r.stream === flags.stream);
    holes = (await seriesState.holes()).filter((h) => flags.stream === undefined || h.stream === flags.stream);
    lastRun = await new RunLog(wh).latest();
    streams = (await new StreamOutcomeStore(wh).list()).filter(
      (r) => flags.stream === undefined || r['stream'] === flags.stream,
    );
    // Databases published before these tables existed have none: nothing failed or is being backfilled there.
    failedSeries = (await new SeriesFailureStore(wh).list()).filter(
      (r) => flags.stream === undefined || r['stream'] === flags.stream,
    );
    backfill = (await new BackfillStore(wh).unfinished()).filter(
      (r) => flags.stream === undefined || r['stream'] === flags.stream,
    );
    snapshotRows = await snapshotTableRows(wh, rows);
    if (wh.absentHistory.length > 0)
      absentNote = absentHistoryNote(wh.absentHistory, await viewsReadingAbsentHistory(wh));
    lookbacks = (await latestLookbacks(wh)).filter((l) => flags.stream === undefined || l.stream === flags.stream);
    // Each stream's look-back in its last run: `lookback_days` re-read, `lookback` how it was set; null for streams
    // that re-read nothing (lists, snapshots) and for databases written before look-backs were recorded.
    streams = streams.map((r) => {
      const l = lookbacks.find((x) => x.stream === r['stream']);
      return { ...r, lookback_days: l?.days ?? null, lookback: l?.mode ?? null };
    });
  } finally {
    await wh.close();
  }
  const openOf = (stream: string, key: string): number =>
    holes.filter((h) => h.stream === stream && h.seriesKey === key && h.status === 'open').length;
  // The published file shows the last successful run; a run going on now is known from its lock, and a lock whose
  // process is gone is a run that was killed or crashed (the next run takes the lock over and logs it abandoned).
  // One read of the lock: a second could find it gone (the run just ended) and call a healthy run abandoned.
  const holder = await store.lockHolder();
  const live = holder?.live ? holder : undefined;
  const running = live ? { pid: live.pid, startedAt: live.startedAt, command: live.command } : null;
  const abandoned = holder && !live ? { pid: holder.pid, startedAt: holder.startedAt, command: holder.command } : null;
  // A run that failed (or was interrupted) after the last successful one is not in the published file; its note says how it ended.
  const note = await store.readLastRunNote();
  if (lastRun?.['status'] === 'running' && !live) {
    // What a first run committed before it stopped (a checkpoint) still says running: its note tells how it ended.
    const ended = note?.runId === lastRun['run_id'] ? note : undefined;
    lastRun['status'] = ended?.status ?? 'abandoned';
    lastRun['error'] = ended
      ? (ended.error ?? null)
      : 'the process ended without recording its end (killed or crashed); the next run closes it and resumes from what was committed';
    if (ended) lastRun['finished_at'] = new Date(ended.finishedAt);
  }
  const latestFailure =
    note &&
    note.status !== 'succeeded' &&
    note.status !== 'completed_with_holes' &&
    note.status !== 'incomplete' &&
    note.runId !== lastRun?.['run_id']
      ? note
      : null;
  const stale = thresholdMs === undefined ? [] : staleSeries(rows, thresholdMs, flags.stream);
  const staleError = stale.length === 0 ? null : staleProblem(stale, flags.failIfStale!);
  if (flags.json) {
    const freshness =
      thresholdMs === undefined
        ? null
        : { threshold: flags.failIfStale, stream: flags.stream ?? null, ok: stale.length === 0, stale };
    const summary = streamSummaries({ rows, holes, streams, failedSeries, backfill, snapshotRows });
    writeJsonLine(
      {
        source,
        lastRun: lastRun ?? null,
        latestFailure,
        running,
        abandoned,
        summary,
        streams,
        failedSeries,
        backfill,
        series: rows.map((r) => ({ ...r, openHoles: openOf(r.stream, r.seriesKey) })),
        holes,
        reconciliation,
        freshness,
      },
      staleError ? EXIT.failed : EXIT.done,
      staleError,
    );
  } else {
    if (running)
      process.stdout.write(
        `${running.command} in progress (pid ${running.pid}, started ${running.startedAt}); shown: the state it started from\n`,
      );
    if (abandoned)
      process.stdout.write(
        `${abandoned.command} (pid ${abandoned.pid}, started ${abandoned.startedAt}) is abandoned: its process ended without finishing (killed or crashed); the next run takes over and resumes from what was committed\n`,
      );
    if (latestFailure) {
      process.stdout.write(
        `latest run ${latestFailure.runId}: ${latestFailure.status} at ${latestFailure.finishedAt} — ${latestFailure.error ?? 'no reason recorded'}; what it committed is kept for the next run, shown below: the last successful run\n`,
      );
    }
    const summaries = streamSummaries({ rows, holes, streams, failedSeries, backfill, snapshotRows });
    if (source === 'unpublished') process.stdout.write(`${UNPUBLISHED}\n`);
    process.stdout.write(`${headline(lastRun, summaries)}\n\n`);
    process.stdout.write(summaries.length === 0 ? 'nothing loaded yet\n' : formatRows(summaryRows(summaries)));
    const changes = lookbackLines(lookbacks);
    if (changes.length > 0) process.stdout.write(`\n${changes.join('\n')}\n`);
    if (absentNote !== undefined) process.stdout.write(`\nnote: ${absentNote}\n`);
    const detail = flags.verbose || flags.stream !== undefined;
    if (detail) writeDetail(rows, holes, streams, failedSeries, backfill, reconciliation, openOf);
    else writeFootnotes(holes, streams, failedSeries, reconciliation);
  }
  if (staleError) {
    if (!flags.json) process.stderr.write(`engage-etl: ${staleError}\n`);
    process.exitCode = EXIT.failed;
  }
}

/**
 * One line per stream with an auto look-back (or one whose look-back changed): its days now, since when and why, e.g.
 * `look-back of kpis: 7 d (auto, was 28 d) since the run up to 2025-03-12 00:00: restatements seen up to 5 day(s) old…`.
 */
function lookbackLines(lookbacks: readonly LookbackNow[]): string[] {
  return lookbacks
    .filter((l) => l.mode === 'auto' || l.previousDays !== null)
    .map((l) => {
      const was = l.previousDays === null ? '' : `, was ${l.previousDays} d`;
      return `look-back of ${l.stream}: ${l.days} d (${l.mode}${was}) since the run up to ${minuteText(l.since)} UTC: ${l.reason}`;
    });
}

function staleSeries(rows: readonly StatusRow[], thresholdMs: number, stream: string | undefined): Stale[] {
  if (rows.length === 0) return [{ stream: stream ?? '(any)', series: null, hours: null }];
  return rows
    .filter((r) => r.stalenessMs > thresholdMs)
    .map((r) => ({ stream: r.stream, series: r.seriesKey, hours: Math.round(r.stalenessMs / 360_000) / 10 }));
}

/** Where the state shown comes from: the published database, or what a first run committed before it stopped. */
type Shown = 'published' | 'unpublished';

const UNPUBLISHED =
  'nothing published yet: shown is what the first run committed before it stopped (the next run resumes from there); query, export and report see nothing until a run publishes';

/**
 * The published database; before the first publish, once no run is going on, what the first run committed: the local
 * working copy `.<name>.work`, or an object's checkpoint. While the first run goes on, its working copy is its own.
 */
async function openShown(db: string, store: SnapshotStore): Promise<{ wh: Warehouse; source: Shown }> {
  try {
    return { wh: await store.openPublished(), source: 'published' };
  } catch (err) {
    if (!(err instanceof NoSnapshotError) || (await store.lockHolder())?.live) throw err;
    // An object store says "no such object" when no run holds the lock: a checkpoint beside the key may still be there.
    const location = parseDbLocation(db);
    if (location.kind === 'local' && err instanceof NoDatabaseError) throw err;
    if (location.kind === 'local')
      return {
        wh: await Warehouse.open(snapshotFiles(db).working, WAREHOUSE_TABLES, { readOnly: true }),
        source: 'unpublished',
      };
    const point = await store.openResumePoint().catch(() => {
      throw err;
    });
    return { wh: point.warehouse, source: point.from === 'checkpoint' ? 'unpublished' : 'published' };
  }
}

type Reconciliation = Awaited<ReturnType<typeof latestReconciliation>>;

/** One line each for what the summary table does not show: failed series, holes, reconciliation, and where the detail is. */
function writeFootnotes(
  holes: readonly Hole[],
  streams: readonly Record<string, unknown>[],
  failedSeries: readonly Record<string, unknown>[],
  reconciliation: Reconciliation,
): void {
  const lines: string[] = [];
  const failedStreams = streams.filter((r) => r['status'] === 'failed').map((r) => String(r['stream']));
  if (failedStreams.length > 0)
    lines.push(
      `failed streams: ${failedStreams.join(', ')} (everything else they fetched is published; \`status --stream NAME\` says why)`,
    );
  if (failedSeries.length > 0) {
    const first = failedSeries[0]!;
    lines.push(
      `${failedSeries.length} failed series (what they fetched before is kept; the next run asks again), e.g. ${String(first['stream'])} ${String(first['series_key'])}: ${String(first['error'])}`,
    );
  }
  const open = holes.filter((h) => h.status === 'open').length;
  if (holes.length > 0)
    lines.push(`missing units: ${open} open (asked again by the next runs), ${holes.length - open} confirmed absent`);
  if (reconciliation.length > 0) {
    const mismatches = reconciliation.filter((r) => r.status === 'mismatch').length;
    lines.push(`reconciliation: ${reconciliation.length} check(s), ${mismatches} mismatch(es)`);
  }
  lines.push('each series, hole and check: `status --stream NAME` or `status --verbose`; everything: `status --json`');
  process.stdout.write(`\n${lines.join('\n')}\n`);
}

/** The per-series detail of --stream and --verbose. */
function writeDetail(
  rows: readonly StatusRow[],
  holes: readonly Hole[],
  streams: readonly Record<string, unknown>[],
  failedSeries: readonly Record<string, unknown>[],
  backfill: readonly Record<string, unknown>[],
  reconciliation: Reconciliation,
  openOf: (stream: string, key: string) => number,
): void {
  const failedStreams = streams.filter((r) => r['status'] === 'failed');
  if (failedStreams.length > 0) {
    process.stdout.write(
      `\nfailed streams (some of their series could not complete; everything else they fetched is published):\n`,
    );
    process.stdout.write(
      formatRows(
        failedStreams.map((r) => ({
          stream: r['stream'],
          failed_in: r['run_id'],
          last_success: r['last_success_at'] ?? 'never',
          error: r['error'],
        })),
      ),
    );
  }
  if (failedSeries.length > 0) {
    process.stdout.write(
      `\nfailed series (what they fetched before is kept; the next run asks for their missing windows again):\n`,
    );
    process.stdout.write(
      formatRows(
        failedSeries.map((r) => ({
          stream: r['stream'],
          series: r['series_key'],
          id: r['object_id'] ?? '',
          retrying_helps: r['retriable'] ? 'yes' : 'no: fix it first',
          error: r['error'],
        })),
      ),
    );
  }
  if (backfill.length > 0) {
    process.stdout.write(`\nbackfill in progress (days loaded of days asked; the next runs continue it):\n`);
    process.stdout.write(
      formatRows(
        backfill.map(backfillFromRow).map((b) => ({
          stream: b.stream,
          days: `${b.daysCovered} of ${b.daysAsked}`,
          series_complete: `${b.seriesComplete} of ${b.series}`,
          series_started: `${b.seriesStarted} of ${b.series}`,
          loaded: backfillSentence(b),
        })),
      ),
    );
  }
  if (rows.length > 0) {
    process.stdout.write('\nseries (last_run: the last run that fetched the series):\n');
    process.stdout.write(
      formatRows(
        rows.map((r) => ({
          stream: r.stream,
          series: r.seriesKey,
          watermark: r.watermark,
          rows_loaded: r.rowsLoaded,
          last_run: r.lastRunId,
          freshness: freshnessText(r.stalenessMs),
          open_holes: openOf(r.stream, r.seriesKey),
        })),
      ),
    );
  }
  if (holes.length > 0) {
    const open = holes.filter((h) => h.status === 'open').length;
    process.stdout.write(
      `\nmissing units: ${open} open (asked again by the next runs), ${holes.length - open} confirmed absent (no longer asked for)\n`,
    );
    process.stdout.write(
      formatRows(
        holes.map((h) => ({
          stream: h.stream,
          series: h.seriesKey,
          unit_start: h.unitStart,
          status: h.status,
          attempts: h.attempts,
          reason: h.reason,
        })),
      ),
    );
  }
  if (reconciliation.length > 0) {
    const mismatches = reconciliation.filter((r) => r.status === 'mismatch').length;
    process.stdout.write(`\nreconciliation (latest check per series and metric): ${mismatches} mismatch(es)\n`);
    process.stdout.write(
      formatRows(
        reconciliation.map((r) => ({
          stream: r.stream,
          series: r.seriesKey,
          window_start: r.windowStart,
          window_end: r.windowEnd,
          metric: r.metric,
          expected: r.expected,
          actual: r.actual,
          status: r.status,
          run: r.runId,
        })),
      ),
    );
  }
}

function shareArg(raw: string): number {
  const value = Number(raw);
  if (raw.trim() === '' || !(value > 0 && value <= 1))
    throw new InvalidArgumentError(
      `"${raw}" is not a share in (0, 1]; e.g. --share 0.999 (99.9 % of the changes seen)`,
    );
  return value;
}

/** Per stream: changes at each age, their total, and the advised lookback_days. */
export interface RestatementReport {
  stream: string;
  total: number;
  byAge: { ageDays: number; changes: number }[];
  recommendedLookbackDays: number | undefined;
}

export async function restatementReport(wh: Pick<Warehouse, 'query'>, share: number): Promise<RestatementReport[]> {
  const rows = await restatementsByAge(wh);
  const streams = [...new Set(rows.map((r) => r.stream))];
  return streams.map((stream) => {
    const byAge = rows.filter((r) => r.stream === stream).map(({ ageDays, changes }) => ({ ageDays, changes }));
    return {
      stream,
      total: byAge.reduce((n, a) => n + a.changes, 0),
      byAge,
      recommendedLookbackDays: recommendLookback(byAge, share),
    };
  });
}

function formatRestatements(report: readonly RestatementReport[], share: number): string {
  if (report.length === 0)
    return 'no restated value recorded yet: re-fetches (the look-back) have not changed any stored value of a complete unit\n';
  const lines = [
    `restated values per stream and age (days between the unit's start and the --until of the run that saw the change); advice covers ${(share * 100).toFixed(1)} % of them`,
    '',
  ];
  for (const r of report) {
    lines.push(`${r.stream}: ${r.total} change(s); recommended lookback_days: ${r.recommendedLookbackDays ?? '-'}`);
    lines.push(...r.byAge.map((a) => `  age ${String(a.ageDays).padStart(4)} d  ${String(a.changes).padStart(8)}`));
  }
  return `${lines.join('\n')}\n`;
}
