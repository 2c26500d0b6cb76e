// run(definition): plan → extract → load → export. Takes the normalized RunOptions, holds the database lock for the whole
// run, fetches every planned window through one ApiClient, commits rows and watermarks together, and publishes Parquet.
import { randomBytes } from 'node:crypto';
import { DateTime } from 'luxon';
import { ApiClient } from '../api/api-client.js';
import type { ApiClientOptions } from '../api/api-client-options.js';
import { MAX_IN_FLIGHT } from '../api/in-flight-window.js';
import type { PoolId } from '../api/endpoints.js';
import { RUN_RETRY_ADVICE } from '../config/retry-limits.js';
import type { RunOptions } from '../config/run-options.js';
import { EngageError, FatalError, InterruptedError } from '../errors.js';
import { exportBookkeeping, exportParquet } from '../export/export-parquet.js';
import type { ExportSummary } from '../export/export-parquet.js';
import type { ReconciliationRow } from '../load/audit-store.js';
import { openSnapshotStore } from '../load/snapshot-store.js';
import type { DbLock, SnapshotStore } from '../load/snapshot-store.js';
import type { TableName } from '../load/table-specs.js';
import type { HoleUpdate, Warehouse } from '../load/warehouse.js';
import { crashPoint } from '../process/crash-point.js';
import { retireLayout } from '../export/retire-layout.js';
import { placeOfWorkspace } from '../store/workspace-place.js';
import { openPlace } from '../store/open-place.js';
import type { OpenedPlace } from '../store/open-place.js';
import type { Place } from '../store/place.js';
import type { StreamName } from '../streams/registry.js';
import { streamDeclaration } from '../streams/registry.js';
import { writeReport } from '../report/write-report.js';
import { createAnalyticsViews } from '../views/analytics-views.js';
import { Committer } from './committer.js';
import { discover } from './discover.js';
import { queueFetchTasks } from './fetch-tasks.js';
import type { Plan } from './plan.js';
import { estimateDuration } from './plan-estimate.js';
import { planRun, readStoredPlanState } from './plan-for-run.js';
import { runReconciliations } from './reconcile.js';
import type { RunReporter, RunWarning, StreamProgress } from './run-events.js';
import { SILENT_REPORTER, waitingEvent } from './run-events.js';
import { StreamClock } from './stream-clock.js';
import type { StreamFailure } from './stream-failure.js';
import { describeFailure, failureScope, StreamsFailedError } from './stream-failure.js';
import { TaskQueues } from './task-queues.js';

export interface PipelineDeps {
  /** Where progress goes. @default SILENT_REPORTER */
  reporter?: RunReporter;
  /** Client settings beyond base URL and key (tests and the benchmark scale pools, in-flight caps, timeouts). @default {} */
  client?: Partial<Omit<ApiClientOptions, 'baseUrl' | 'apiKey'>>;
  /**
   * What to call the source in the summary instead of its base URL (the CLI says "built-in emulator" for `--emulator`).
   * @default the base URL
   */
  sourceLabel?: string;
  /** Aborting it (Ctrl-C) stops the run like a fatal answer: what was fetched is committed, the run is logged 'interrupted'. @default none */
  signal?: AbortSignal;
}

/** A unit still missing at the end of a run, as the summary lists it. */
export interface MissingUnitReport {
  stream: string;
  seriesKey: string;
  unitStart: string;
  status: 'open' | 'confirmed_absent';
  attempts: number;
  reason: string;
}

/** What became of holes in this run. */
export interface HoleSummary {
  /** Units still missing after this run and to be asked again by the next (they make the run exit 3). */
  open: number;
  /** Holes this run filled. */
  filled: number;
  /** Holes confirmed absent in this run (no longer asked for). */
  confirmedAbsent: number;
  /** The open and newly confirmed holes, at most 50 (the rest in `status`). */
  units: MissingUnitReport[];
}

export interface TableSummary {
  table: TableName;
  /** Rows in the table after the run. */
  rows: number;
  inserted: number;
  updated: number;
  deleted: number;
}

