// run(definition): the run as its phases, in order — claim destinations, start (working copy, client, run log),
// discover, plan, fetch and commit, reconcile, settle failures, publish. Each phase is a module with one job; this file
// only passes what one phase found to the next, and records the run's end whatever happens. A window's rows go through
// four stages: fetch (`planAndFetch`, the requests as the run's scheduler admits them), stage and load (`stageAndLoad`:
// rows to a load package on disk as they arrive, each package merged set-wise into the tables), export (`publishParquet`).
import { randomBytes } from 'node:crypto';
import { DateTime } from 'luxon';
import type { ApiClient } from '../api/api-client.js';
import type { SnapshotStore } from '../store/snapshot-store.js';
import type { RunOptions } from '../config/run-options.js';
import { EngageError, FatalError, InterruptedError } from '../errors.js';
import type { Warehouse } from '../load/warehouse.js';
import { backfillProgress, recordBackfill } from './backfill-progress.js';
import type { BackfillProgress } from '../load/backfill-store.js';
import { claimDestinations } from './claim-destinations.js';
import { claimLake } from '../export/lake-owner.js';
import { placeOfWorkspace } from '../store/workspace-place.js';
import { Committer } from './committer.js';
import { discover } from './discover.js';
import { fetchAndCommit, tallyCommits } from './fetch-and-commit.js';
import type { PipelineDeps } from './pipeline-deps.js';
import { planRun, readStoredPlanState } from './plan-for-run.js';
import { publishDatabase, publishParquet } from './publish-run.js';
import { reconcileRun } from './reconcile.js';
import { recordLookbacks } from '../load/audit-store.js';
import { RunLog } from '../load/run-log.js';
import type { ReconciliationRow } from '../load/audit-store.js';
import type { RunReporter, RunWarning } from './run-events.js';
import { SILENT_REPORTER, waitingEvent } from './run-events.js';
import { RunScheduler } from './run-scheduler.js';
import type { HoleSummary, PlannedRequests, RunSummary, TableChanges } from './run-summary.js';
import { summarize, summarizeHoles, sumChanges } from './run-summary.js';
import { settleFailures, recordFailures } from './settle-failures.js';
import type { SettledFailures } from './settle-failures.js';
import { startRun } from './start-run.js';
import type { StreamName } from '../streams/registry.js';
import { StreamsFailedError } from './streams-failed-error.js';
import type { SeriesFailure } from './stream-failure.js';

export type { PipelineDeps } from './pipeline-deps.js';
export type { HoleSummary, MissingUnitReport, RunSummary, TableSummary } from './run-summary.js';
export { tablesOf } from './stream-tables.js';

/**
 * Runs the pipeline; resolves with the summary of a run that published (also one cut by its time budget, or with series
 * that failed for reasons a later run may not meet: status `incomplete`) and throws (after recording the failure)
 * otherwise. When some series failed for good, everything else is committed and published and the error thrown is a
 * StreamsFailedError carrying the run's summary.
 */
