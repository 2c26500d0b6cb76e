// The second phase of a run: open the working copy of the database, connect the client to the source, close the log
// entries of runs that were killed, and log this run as started (forgetting the streams a full refresh reloads).
import type { DateTime } from 'luxon';
import { ApiClient } from '../api/api-client.js';
import type { RequestScheduler } from '../api/request-scheduler.js';
import { RUN_RETRY_ADVICE } from '../config/retry-limits.js';
import type { RunOptions } from '../config/run-options.js';
import { FatalError } from '../errors.js';
import type { SnapshotStore } from '../store/snapshot-store.js';
import { RunLog } from '../load/run-log.js';
import { SeriesStateStore } from '../load/series-state-store.js';
import type { Warehouse } from '../load/warehouse.js';
import type { PipelineDeps } from './pipeline-deps.js';
import type { RunReporter, RunWarning } from './run-events.js';
import { tablesOf } from './stream-tables.js';

export interface StartedRun {
  wh: Warehouse;
  client: ApiClient;
  /** What to call the source in the summary. */
  source: string;
}

/**
 * Opens the working copy (handed to `opened` at once, so the caller closes it whatever fails next) and the client, which
 * is handed the run's scheduler.
 */
export async function startRun(
  opts: RunOptions,
  deps: PipelineDeps,
  snapshots: SnapshotStore,
  run: {
    runId: string;
    started: number;
    until: DateTime;
    reporter: RunReporter;
    warnings: RunWarning[];
    staleLockNote: string | undefined;
    scheduler: RequestScheduler;
  },
  opened: (parts: Partial<StartedRun>) => void,
): Promise<StartedRun> {
  const { reporter, warnings } = run;
  const working = await snapshots.openWorkingCopy();
  const wh = working.warehouse;
  opened({ wh });
  warnings.push(...working.notes);
  if (run.staleLockNote) warnings.push({ code: 'lock_taken_over', message: run.staleLockNote });
  const { baseUrl, apiKey } = opts;
  if (!baseUrl || !apiKey)
    throw new FatalError(
      'no source: pass --base-url and --api-key (or ENGAGE_BASE_URL / ENGAGE_API_KEY), or --emulator',
    );
  const source = deps.sourceLabel ?? baseUrl;
  const client = ApiClient.create({
    retryAdvice: RUN_RETRY_ADVICE,
    maxAttempts: opts.pipeline.retries.maxAttempts,
    maxRetryWaitMs: opts.pipeline.retries.maxWaitSeconds * 1000,
    maxPages: opts.pipeline.maxListPages,
    ...deps.client,
    baseUrl,
    apiKey,
    scheduler: run.scheduler,
    onEvent: (e) => {
      if (e.type === 'retry-scheduled')
        reporter.emit({
          type: 'retry',
          endpoint: `${e.method} ${e.path}`,
          reason: e.reason,
          waitMs: e.waitMs,
          attempt: e.attempt,
        });
      if (e.type === 'request-finished') {
        const { method, path, query, status, ms, attempt, pool, rateLimit, error } = e;
        reporter.emit({
          type: 'request',
          method,
          path,
          query,
          status,
          ms,
          attempt,
          pool,
          rateLimit,
          ...(error !== undefined ? { error } : {}),
        });
      }
      deps.client?.onEvent?.(e);
    },
  });
  opened({ wh, client });
  // A signal that came while the lock was being taken has already fired: stop at once rather than never.
  if (deps.signal?.aborted) void client.close();
  else deps.signal?.addEventListener('abort', () => void client.close(), { once: true });
  // We hold the lock, so a run still logged as running was killed: close its entry instead of leaving it running forever.
  const runLog = new RunLog(wh);
  for (const abandoned of await runLog.closeAbandoned(new Date()))
    warnings.push({
      code: 'abandoned_run_closed',
      message: `run ${abandoned} ended without recording its end (killed?); logged as failed`,
    });
  await runLog.begin({
    runId: run.runId,
    pipeline: opts.pipeline.name,
    startedAt: new Date(run.started),
    until: run.until.toJSDate(),
  });
  reporter.emit({
    type: 'run_started',
    runId: run.runId,
    pipeline: opts.pipeline.name,
    until: run.until.toISO() ?? '',
    streams: [...opts.streams],
    source,
  });
  if (opts.fullRefresh) await new SeriesStateStore(wh).resetStreams([...opts.streams], tablesOf(opts.streams));
  return { wh, client, source };
}