export interface RunSummary {
  runId: string;
  pipeline: string;
  /**
   * 'completed_with_holes': every window was fetched but some units are still missing (the CLI exits 3). 'failed': some
   * streams could not complete (`failedStreams`); the others were committed and published all the same (exit 1).
   */
  status: 'succeeded' | 'completed_with_holes' | 'failed';
  /** Streams that could not complete, with the reason: they kept the rows and state of their last complete run. */
  failedStreams: StreamFailure[];
  until: string;
  source: string;
  db: string;
  out: string;
  seconds: number;
  requests: { planned: number; minimum: number; sent: number; retries: number; followUps: number; byPool: Partial<Record<PoolId, number>> };
  tables: TableSummary[];
  holes: HoleSummary;
  /** Comparisons of another endpoint with the stored days (`reconcile: true`), by status; mismatches are also warnings. */
  reconciliation: { match: number; mismatch: number; incomplete: number };
  /** Stored values of complete units this run's re-fetches changed (recorded in `_etl_restatements`). */
  restatements: number;
  parquet: { filesWritten: number; filesRemoved: number; rowsWritten: number };
  warnings: RunWarning[];
  /** Absolute path of the HTML report written after the run, when the pipeline file asks for one (`report: { path }`). */
  report?: string;
}

/**
 * Runs the pipeline; resolves with the summary of a successful run and throws (after recording the failure) otherwise.
 * When only some streams failed, the others are committed and published and the error thrown is a StreamsFailedError
 * carrying the run's summary.
 */
