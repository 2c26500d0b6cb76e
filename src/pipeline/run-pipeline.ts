// run(definition): plan → extract → load → export. Takes the normalized RunOptions, holds the database lock for the whole
// run, fetches every planned window through one ApiClient, commits rows and watermarks together, and publishes Parquet.
import { randomBytes } from 'node:crypto';
import { DateTime } from 'luxon';
import { ApiClient } from '../api/api-client.js';
import type { ApiClientOptions } from '../api/api-client-options.js';
import type { PoolId } from '../api/endpoints.js';
import { RUN_RETRY_ADVICE } from '../config/retry-limits.js';
import type { RunOptions } from '../config/run-options.js';
import type { StreamName } from '../config/pipeline-definition.js';
import type { Emulator, EmulatorOptions } from '../emulator/server.js';
import { createEmulator } from '../emulator/server.js';
import { EngageError, FatalError, InterruptedError } from '../errors.js';
import { assertWritableDir } from '../export/assert-writable-dir.js';
import { exportParquet } from '../export/export-parquet.js';
import { crashPoint } from '../load/crash-point.js';
import { RunLock } from '../load/run-lock.js';
import type { TableName } from '../load/table-specs.js';
import { Warehouse } from '../load/warehouse.js';
import { Committer } from './committer.js';
import { queueFetchTasks } from './fetch-tasks.js';
import type { Plan } from './plan.js';
import { estimateDuration } from './plan-estimate.js';
import { planRun, readStoredPlanState } from './plan-for-run.js';
import type { RunReporter, RunWarning, StreamProgress } from './run-events.js';
import { SILENT_REPORTER } from './run-events.js';
import { StreamClock } from './stream-clock.js';
import { STREAM_TABLES } from './stream-tables.js';
import { TaskQueues } from './task-queues.js';

/** Workers per limit pool; matches the client's default cap on requests in flight. */
const DEFAULT_CONCURRENCY = 8;

