// The fetch phase of a run: every planned request through one client, per-pool queues fed as the run's scheduler
// gives their rows room, rows committed with the watermarks and holes they allow as they arrive. A failing series stops only its own later windows (see
// stream-failure.ts); a spent time budget stops every request not yet started, and what is in flight finishes.
import type { DateTime } from 'luxon';
import type { ApiClient } from '../api/api-client.js';
import { MAX_IN_FLIGHT } from '../api/in-flight-window.js';
import { FatalError } from '../errors.js';
import type { TableName } from '../streams/table-specs.js';
import type { HoleUpdate } from '../load/warehouse.js';
import type { StreamName } from '../streams/registry.js';
import type { Committer } from './committer.js';
import type { Discovery } from './discover.js';
import type { FetchTaskContext } from './fetch-tasks.js';
import { queueFetchTasks } from './fetch-tasks.js';
import type { Plan } from './plan.js';
import { estimateDuration } from './plan-estimate.js';
import type { RunReporter, RunWarning, StreamProgress } from './run-events.js';
import type { RunScheduler } from './run-scheduler.js';
import type { TableChanges } from './run-summary.js';
import { StreamClock } from './stream-clock.js';
import type { SeriesFailure } from './stream-failure.js';
import { describeSeriesFailure, failureScope } from './stream-failure.js';
import { DeadlinePassed, TaskQueues } from './task-queues.js';
import { unknownIdFailures } from './unknown-ids.js';

export interface FetchInput {
  plan: Plan;
  discovery: Discovery;
  client: ApiClient;
  committer: Committer;
  until: DateTime;
  holeRetries: number;
  reporter: RunReporter;
  warnings: RunWarning[];
  /** The run's scheduler, the client's too: the pools' plan, the deadline, the room of the rows. */
  scheduler: RunScheduler;
  /** True once the run's time budget is spent: no request starts after. */
  budgetSpent: () => boolean;
  /** Milliseconds left of the time budget, or undefined without one. */
  budgetLeftMs: () => number | undefined;
}

export interface FetchOutcome {
  /** Series that failed (without a request, for an unknown id; or on a request), in the order met. */
  failures: SeriesFailure[];
  /** Requests not sent because the time budget was spent. */
  unstarted: number;
  followUps: number;
  holeChanges: HoleUpdate[];
}

/** Sums what each commit changed, per table, into `changes`, and tells the reporter. */
export function tallyCommits(changes: TableChanges, reporter: RunReporter): ConstructorParameters<typeof Committer>[2] {
  return (result) => {
    const tables = Object.entries(result.tables).map(([table, c]) => ({
      table,
      inserted: c.inserted,
      updated: c.updated,
      deleted: c.deleted,
    }));
    for (const t of tables) {
      const sum = changes.get(t.table as TableName) ?? { inserted: 0, updated: 0, deleted: 0 };
      sum.inserted += t.inserted;
      sum.updated += t.updated;
      sum.deleted += t.deleted;
      changes.set(t.table as TableName, sum);
    }
    reporter.emit({ type: 'committed', tables });
  };
}

export async function fetchAndCommit(input: FetchInput): Promise<FetchOutcome> {
  const { plan, client, reporter } = input;
  const failures: SeriesFailure[] = [];
  let followUps = 0;
  const holeChanges = new Map<string, HoleUpdate>();
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
  const context: FetchTaskContext = {
    client,
    committer: input.committer,
    until: input.until,
    holeRetries: input.holeRetries,
    tick,
    warn: (warning) => input.warnings.push(warning),
    extraRequests: (n) => {
      followUps += n;
    },
    detailsDue: input.discovery.detailsDue,
    holes: (_stream, _key, changes) => {
      for (const h of changes) holeChanges.set(`${h.stream}\u0000${h.seriesKey}\u0000${h.unitStart.getTime()}`, h);
    },
  };
  const { scheduler } = input;
  const { maxInFlight } = scheduler;
  const estimate = estimateDuration(plan.byPool, {
    ...(maxInFlight !== undefined ? { maxInFlight } : {}),
    pools: scheduler.pools,
  });
  reporter.emit({
    type: 'planned',
    streams: plan.streams.map(({ stream, series, requests, minimum }) => ({ stream, series, requests, minimum })),
    requests: plan.requests,
    byPool: plan.byPool,
    estimateMs: estimate.ms,
  });
  for (const s of plan.streams)
    progress.set(s.stream, { stream: s.stream, requestsPlanned: s.requests, requestsDone: 0, rows: 0 });
  reporter.emit({ type: 'phase', phase: 'fetch' });
  for (const l of plan.discovery) tick(`discovery: ${l.listing}` as StreamName, l.pages, l.objects);

  // An id the lists just read do not have costs its series, and no request.
  const unknown = unknownIdFailures(plan.series, input.discovery);
  for (const [sp, failure] of unknown) {
    failures.push(failure);
    tick(sp.stream.name as StreamName, sp.cursor.windowCount, 0);
  }
  const tasks = new TaskQueues();
  queueFetchTasks({ ...plan, series: plan.series.filter((sp) => !unknown.has(sp)) }, tasks, context);
  // Each pool decides how many of its requests are in flight; its queue only needs that many workers to feed it.
  scheduler.expect(plan.byPool);
  // A fatal answer for the whole run (a 401) would meet the queued requests too: closing the client stops them before
  // they are sent. A failing series skips its own queued windows; the others go on.
  // Tasks wait in the scheduler for their pool's window or in-flight slot: when the budget is spent, those still
  // waiting are let go without sending (the queues count them as not started), and no queued task starts.
  const left = input.budgetLeftMs();
  const deadline =
    left === undefined ? undefined : setTimeout(() => scheduler.rejectWaiting(new DeadlinePassed()), Math.max(0, left));
  let outcome;
  try {
    outcome = await tasks.run(
      maxInFlight ?? MAX_IN_FLIGHT,
      (error, group) => {
        const scope = failureScope(error);
        if (scope === 'run' && error instanceof FatalError) void client.close();
        if (scope !== 'run')
          reporter.emit({
            type: 'warning',
            code: 'series_failed',
            stream: group.stream,
            message: `${group.stream} ${group.key} failed; its later windows are not sent and what it fetched before stays: ${error instanceof Error ? error.message : String(error)}`,
          });
        return scope;
      },
      input.budgetSpent,
      () => scheduler.rowRoom(),
    );
  } finally {
    clearTimeout(deadline);
  }
  for (const { group, error } of outcome.failed.values()) failures.push(describeSeriesFailure(group, error));
  for (const finished of clock.finishRest()) reporter.emit({ type: 'stream_finished', ...finished });
  await input.committer.drain();
  return { failures, unstarted: outcome.unstarted, followUps, holeChanges: [...holeChanges.values()] };
}
