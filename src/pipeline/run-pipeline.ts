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
import { assertWritableDir } from '../export/assert-writable-dir.js';
import { exportBookkeeping, exportParquet } from '../export/export-parquet.js';
import type { ReconciliationRow } from '../load/audit-store.js';
import { openWorkingCopy, publishSnapshot, snapshotFiles, writeLastRunNote } from '../load/published-snapshot.js';
import type { TableName } from '../load/table-specs.js';
import type { HoleUpdate, Warehouse } from '../load/warehouse.js';
import { crashPoint } from '../process/crash-point.js';
import { RunLock } from '../process/run-lock.js';
import type { StreamName } from '../streams/registry.js';
import { streamDeclaration } from '../streams/registry.js';
import { writeReport } from '../report/write-report.js';
import { createAnalyticsViews } from '../views/analytics-views.js';
import { Committer } from './committer.js';
import { discover } from './discover.js';
import { queueFetchTasks } from './fetch-tasks.js';
import type { Plan } from './plan.js';
import { estimateDuration } from './plan-estimate.js';
import { combinePlans, planRun, readStoredPlanState, runPhases } from './plan-for-run.js';
import { runReconciliations } from './reconcile.js';
import type { RunReporter, RunWarning, StreamProgress } from './run-events.js';
import { SILENT_REPORTER, waitingEvent } from './run-events.js';
import { StreamClock } from './stream-clock.js';
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
  /** 'completed_with_holes': every window was fetched but some units are still missing (the CLI exits 3). */
  status: 'succeeded' | 'completed_with_holes';
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