export interface PipelineDeps {
  /** Where progress goes. @default SILENT_REPORTER */
  reporter?: RunReporter;
  /** Client settings beyond base URL and key (tests and the benchmark scale pools, concurrency, timeouts). @default {} */
  client?: Partial<Omit<ApiClientOptions, 'baseUrl' | 'apiKey'>>;
  /** Settings of the in-process emulator used with `--emulator`. @default { seed: 1 } */
  emulator?: EmulatorOptions;
  /** Aborting it (Ctrl-C) stops the run like a fatal answer: what was fetched is committed, the run is logged 'interrupted'. @default none */
  signal?: AbortSignal;
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
  status: 'succeeded' | 'failed';
  until: string;
  source: string;
  db: string;
  out: string;
  seconds: number;
  requests: { planned: number; minimum: number; sent: number; retries: number; followUps: number; byPool: Partial<Record<PoolId, number>> };
  tables: TableSummary[];
  parquet: { filesWritten: number; filesRemoved: number; rowsWritten: number };
  warnings: RunWarning[];
  error?: string;
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
  let emulator: Emulator | undefined;
  let client: ApiClient | undefined;
  const changes = new Map<TableName, { inserted: number; updated: number; deleted: number }>();
  const warnings: RunWarning[] = [];
  let followUps = 0;
  let plan: Plan | undefined;
  let committed: Committer | undefined;
  try {
    wh = await Warehouse.open(opts.db);
    if (lock.tookOverStale) warnings.push({ code: 'lock_taken_over', message: `took over a stale lock of a run that no longer exists (pid ${lock.tookOverFrom?.pid ?? '?'})` });
    let baseUrl = opts.baseUrl;
    let apiKey = opts.apiKey;
    if (opts.emulator) {
      emulator = await createEmulator({ seed: 1, ...deps.emulator });
      baseUrl = emulator.url;
      apiKey ??= emulator.demoApiKey;
    }
    if (!baseUrl || !apiKey) throw new FatalError('no source: pass --base-url and --api-key (or ENGAGE_BASE_URL / ENGAGE_API_KEY), or --emulator');
    const source = opts.emulator ? 'built-in emulator' : baseUrl;
    client = ApiClient.create({
      retryAdvice: RUN_RETRY_ADVICE,
      maxAttempts: opts.pipeline.retries.maxAttempts,
      maxRetryWaitMs: opts.pipeline.retries.maxWaitSeconds * 1000,
      ...deps.client,
      baseUrl,
      apiKey,
      onEvent: (e) => {
        if (e.type === 'retry-scheduled') reporter.emit({ type: 'retry', endpoint: `${e.method} ${e.path}`, reason: e.reason, waitMs: e.waitMs, attempt: e.attempt });
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
      await wh.resetStreams([...opts.streams], opts.streams.flatMap((s) => STREAM_TABLES[s]));
    }
    reporter.emit({ type: 'phase', phase: 'plan' });
    plan = planRun(opts, await readStoredPlanState(wh));
    const estimate = estimateDuration(plan.byPool, { concurrency: deps.client?.concurrency ?? DEFAULT_CONCURRENCY, pools: deps.client?.pools ?? {} });
    reporter.emit({ type: 'planned', streams: plan.streams.map(({ stream, series, requests, minimum }) => ({ stream, series, requests, minimum })), requests: plan.requests, estimateMs: estimate.ms });

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
    });
    committed = committer;
    const progress = new Map<string, StreamProgress>(plan.streams.map((s) => [s.stream, { stream: s.stream, requestsPlanned: s.requests, requestsDone: 0, rows: 0 }]));
    reporter.emit({ type: 'phase', phase: 'fetch' });
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
    const tasks = new TaskQueues();
    queueFetchTasks(plan, tasks, {
      client: activeClient,
      committer,
      pipeline: opts.pipeline,
      until,
      tick,
      warn: (warning) => warnings.push(warning),
      followUps: (n) => {
        followUps += n;
      },
    });

    // A fatal answer (401, 403, a refused parameter) would meet the queued requests too: closing the client stops them
    // before they are sent. After a retriable give-up the requests in flight may still succeed and commit; they finish.
    await tasks.run(deps.client?.concurrency ?? DEFAULT_CONCURRENCY, (error) => {
      if (error instanceof FatalError) void activeClient.close();
    });
    for (const finished of clock.finishRest()) reporter.emit({ type: 'stream_finished', ...finished });
    reporter.emit({ type: 'phase', phase: 'commit' });
    await committer.drain();
    for (const w of warnings) reporter.emit({ type: 'warning', ...w });

    reporter.emit({ type: 'phase', phase: 'export' });
    const exported = await exportParquet(wh, opts.out, { scope: 'dirty' });
    crashPoint('export-done');
    reporter.emit({ type: 'exported', files: exported.filesWritten, rows: exported.rowsWritten });

    const summary = await summarize(wh, {
      runId, opts, until, started, source, plan, changes, warnings, followUps,
      client: activeClient, parquet: exported,
    });
    await wh.finishRun({ runId, finishedAt: new Date(), status: 'succeeded', requests: summary.requests.sent, rowsChanged: sumChanges(changes) });
    reporter.emit({ type: 'run_finished', runId, status: 'succeeded', seconds: summary.seconds });
    return summary;
  } catch (caught) {
    const interrupted = deps.signal?.aborted === true;
    const err = interrupted ? new InterruptedError(`run ${runId} interrupted: what was fetched before was committed; run it again (without --full-refresh) to resume`, { cause: caught }) : caught;
    const message = err instanceof Error ? err.message : String(err);
    // What was fetched before the failure lands with its watermarks, so a resumed run does not fetch it again.
    await committed?.drain().catch(() => undefined);
    if (wh) {
      await wh.finishRun({ runId, finishedAt: new Date(), status: interrupted ? 'interrupted' : 'failed', requests: client?.stats.requestsSent ?? 0, rowsChanged: sumChanges(changes), error: message }).catch(() => undefined);
    }
    for (const w of warnings) reporter.emit({ type: 'warning', ...w });
    reporter.emit({ type: 'run_finished', runId, status: interrupted ? 'interrupted' : 'failed', seconds: (Date.now() - started) / 1000, error: message });
    throw err instanceof EngageError ? err : new FatalError(`run ${runId} failed: ${message}`, { cause: err });
  } finally {
    await client?.close();
    await emulator?.close();
    await wh?.close();
    await lock.release();
    reporter.close();
  }
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
  client: ApiClient;
  parquet: { filesWritten: number; filesRemoved: number; rowsWritten: number };
}

async function summarize(wh: Warehouse, s: SummaryInput): Promise<RunSummary> {
  const tables = [...new Set(s.opts.streams.flatMap((stream) => STREAM_TABLES[stream]))];
  const counts = await tableCounts(wh, tables);
  return {
    runId: s.runId,
    pipeline: s.opts.pipeline.name,
    status: 'succeeded',
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
    parquet: { filesWritten: s.parquet.filesWritten, filesRemoved: s.parquet.filesRemoved, rowsWritten: s.parquet.rowsWritten },
    warnings: s.warnings,
  };
}