export async function runPipeline(opts: RunOptions, deps: PipelineDeps = {}): Promise<RunSummary> {
  const reporter = deps.reporter ?? SILENT_REPORTER;
  const started = Date.now();
  const runId = `${DateTime.utc().toFormat("yyyyLLdd'T'HHmmss")}-${randomBytes(3).toString('hex')}`;
  const until = opts.until.toUTC();

  const { out, snapshots, lock } = await claimDestinations(opts, 'engage-etl run');
  let wh: Warehouse | undefined;
  let client: ApiClient | undefined;
  const changes = new Map<TableName, { inserted: number; updated: number; deleted: number }>();
  const warnings: RunWarning[] = [];
  let followUps = 0;
  const holeChanges = new Map<string, HoleUpdate>();
  // Streams that could not complete, in the order they failed.
  const failures = new Map<StreamName, unknown>();
  let committed: Committer | undefined;
  let result: RunSummary;
  try {
    const working = await snapshots.openWorkingCopy();
    wh = working.warehouse;
    warnings.push(...working.notes);
    if (lock.staleNote) warnings.push({ code: 'lock_taken_over', message: lock.staleNote });
    const { baseUrl, apiKey } = opts;
    if (!baseUrl || !apiKey) throw new FatalError('no source: pass --base-url and --api-key (or ENGAGE_BASE_URL / ENGAGE_API_KEY), or --emulator');
    const source = deps.sourceLabel ?? baseUrl;
    client = ApiClient.create({
      retryAdvice: RUN_RETRY_ADVICE,
      maxAttempts: opts.pipeline.retries.maxAttempts,
      maxRetryWaitMs: opts.pipeline.retries.maxWaitSeconds * 1000,
      ...deps.client,
      baseUrl,
      apiKey,
      ...(opts.maxWaitMs !== undefined ? { maxWaitMs: opts.maxWaitMs } : {}),
      ...(opts.maxInFlight !== undefined ? { maxInFlight: opts.maxInFlight } : {}),
      onEvent: (e) => {
        if (e.type === 'retry-scheduled') reporter.emit({ type: 'retry', endpoint: `${e.method} ${e.path}`, reason: e.reason, waitMs: e.waitMs, attempt: e.attempt });
        if (e.type === 'waiting') reporter.emit(waitingEvent(e));
        if (e.type === 'request-finished') {
          const { method, path, query, status, ms, attempt, pool, rateLimit, error } = e;
          reporter.emit({ type: 'request', method, path, query, status, ms, attempt, pool, rateLimit, ...(error !== undefined ? { error } : {}) });
        }
        deps.client?.onEvent?.(e);
      },
    });
    const stopping = client;
    // A signal that came while the lock was being taken has already fired: stop at once rather than never.
    if (deps.signal?.aborted) void stopping.close();
    else deps.signal?.addEventListener('abort', () => void stopping.close(), { once: true });
    // We hold the lock, so a run still logged as running was killed: close its entry instead of leaving it running forever.
    for (const abandoned of await wh.closeAbandonedRuns(new Date())) warnings.push({ code: 'abandoned_run_closed', message: `run ${abandoned} ended without recording its end (killed?); logged as failed` });
    await wh.beginRun({ runId, pipeline: opts.pipeline.name, startedAt: new Date(started), until: until.toJSDate() });
    reporter.emit({ type: 'run_started', runId, pipeline: opts.pipeline.name, until: until.toISO() ?? '', streams: [...opts.streams], source });

    if (opts.fullRefresh) {
      await wh.resetStreams([...opts.streams], tablesOf(opts.streams));
    }
    reporter.emit({ type: 'phase', phase: 'plan' });
    // `all` becomes ids: the workspace lists are read once, before the run is planned.
    const discovery = await discover({ pipeline: opts.pipeline, streams: opts.streams, client, wh, until: until.toJSDate() });
    warnings.push(...discovery.warnings);
    const streamFailed = (stream: StreamName, error: unknown) => {
      if (failures.has(stream)) return;
      failures.set(stream, error);
      reporter.emit({ type: 'warning', code: 'stream_failed', stream, message: `${stream} failed and keeps its previous rows: ${describeFailure(stream, error).error}` });
    };
    // A stream whose list could not be read fails alone before anything is fetched for it: it is not planned.
    for (const [stream, error] of discovery.failed) streamFailed(stream, error);
    const committer = new Committer(wh, runId, (result) => {
      const tables = Object.entries(result.tables).map(([table, c]) => ({ table, inserted: c.inserted, updated: c.updated, deleted: c.deleted }));
      for (const t of tables) {
        const sum = changes.get(t.table as TableName) ?? { inserted: 0, updated: 0, deleted: 0 };
        sum.inserted += t.inserted;
        sum.updated += t.updated;
        sum.deleted += t.deleted;
        changes.set(t.table as TableName, sum);
      }
      reporter.emit({ type: 'committed', tables });
    }, until.toJSDate());
    committed = committer;
    // Only a pipeline that says `all` has list rows to commit before fetching.
    if (discovery.rows.upserts.some((u) => u.rows.length > 0)) await committer.add({ ...discovery.rows, state: [], holes: [] });
    const plan = planRun({ ...opts, streams: opts.streams.filter((s) => !failures.has(s)) }, await readStoredPlanState(wh), discovery);
    const progress = new Map<string, StreamProgress>();
    const clock = new StreamClock(plan.streams);
    const tick = (stream: StreamName, requests: number, rows: number) => {
      const p = progress.get(stream)!;
      p.requestsDone += requests;
      // A paged list's page count is an estimate until its last page arrives.
      p.requestsPlanned = Math.max(p.requestsPlanned, p.requestsDone);
      p.rows += rows;
      reporter.emit({ type: 'progress', progress: { ...p } });
      const finished = clock.tick(stream, requests, rows);
      if (finished) reporter.emit({ type: 'stream_finished', ...finished });
    };
    const activeClient = client;
    const taskContext = {
      client: activeClient,
      committer,
      until,
      holeRetries: opts.pipeline.holeRetries,
      tick,
      warn: (warning: RunWarning) => warnings.push(warning),
      extraRequests: (n: number) => {
        followUps += n;
      },
      holes: (_stream: StreamName, _key: string, changes: readonly HoleUpdate[]) => {
        for (const h of changes) holeChanges.set(`${h.stream}\u0000${h.seriesKey}\u0000${h.unitStart.getTime()}`, h);
      },
    };
    const maxInFlight = activeClient.maxInFlight;
    const estimate = estimateDuration(plan.byPool, { ...(maxInFlight !== undefined ? { maxInFlight } : {}), pools: deps.client?.pools ?? {} });
    reporter.emit({ type: 'planned', streams: plan.streams.map(({ stream, series, requests, minimum }) => ({ stream, series, requests, minimum })), requests: plan.requests, byPool: plan.byPool, estimateMs: estimate.ms });
    for (const s of plan.streams) progress.set(s.stream, { stream: s.stream, requestsPlanned: s.requests, requestsDone: 0, rows: 0 });
    reporter.emit({ type: 'phase', phase: 'fetch' });
    for (const l of discovery.lists) tick(`discovery: ${l.listing}` as StreamName, l.pages, l.objects);
    const tasks = new TaskQueues();
    queueFetchTasks(plan, tasks, taskContext);
    // Each pool decides how many of its requests are in flight; its queue only needs that many workers to feed it.
    activeClient.limiter.expect(plan.byPool);
    // A fatal answer for the whole run (a 401) would meet the queued requests too: closing the client stops them before
    // they are sent. A stream's failure skips that stream's queued requests; the others go on.
    await tasks.run(maxInFlight ?? MAX_IN_FLIGHT, (error, stream) => {
      const scope = failureScope(error);
      if (scope === 'run' && error instanceof FatalError) void activeClient.close();
      if (scope === 'group') streamFailed(stream as StreamName, error);
      return scope;
    });
    for (const finished of clock.finishRest()) reporter.emit({ type: 'stream_finished', ...finished });
    await committer.drain();
    const reconciled: ReconciliationRow[] = [];
    for (const r of plan.reconciliations) {
      const stream = r.stream.name as StreamName;
      if (failures.has(stream)) continue;
      try {
        reconciled.push(...(await runReconciliations([r], {
          client: activeClient, wh, runId, until, from: opts.from ?? opts.pipeline.startDate, lookbackDays: opts.pipeline.lookbackDays,
          warn: (warning) => warnings.push(warning),
        })));
      } catch (error) {
        if (failureScope(error) === 'run') throw error;
        streamFailed(stream, error);
      }
      tick(stream, r.checks.length, 0);
    }
    reporter.emit({ type: 'phase', phase: 'commit' });
    await committer.drain();
    const failedStreams = [...failures].map(([stream, error]) => describeFailure(stream, error));
    // A stream that could not complete gets back what the last published run left it: what it committed in this run is
    // undone, so its tables, watermarks and holes are published as they were, and the next run resumes it from there.
    if (failedStreams.length > 0) await wh.restoreStreams([...failures.keys()], tablesOf([...failures.keys()]), snapshots.previousSnapshotPath(), runId);
    const holes = summarizeHoles([...holeChanges.values()].filter((h) => !failures.has(h.stream as StreamName)));
    if (holes.open > 0) {
      warnings.push({ code: 'units_missing', message: `${holes.open} unit(s) are still missing after this run (listed in the summary and by \`engage-etl status\`); the next runs ask for them again, up to hole_retries (${opts.pipeline.holeRetries}) times` });
    }
    for (const w of warnings) reporter.emit({ type: 'warning', ...w });

    reporter.emit({ type: 'phase', phase: 'export' });
    const lake = placeOfWorkspace(out.place, opts.pipeline.workspace);
    const moved = await workspaceMove(wh, opts.pipeline.workspace);
    const exported = await publishParquet(wh, lake, moved ? 'all' : 'dirty', reporter, warnings);
    if (moved) {
      await retireLayout(out.place, moved.from);
      warnings.push({ code: 'workspace_moved', message: `the Parquet of ${opts.db} moved from ${moved.from === undefined ? 'the layout without workspace' : `workspace=${moved.from}`} to workspace=${opts.pipeline.workspace ?? '(none)'} in ${out.place.description}: every partition was written anew and the old objects removed` });
    }
    await wh.setWorkspace(opts.pipeline.workspace);
    reporter.emit({ type: 'exported', files: exported.filesWritten, rows: exported.rowsWritten });
    await createAnalyticsViews(wh);

    const summary = await summarize(wh, {
      runId, opts, until, started, source, plan, changes, warnings, followUps, holes, reconciled, failedStreams,
      client: activeClient, parquet: exported,
    });
    const finishedAt = new Date();
    const failedError = failedStreams.length > 0 ? streamsFailedMessage(runId, failedStreams) : undefined;
    await wh.finishRun({ runId, finishedAt, status: summary.status, requests: summary.requests.sent, rowsChanged: sumChanges(changes), ...(failedError ? { error: failedError } : {}) });
    await wh.recordStreamOutcomes(runId, finishedAt, opts.streams.map((stream) => {
      const failure = failedStreams.find((f) => f.stream === stream);
      return { stream, status: failure ? 'failed' : 'succeeded', error: failure?.error ?? null };
    }));
    await publishDatabase(wh, lake, snapshots, opts, summary, reporter, warnings);
    await snapshots.writeLastRunNote({ runId, status: summary.status, startedAt: new Date(started).toISOString(), finishedAt: new Date().toISOString(), ...(failedError ? { error: failedError } : {}) });
    reporter.emit({ type: 'run_finished', runId, status: summary.status, seconds: summary.seconds, ...(failedError ? { error: failedError } : {}) });
    result = summary;
  } catch (caught) {
    const interrupted = deps.signal?.aborted === true;
    const err = interrupted ? new InterruptedError(`run ${runId} interrupted: what was fetched before was committed; run it again (without --full-refresh) to resume`, { cause: caught }) : caught;
    const message = err instanceof Error ? err.message : String(err);
    // What was fetched before the failure lands with its watermarks, so a resumed run does not fetch it again.
    await committed?.drain().catch(() => undefined);
    if (wh) {
      const status = interrupted ? 'interrupted' : 'failed';
      await wh.finishRun({ runId, finishedAt: new Date(), status, requests: client?.stats.requestsSent ?? 0, rowsChanged: sumChanges(changes), error: message }).catch(() => undefined);
      // The published file keeps the last successful run: `status` learns of this failure from the note.
      await snapshots.writeLastRunNote({ runId, status, startedAt: new Date(started).toISOString(), finishedAt: new Date().toISOString(), error: message }).catch(() => undefined);
    }
    for (const w of warnings) reporter.emit({ type: 'warning', ...w });
    reporter.emit({ type: 'run_finished', runId, status: interrupted ? 'interrupted' : 'failed', seconds: (Date.now() - started) / 1000, error: message });
    throw err instanceof EngageError ? err : new FatalError(`run ${runId} failed: ${message}`, { cause: err });
  } finally {
    await client?.close();
    await wh?.close();
    await lock.release().catch(() => undefined);
    await snapshots.close();
    await out.close();
    reporter.close();
  }
  if (result.failedStreams.length > 0) throw new StreamsFailedError(streamsFailedMessage(runId, result.failedStreams), result);
  return result;
}