export async function runPipeline(opts: RunOptions, deps: PipelineDeps = {}): Promise<RunSummary> {
  const reporter = deps.reporter ?? SILENT_REPORTER;
  const started = Date.now();
  const runId = `${DateTime.utc().toFormat("yyyyLLdd'T'HHmmss")}-${randomBytes(3).toString('hex')}`;
  const until = opts.until.toUTC();
  const budgetLeftMs = () => (opts.timeBudgetMs === undefined ? undefined : opts.timeBudgetMs - (Date.now() - started));
  const budgetSpent = () => (budgetLeftMs() ?? 1) <= 0;

  // Made before anything is claimed: a pool override it refuses is a usage error that touches nothing.
  const scheduler = runScheduler(opts, deps, reporter);
  const { out, snapshots, lock } = await claimDestinations(opts, 'engage-etl run');
  const opened: { wh?: Warehouse; client?: ApiClient } = {};
  const changes: TableChanges = new Map();
  const warnings: RunWarning[] = [];
  let committer: Committer | undefined;
  let result: RunSummary;
  try {
    const { wh, client, source } = await startRun(
      opts,
      deps,
      snapshots,
      { runId, started, until, reporter, warnings, staleLockNote: lock.staleNote, scheduler },
      (parts) => Object.assign(opened, parts),
    );
    // Before anything is fetched: a lake another database published into is refused, not overwritten at the end.
    await claimLake(wh, placeOfWorkspace(out.place, opts.pipeline.workspace));

    committer = stageAndLoad(wh, { runId, until, scheduler, changes, reporter, snapshots });
    const fetched = await planAndFetch(opts, {
      wh,
      client,
      committer,
      scheduler,
      runId,
      until,
      reporter,
      warnings,
      budgetSpent,
      budgetLeftMs,
    });

    const { lake, exported } = await publishParquet(wh, out, opts, reporter, warnings);
    const { failures, holes, remainingRequests } = fetched;
    const summary = await summarize(wh, {
      runId,
      opts,
      until,
      started,
      source,
      planned: fetched.planned,
      changes,
      warnings,
      followUps: fetched.followUps,
      holes,
      reconciled: fetched.reconciled,
      failedSeries: failures.series,
      failedStreams: failures.streams,
      remainingRequests,
      backfill: fetched.backfill,
      client,
      parquet: exported,
    });
    const finishedAt = new Date();
    const failedError = failures.series.length > 0 ? failedMessage(runId, failures) : undefined;
    await new RunLog(wh).finish({
      runId,
      finishedAt,
      status: summary.status,
      requests: summary.requests.sent,
      rowsChanged: sumChanges(changes),
      ...(failedError ? { error: failedError } : {}),
    });
    await recordFailures(wh, runId, finishedAt, opts.streams, failures);
    await publishDatabase(wh, lake, snapshots, opts, summary, reporter);
    await snapshots.writeLastRunNote({
      runId,
      status: summary.status,
      startedAt: new Date(started).toISOString(),
      finishedAt: new Date().toISOString(),
      ...(failedError ? { error: failedError } : {}),
    });
    reporter.emit({
      type: 'run_finished',
      runId,
      status: summary.status,
      seconds: summary.seconds,
      ...(failedError ? { error: failedError } : {}),
    });
    result = summary;
  } catch (caught) {
    const interrupted = deps.signal?.aborted === true;
    let err = interrupted
      ? new InterruptedError(
          `run ${runId} interrupted: what was fetched before was committed; run it again (without --full-refresh) to resume`,
          { cause: caught },
        )
      : caught;
    let message = err instanceof Error ? err.message : String(err);
    // What was fetched before the failure lands with its watermarks, so a resumed run does not fetch it again. This is
    // the place for anything that must follow the last commit of an interrupted run (a checkpoint of the working copy).
    await committer?.drain().catch(() => undefined);
    if (opened.wh) {
      const status = interrupted ? 'interrupted' : 'failed';
      await new RunLog(opened.wh)
        .finish({
          runId,
          finishedAt: new Date(),
          status,
          requests: opened.client?.stats.requestsSent ?? 0,
          rowsChanged: sumChanges(changes),
          error: message,
        })
        .catch(() => undefined);
      // Where the working copy does not outlive this process (--db s3://…), the message above is true only once this is.
      const kept = await snapshots.keepCommitted();
      if (!kept.kept) {
        const lost = `${kept.reason}; run it again (without --full-refresh) to resume from ${kept.resumesFrom}`;
        if (interrupted)
          err = new InterruptedError(`run ${runId} interrupted: ${lost}`, { cause: caught, progressKept: false });
        message = interrupted ? `run ${runId} interrupted: ${lost}` : `${message}; ${lost}`;
      }
      // The published file keeps the last successful run: `status` learns of this failure from the note.
      await snapshots
        .writeLastRunNote({
          runId,
          status,
          startedAt: new Date(started).toISOString(),
          finishedAt: new Date().toISOString(),
          error: message,
        })
        .catch(() => undefined);
    }
    for (const w of warnings) reporter.emit({ type: 'warning', ...w });
    reporter.emit({
      type: 'run_finished',
      runId,
      status: interrupted ? 'interrupted' : 'failed',
      seconds: (Date.now() - started) / 1000,
      error: message,
    });
    throw err instanceof EngageError ? err : new FatalError(`run ${runId} failed: ${message}`, { cause: err });
  } finally {
    await opened.client?.close();
    scheduler.close();
    await opened.wh?.close();
    await lock.release().catch(() => undefined);
    await snapshots.close();
    await out.close();
    reporter.close();
  }
  if (result.status === 'failed')
    throw new StreamsFailedError(
      failedMessage(runId, { series: result.failedSeries, streams: result.failedStreams }),
      result,
    );
  return result;
}