/** Runs the pipeline; resolves with the summary of a successful run and throws (after recording the failure) otherwise. */
export async function runPipeline(opts: RunOptions, deps: PipelineDeps = {}): Promise<RunSummary> {
  const reporter = deps.reporter ?? SILENT_REPORTER;
  const started = Date.now();
  const runId = `${DateTime.utc().toFormat("yyyyLLdd'T'HHmmss")}-${randomBytes(3).toString('hex')}`;
  const until = opts.until.toUTC();

  await assertWritableDir(opts.out);
  const lock = await RunLock.acquire(opts.db, { command: 'engage-etl run' });
  let wh: Warehouse | undefined;
  let client: ApiClient | undefined;
  const changes = new Map<TableName, { inserted: number; updated: number; deleted: number }>();
  const warnings: RunWarning[] = [];
  let followUps = 0;
  const holeChanges = new Map<string, HoleUpdate>();
  let committed: Committer | undefined;
  try {
    const working = await openWorkingCopy(opts.db);
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
    deps.signal?.addEventListener('abort', () => void stopping.close(), { once: true });
    // We hold the lock, so a run still logged as running was killed: close its entry instead of leaving it running forever.
    for (const abandoned of await wh.closeAbandonedRuns(new Date())) warnings.push({ code: 'abandoned_run_closed', message: `run ${abandoned} ended without recording its end (killed?); logged as failed` });
    await wh.beginRun({ runId, pipeline: opts.pipeline.name, startedAt: new Date(started), until: until.toJSDate() });
    reporter.emit({ type: 'run_started', runId, pipeline: opts.pipeline.name, until: until.toISO() ?? '', streams: [...opts.streams], source });

    if (opts.fullRefresh) {
      await wh.resetStreams([...opts.streams], tablesOf(opts.streams));
    }
    reporter.emit({ type: 'phase', phase: 'plan' });
    // `all` becomes ids: the workspace lists are read once, before any phase is planned.
    const discovery = await discover({ pipeline: opts.pipeline, streams: opts.streams, client, wh, until: until.toJSDate() });
    warnings.push(...discovery.warnings);
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
    const progress = new Map<string, StreamProgress>();
    // One clock per phase: a phase's streams start when it does.
    let clock = new StreamClock([]);
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
    // Streams whose stored values others read (custom_events for `events: all`) are loaded first; the rest is planned
    // from what they stored.
    const plans: Plan[] = [];
    for (const streams of runPhases(opts)) {
      const phaseOpts = { ...opts, streams };
      // The lists discovery read count in the first phase's plan only.
      const phaseDiscovery = plans.length === 0 ? discovery : { ...discovery, lists: [] };
      const phasePlan = planRun(phaseOpts, await readStoredPlanState(wh, phaseOpts), phaseDiscovery);
      plans.push(phasePlan);
      for (const s of phasePlan.streams) {
        if (s.reads && s.series === 0) {
          warnings.push({
            code: 'no_stored_values', stream: s.stream,
            message: `${s.stream} is built from the stored ${s.reads} and none is stored, so it loaded nothing; add the stream that fills ${s.reads.split('.')[0]} to the pipeline (e.g. custom_events: {}) or list the values in the options`,
          });
        }
      }
      const maxInFlight = activeClient.maxInFlight;
      const estimate = estimateDuration(phasePlan.byPool, { ...(maxInFlight !== undefined ? { maxInFlight } : {}), pools: deps.client?.pools ?? {} });
      reporter.emit({ type: 'planned', streams: phasePlan.streams.map(({ stream, series, requests, minimum }) => ({ stream, series, requests, minimum })), requests: phasePlan.requests, estimateMs: estimate.ms });
      for (const s of phasePlan.streams) progress.set(s.stream, { stream: s.stream, requestsPlanned: s.requests, requestsDone: 0, rows: 0 });
      reporter.emit({ type: 'phase', phase: 'fetch' });
      clock = new StreamClock(phasePlan.streams);
      for (const l of phaseDiscovery.lists) tick(`discovery: ${l.listing}` as StreamName, l.pages, l.objects);
      const tasks = new TaskQueues();
      queueFetchTasks(phasePlan, tasks, taskContext);
      // A fatal answer (401, 403, a refused parameter) would meet the queued requests too: closing the client stops them
      // before they are sent. After a retriable give-up the requests in flight may still succeed and commit; they finish.
      // Each pool decides how many of its requests are in flight; its queue only needs that many workers to feed it.
      activeClient.limiter.expect(phasePlan.byPool);
      await tasks.run(maxInFlight ?? MAX_IN_FLIGHT, (error) => {
        if (error instanceof FatalError) void activeClient.close();
      });
      for (const finished of clock.finishRest()) reporter.emit({ type: 'stream_finished', ...finished });
      await committer.drain();
    }
    const plan = combinePlans(plans);
    const reconciled = await runReconciliations(plan.reconciliations, {
      client: activeClient, wh, runId, until, from: opts.from ?? opts.pipeline.startDate, lookbackDays: opts.pipeline.lookbackDays,
      warn: (warning) => warnings.push(warning),
    });
    for (const r of plan.reconciliations) tick(r.stream.name as StreamName, r.checks.length, 0);
    reporter.emit({ type: 'phase', phase: 'commit' });
    await committer.drain();
    const holes = summarizeHoles([...holeChanges.values()]);
    if (holes.open > 0) {
      warnings.push({ code: 'units_missing', message: `${holes.open} unit(s) are still missing after this run (listed in the summary and by \`engage-etl status\`); the next runs ask for them again, up to hole_retries (${opts.pipeline.holeRetries}) times` });
    }
    for (const w of warnings) reporter.emit({ type: 'warning', ...w });

    reporter.emit({ type: 'phase', phase: 'export' });
    await wh.allowAnalyticsMemory();
    const exported = await exportParquet(wh, opts.out, { scope: 'dirty' });
    for (const repair of exported.repaired) {
      const warning: RunWarning = { code: 'parquet_repaired', message: `repaired ${repair.table} in ${opts.out} from DuckDB: ${repair.problems.join('; ')}` };
      warnings.push(warning);
      reporter.emit({ type: 'warning', ...warning });
    }
    crashPoint('export-done');
    reporter.emit({ type: 'exported', files: exported.filesWritten, rows: exported.rowsWritten });
    await createAnalyticsViews(wh);

    const summary = await summarize(wh, {
      runId, opts, until, started, source, plan, changes, warnings, followUps, holes, reconciled,
      client: activeClient, parquet: exported,
    });
    await wh.finishRun({ runId, finishedAt: new Date(), status: summary.status, requests: summary.requests.sent, rowsChanged: sumChanges(changes) });
    // After the run's end is recorded, so the exported run log and the report show this run's outcome; before the
    // publish, so a report that cannot be written fails the run rather than leaving a published run without it.
    await exportBookkeeping(wh, opts.out);
    if (opts.pipeline.report) summary.report = (await writeReport(wh, opts.pipeline.report.path, { database: snapshotFiles(opts.db).published })).path;
    for (const note of (await publishSnapshot(wh, opts.db)).notes) {
      warnings.push(note);
      reporter.emit({ type: 'warning', ...note });
    }
    await writeLastRunNote(opts.db, { runId, status: summary.status, startedAt: new Date(started).toISOString(), finishedAt: new Date().toISOString() });
    reporter.emit({ type: 'run_finished', runId, status: summary.status, seconds: summary.seconds });
    return summary;
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
      await writeLastRunNote(opts.db, { runId, status, startedAt: new Date(started).toISOString(), finishedAt: new Date().toISOString(), error: message }).catch(() => undefined);
    }
    for (const w of warnings) reporter.emit({ type: 'warning', ...w });
    reporter.emit({ type: 'run_finished', runId, status: interrupted ? 'interrupted' : 'failed', seconds: (Date.now() - started) / 1000, error: message });
    throw err instanceof EngageError ? err : new FatalError(`run ${runId} failed: ${message}`, { cause: err });
  } finally {
    await client?.close();
    await wh?.close();
    await lock.release();
    reporter.close();
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
  client: ApiClient;
  parquet: { filesWritten: number; filesRemoved: number; rowsWritten: number };
}

async function summarize(wh: Warehouse, s: SummaryInput): Promise<RunSummary> {
  const tables = tablesOf(s.opts.streams);
  const counts = await tableCounts(wh, tables);
  return {
    runId: s.runId,
    pipeline: s.opts.pipeline.name,
    status: s.holes.open > 0 ? 'completed_with_holes' : 'succeeded',
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