/** The one line that tells a scheduler's log which streams failed, why, and that the rest was published. */
function streamsFailedMessage(runId: string, failed: readonly StreamFailure[]): string {
  const list = failed.map((f) => `${f.stream} (${f.error})`).join('; ');
  return `run ${runId} failed: ${failed.length} stream(s) could not complete and kept their previous rows and state: ${list}. ` +
    'Every other stream was committed and published; the next run retries the failed ones from their own watermarks';
}

/**
 * Where the run's results go, claimed before anything is fetched: the Parquet place (a folder checked writable, or a
 * bucket prefix listed once), the database's store and its lock. What was opened is closed again when a later step fails.
 */
async function claimDestinations(opts: RunOptions, command: string): Promise<{ out: OpenedPlace; snapshots: SnapshotStore; lock: DbLock }> {
  const workDir = opts.workDir ? { workDir: opts.workDir } : {};
  const out = await openPlace(opts.out, workDir);
  const snapshots = openSnapshotStore(opts.db, workDir);
  try {
    return { out, snapshots, lock: await snapshots.lock(command) };
  } catch (err) {
    await snapshots.close();
    await out.close();
    throw err;
  }
}

/**
 * Whether this run moves the database's Parquet to another workspace's layout: the pipeline's `workspace:` differs from
 * the one the database last exported as (databases that never exported have nothing to move).
 */