/**
 * The run's one scheduler (run-scheduler.ts): a request's pool permit, its place in flight and the room its rows may
 * take. Made here and handed to the client, the committer and the fetch loop; closed at the run's end.
 */
function runScheduler(opts: RunOptions, deps: PipelineDeps, reporter: RunReporter): RunScheduler {
  return RunScheduler.create({
    ...deps.scheduler,
    ...(opts.maxWaitMs !== undefined ? { maxWaitMs: opts.maxWaitMs } : {}),
    ...(opts.maxInFlight !== undefined ? { maxInFlight: opts.maxInFlight } : {}),
    onWait: (wait) => {
      reporter.emit(waitingEvent(wait));
      deps.scheduler?.onWait?.(wait);
    },
  });
}

/**
 * Stage and load: each part a fetch task hands over is written to the open load package on disk (stage), and each
 * package is merged set-wise into the tables with the watermarks its parts allow (load). The scheduler hears what is
 * staged and what a commit took, and gives the fetch room by it.
 */
function stageAndLoad(
  wh: Warehouse,
  ctx: {
    runId: string;
    until: DateTime;
    scheduler: RunScheduler;
    changes: TableChanges;
    reporter: RunReporter;
    snapshots: SnapshotStore;
  },
): Committer {
  const tally = tallyCommits(ctx.changes, ctx.reporter);
  return new Committer(
    wh,
    ctx.runId,
    (result) => {
      tally(result);
      // A checkpoint of the working copy may follow (with --db s3://, at most every --checkpoint-every).
      ctx.snapshots.committed();
    },
    { until: ctx.until.toJSDate(), room: ctx.scheduler },
  );
}

/** What the run's publish and summary need of its plan and fetch: counts and outcomes, not the plan's series. */
interface FetchPhase {
  planned: PlannedRequests;
  failures: SettledFailures;
  holes: HoleSummary;
  followUps: number;
  reconciled: ReconciliationRow[];
  remainingRequests: number;
  backfill: BackfillProgress[];
}

/**
 * Fetch: discover, plan, fetch and commit, reconcile, settle failures, record the backfill. A function of its own so that the
 * plan and the discovered lists are unreachable once it returns: the export that follows holds none of them.
 */
async function planAndFetch(
  opts: RunOptions,
  ctx: {
    wh: Warehouse;
    client: ApiClient;
    committer: Committer;
    scheduler: RunScheduler;
    runId: string;
    until: DateTime;
    reporter: RunReporter;
    warnings: RunWarning[];
    budgetSpent(): boolean;
    budgetLeftMs(): number | undefined;
  },
): Promise<FetchPhase> {
  const { wh, client, committer, until, reporter, warnings, budgetSpent, budgetLeftMs } = ctx;
  reporter.emit({ type: 'phase', phase: 'plan' });
  // `all` becomes ids: the workspace lists are read once, before the run is planned.
  const discovery = await discover({
    pipeline: opts.pipeline,
    streams: opts.streams,
    client,
    wh,
    until: until.toJSDate(),
    onPage: (p) =>
      reporter.emit({
        type: 'progress',
        progress: {
          stream: `discovery: ${p.listing}`,
          requestsPlanned: p.expected,
          requestsDone: p.pages,
          rows: p.objects,
        },
      }),
  });
  warnings.push(...discovery.warnings);
  // A stream whose list could not be read fails before anything is fetched for it: it is not planned.
  const found: SeriesFailure[] = [...discovery.failed].map(([stream, error]) => listFailure(stream, error));
  // Only a pipeline that says `all` has list rows to commit before fetching.
  if (discovery.rows.upserts.some((u) => u.rows.length > 0))
    await committer.add({ ...discovery.rows, state: [], holes: [] });
  // Committed: for the rest of the run the lists are held only as planning and fetching read them (ids, versions), not
  // also as rows (a heap snapshot of a 20k run found every listed_objects row alive in its tenth minute).
  discovery.rows = { upserts: [], replaces: [] };
  const plan = planRun(
    { ...opts, streams: opts.streams.filter((s) => !discovery.failed.has(s)) },
    await readStoredPlanState(wh, until.toJSDate()),
    discovery,
  );

  const fetched = await fetchAndCommit({
    plan,
    discovery,
    client,
    committer,
    until,
    holeRetries: opts.pipeline.holeRetries,
    reporter,
    warnings,
    scheduler: ctx.scheduler,
    budgetSpent,
    budgetLeftMs,
  });
  found.push(...fetched.failures);

  const from = opts.from ?? opts.pipeline.startDate;
  const reconciled = await reconcileRun(plan.reconciliations, {
    client,
    wh,
    runId: ctx.runId,
    until,
    from,
    warn: (w) => warnings.push(w),
    budgetSpent,
  });
  reporter.emit({ type: 'phase', phase: 'commit' });
  await committer.drain();

  const failures = settleFailures(found);
  const holes = summarizeHoles(fetched.holeChanges);
  const remainingRequests = fetched.unstarted + reconciled.unsent;
  runWarnings(warnings, {
    failures,
    openHoles: holes.open,
    holeRetries: opts.pipeline.holeRetries,
    remainingRequests,
    budgetMs: opts.timeBudgetMs,
  });
  for (const w of warnings) reporter.emit({ type: 'warning', ...w });
  await recordLookbacks(wh, ctx.runId, until.toJSDate(), plan.lookbacks);
  const backfill = await backfillProgress(wh, plan, from.toUTC().toMillis(), opts.pipeline.backfillOrder);
  await recordBackfill(wh, ctx.runId, backfill);
  return {
    planned: { requests: plan.requests, minimum: plan.minimum, byPool: plan.byPool },
    failures,
    holes,
    followUps: fetched.followUps,
    reconciled: reconciled.rows,
    remainingRequests,
    backfill,
  };
}

/** A stream that needed a list the run could not read: it fails as one series named after the list. */
function listFailure(stream: StreamName, error: unknown): SeriesFailure {
  const message = error instanceof Error ? error.message : String(error);
  return { stream, series: 'lists', error: message, retriable: error instanceof EngageError && error.retriable };
}

/** The warnings a run's outcome adds: missing units, a spent time budget. */
function runWarnings(
  warnings: RunWarning[],
  o: {
    failures: SettledFailures;
    openHoles: number;
    holeRetries: number;
    remainingRequests: number;
    budgetMs: number | undefined;
  },
): void {
  if (o.openHoles > 0) {
    warnings.push({
      code: 'units_missing',
      message: `${o.openHoles} unit(s) are still missing after this run (listed in the summary and by \`engage-etl status\`); the next runs ask for them again, up to hole_retries (${o.holeRetries}) times`,
    });
  }
  if (o.remainingRequests > 0) {
    warnings.push({
      code: 'time_budget_spent',
      message: `the time budget (${Math.round((o.budgetMs ?? 0) / 1000)} s) was spent with ${o.remainingRequests} request(s) not sent: everything fetched is published, and the next run continues where this one stopped`,
    });
  }
}

/** The one line that tells a scheduler's log which series failed, why, and that the rest was published. */
function failedMessage(runId: string, failed: SettledFailures): string {
  const list = failed.streams
    .map((f) => `${f.stream} (${failed.series.filter((s) => s.stream === f.stream).length} series; ${f.error})`)
    .join('; ');
  return (
    `run ${runId} failed: ${failed.series.length} series of ${failed.streams.length} stream(s) could not complete: ${list}. ` +
    'Everything else, and what the failed series fetched before, was committed and published; the next run asks for their missing windows again'
  );
}