async function workspaceMove(wh: Warehouse, workspace: string | undefined): Promise<{ from: string | undefined } | undefined> {
  const recorded = await wh.workspace();
  if (recorded === workspace) return undefined;
  const [row] = await wh.query(`SELECT count(*) AS n FROM "_etl_runs" WHERE "status" IN ('succeeded', 'completed_with_holes', 'failed') AND "finished_at" IS NOT NULL`);
  return Number(row?.['n'] ?? 0) > 0 ? { from: recorded } : undefined;
}

/** Publish, first half: the partitions this run changed (every one when `scope` is all, and any repair) with their manifests, into the place. */
async function publishParquet(wh: Warehouse, place: Place, scope: 'dirty' | 'all', reporter: RunReporter, warnings: RunWarning[]): Promise<ExportSummary> {
  await wh.liftCommitLimits();
  const exported = await exportParquet(wh, place, { scope });
  for (const repair of exported.repaired) {
    const warning: RunWarning = { code: 'parquet_repaired', message: `repaired ${repair.table} in ${place.description} from DuckDB: ${repair.problems.join('; ')}` };
    warnings.push(warning);
    reporter.emit({ type: 'warning', ...warning });
  }
  crashPoint('export-done');
  return exported;
}

/**
 * Publish, second half, after the run's end is recorded (so the exported run log and the report show this run's
 * outcome): the bookkeeping tables' Parquet, the report, then the database itself — last, so a report that cannot be
 * written fails the run rather than leaving a published run without it.
 */
async function publishDatabase(wh: Warehouse, place: Place, snapshots: SnapshotStore, opts: RunOptions, summary: RunSummary, reporter: RunReporter, warnings: RunWarning[]): Promise<void> {
  await exportBookkeeping(wh, place);
  if (opts.pipeline.report) summary.report = (await writeReport(wh, opts.pipeline.report.path, { database: snapshots.description })).path;
  for (const note of (await snapshots.publish(wh)).notes) {
    warnings.push(note);
    reporter.emit({ type: 'warning', ...note });
  }
}

/** The warehouse tables of these streams, in registry order. */
export function tablesOf(streams: readonly StreamName[]): TableName[] {
  return [...new Set(streams.flatMap((s) => streamDeclaration(s).tables.map((t) => t.name as TableName)))];
}

/** Holes after the run from the changes it committed (the last change per unit counts). */
function summarizeHoles(changes: readonly HoleUpdate[]): HoleSummary {
  const units = changes
    .filter((h): h is HoleUpdate & { status: 'open' | 'confirmed_absent' } => h.status !== 'filled')
    .map((h) => ({ stream: h.stream, seriesKey: h.seriesKey, unitStart: h.unitStart.toISOString(), status: h.status, attempts: h.attempts, reason: h.reason }));
  return {
    open: units.filter((u) => u.status === 'open').length,
    filled: changes.filter((h) => h.status === 'filled').length,
    confirmedAbsent: units.filter((u) => u.status === 'confirmed_absent').length,
    units: units.slice(0, 50),
  };
}

function sumChanges(changes: Map<TableName, { inserted: number; updated: number; deleted: number }>): number {
  let n = 0;
  for (const c of changes.values()) n += c.inserted + c.updated + c.deleted;
  return n;
}

async function tableCounts(wh: Warehouse, tables: TableName[]): Promise<Partial<Record<TableName, number>>> {
  const out: Partial<Record<TableName, number>> = {};
  for (const t of tables) {
    const [row] = await wh.query(`SELECT count(*) AS n FROM "${t}"`);
    out[t] = Number(row?.['n'] ?? 0);
  }
  return out;
}

interface SummaryInput {
  runId: string;
  opts: RunOptions;
  until: DateTime;
  started: number;
  source: string;
  plan: Plan;
  changes: Map<TableName, { inserted: number; updated: number; deleted: number }>;
  warnings: RunWarning[];
  followUps: number;
  holes: HoleSummary;
  reconciled: readonly ReconciliationRow[];
  failedStreams: StreamFailure[];
  client: ApiClient;
  parquet: { filesWritten: number; filesRemoved: number; rowsWritten: number };
}

async function summarize(wh: Warehouse, s: SummaryInput): Promise<RunSummary> {
  const tables = tablesOf(s.opts.streams);
  const counts = await tableCounts(wh, tables);
  return {
    runId: s.runId,
    pipeline: s.opts.pipeline.name,
    status: s.failedStreams.length > 0 ? 'failed' : s.holes.open > 0 ? 'completed_with_holes' : 'succeeded',
    failedStreams: s.failedStreams,
    until: s.until.toISO() ?? '',
    source: s.source,
    db: s.opts.db,
    out: s.opts.out,
    seconds: Math.round((Date.now() - s.started) / 100) / 10,
    requests: {
      planned: s.plan.requests,
      minimum: s.plan.minimum,
      sent: s.client.stats.requestsSent,
      retries: s.client.stats.retries,
      followUps: s.followUps,
      byPool: s.plan.byPool,
    },
    tables: tables.map((table) => ({ table, rows: counts[table] ?? 0, ...(s.changes.get(table) ?? { inserted: 0, updated: 0, deleted: 0 }) })),
    holes: s.holes,
    reconciliation: {
      match: s.reconciled.filter((r) => r.status === 'match').length,
      mismatch: s.reconciled.filter((r) => r.status === 'mismatch').length,
      incomplete: s.reconciled.filter((r) => r.status === 'incomplete').length,
    },
    restatements: Number((await wh.query('SELECT count(*) AS n FROM "_etl_restatements" WHERE "run_id" = $1', [s.runId]))[0]?.['n'] ?? 0),
    parquet: { filesWritten: s.parquet.filesWritten, filesRemoved: s.parquet.filesRemoved, rowsWritten: s.parquet.rowsWritten },
    warnings: s.warnings,
  };
}
