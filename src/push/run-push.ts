// One push, end to end: take the database's run lock, read the source, plan against the ledger, then send batch after
// batch — each answered request checkpointed in the ledger before the next — and log the run and every row outcome.
import { randomBytes } from 'node:crypto';
import { ApiClient } from '../api/api-client.js';
import type { ApiClientOptions } from '../api/api-client-options.js';
import type { PoolWait } from '../api/limit-pool.js';
import { RequestScheduler } from '../api/request-scheduler.js';
import { ConfigError, FatalError, RetriableApiError } from '../errors.js';
import { openSnapshotStore } from '../store/open-snapshot-store.js';
import type { Warehouse } from '../load/warehouse.js';
import type { PoolId } from '../api/endpoints.js';
import { batchRows, sendBatch } from './batch-sender.js';
import type { DryRunReport } from './dry-run-report.js';
import { buildDryRunReport } from './dry-run-report.js';
import type { LedgerEntry, LedgerWrite, PushRunCounts } from './push-ledger.js';
import { PushLedger, ledgerKey } from './push-ledger.js';
import type { PushOptions } from './push-options.js';
import type { PushPlan } from './push-plan.js';
import { planPush } from './push-plan.js';
import type { PlannedRow, RowOutcome, RowStatus, TargetContext } from './push-target.js';
import { hashValues } from './row-values.js';
import { describeSource, readSourceRows } from './row-source.js';
import { PUSH_TARGETS } from './target-registry.js';

/** A row that did not reach the platform's acceptance, for the summary (all of them are in `_push_log`). */
export interface FailedRow {
  /** Source position; null for --mirror unsubscribes. */
  index: number | null;
  destination: string | null;
  key: string | null;
  status: Exclude<RowStatus, 'accepted'>;
  error: string;
  /** True for a refusal recorded by an earlier push whose row did not change since (not sent again). */
  earlier?: boolean;
}

/** The run's counts as `_push_runs` records them (`requests`: put on the wire, retries included), and what the CLI shows. */
export interface PushSummary extends PushRunCounts {
  runId: string;
  target: string;
  /** succeeded: every row accepted or unchanged; partial: some rows failed (exit code 3). */
  status: 'succeeded' | 'partial';
  source: string;
  /** Rejected or invalid before, unchanged since: not sent (counted apart from this run's rejections). */
  rowsStillRefused: number;
  seconds: number;
  /** Failed rows, at most MAX_LISTED_FAILURES; the rest are in `_push_log`. */
  failures: FailedRow[];
  /** Why sending stopped early (retries exhausted), when it did: the rows not sent are transient. */
  stoppedEarly?: string;
}

export type PushResult = { kind: 'dry-run'; report: DryRunReport } | { kind: 'push'; summary: PushSummary };

/** Progress of a push: one event per answered batch (splits included), for the CLI's progress lines. */
export interface PushProgress {
  batch: number;
  batches: number;
  rows: number;
  accepted: number;
  failed: number;
}

export interface PushHooks {
  onProgress?: (progress: PushProgress) => void;
  /**
   * Client settings beyond URL and credentials (tests inject a fetch or a clock).
   * @default {} (the ApiClient defaults: 6 attempts, 30 s timeout)
   */
  client?: Partial<Omit<ApiClientOptions, 'baseUrl' | 'apiKey' | 'scimToken' | 'requestOrigin' | 'scheduler'>>;
  /** Told of each wait of a limit pool long enough to announce. @default none */
  onWait?: (wait: PoolWait) => void;
  /** @default a new id: push-<ISO time>-<random> */
  runId?: string;
}

export const MAX_LISTED_FAILURES = 100;

function newRunId(now: Date): string {
  return `push-${now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}-${randomBytes(3).toString('hex')}`;
}

/** Run one push (or dry run). Throws ConfigError / FatalError / LockedError for what stops it as a whole (exit 1). */
export async function runPush(opts: PushOptions, hooks: PushHooks = {}): Promise<PushResult> {
  const snapshots = await openSnapshotStore(opts.db);
  try {
    const lock = await snapshots.lock(`engage-etl push ${opts.target}`);
    try {
      const { warehouse } = await snapshots.openWorkingCopy();
      try {
        const result = await pushWith(warehouse, opts, hooks);
        // The ledger, the run and row logs are read from --db too; a dry run wrote nothing, so nothing is published.
        if (result.kind === 'push') await snapshots.publish(warehouse);
        return result;
      } finally {
        await warehouse.close();
      }
    } finally {
      await lock.release();
    }
  } finally {
    await snapshots.close();
  }
}

async function pushWith(warehouse: Warehouse, opts: PushOptions, hooks: PushHooks): Promise<PushResult> {
  const started = new Date();
  const target = PUSH_TARGETS[opts.target];
  const ctx: TargetContext = { mapping: opts.mapping, bulk: false };
  const sourceText = describeSource(opts.source);
  const source = await readSourceRows(warehouse, opts.source);
  const columnsProblem = target.columnsProblem(source.columns, ctx);
  if (columnsProblem) throw new ConfigError(`--${opts.source.kind}`, columnsProblem);

  // The mapping: what turns columns into request bodies. Changing any of it resets the ledger for this target.
  const mappingHash = hashValues({
    target: opts.target,
    columns: [...source.columns].sort(),
    inc: [...opts.mapping.incColumns],
    update: opts.mapping.update,
    catalog: opts.mapping.catalog ?? null,
  });
  const runId = hooks.runId ?? newRunId(started);
  const ledger = new PushLedger(warehouse, opts.target, runId);
  const entries = await ledger.load();
  const plan = planPush(target, source, entries, ctx, { mappingHash, mirror: opts.mirror });
  ctx.bulk = plan.planned.length > opts.batchSize;
  const batches = batchRows(target, ctx, plan.planned, opts.batchSize);
  const refusal =
    opts.maxRows !== undefined && plan.planned.length > opts.maxRows
      ? `${plan.planned.length} rows would be sent, more than --max-rows ${opts.maxRows}; check the query, or raise --max-rows`
      : undefined;

  if (opts.dryRun) {
    return {
      kind: 'dry-run',
      report: buildDryRunReport({ target, ctx, source: sourceText, plan, batches, ...(refusal ? { refusal } : {}) }),
    };
  }
  if (refusal) throw new ConfigError('--max-rows', refusal);

  // The push's own scheduler: the spec's pools, with --max-wait and --max-in-flight.
  const scheduler = RequestScheduler.create({
    ...(opts.maxWaitMs !== undefined ? { maxWaitMs: opts.maxWaitMs } : {}),
    ...(opts.maxInFlight !== undefined ? { maxInFlight: opts.maxInFlight } : {}),
    ...(hooks.onWait ? { onWait: hooks.onWait } : {}),
  });
  const client = ApiClient.create({
    ...hooks.client,
    scheduler,
    baseUrl: opts.baseUrl ?? '',
    // The SCIM target authenticates with the SCIM token only; the client still wants a key, which is never sent then.
    apiKey: opts.apiKey ?? 'scim-only-no-rest-key',
    // push has no retry settings of its own: what helps is pushing again, which resends only the rows not accepted.
    retryAdvice: 'push again later (rows already accepted are not sent again)',
    ...(opts.scimToken !== undefined ? { scimToken: opts.scimToken } : {}),
    ...(opts.requestOrigin !== undefined ? { requestOrigin: opts.requestOrigin } : {}),
  });
  const counts: PushRunCounts = {
    rowsRead: plan.rowsRead,
    rowsUnchanged: plan.unchanged,
    rowsAccepted: 0,
    rowsRejected: 0,
    rowsInvalid: plan.invalid.length,
    rowsTransient: 0,
    requests: 0,
  };
  const failures: FailedRow[] = [];
  const fail = (row: FailedRow): void => {
    if (failures.length < MAX_LISTED_FAILURES) failures.push(row);
  };
  await ledger.beginRun({ startedAt: started, mappingHash, source: sourceText, dryRun: false });
  try {
    await recordInvalid(ledger, plan, entries, runId, mappingHash);
    for (const r of plan.invalid)
      fail({
        index: r.index,
        destination: r.destination ?? null,
        key: r.key ?? null,
        status: 'invalid',
        error: r.error,
      });
    for (const r of plan.stillRefused)
      fail({ index: r.index, destination: r.destination, key: r.key, status: r.status, error: r.error, earlier: true });

    // Like a run, a push that needs more of a pool than its budget spreads its requests at the pool's rate.
    const perPool: Partial<Record<PoolId, number>> = {};
    for (const batch of batches) {
      const pool = target.call(batch, ctx).endpoint.pool;
      perPool[pool] = (perPool[pool] ?? 0) + 1;
    }
    scheduler.expect(perPool);
    let stoppedEarly: string | undefined;
    for (const [i, batch] of batches.entries()) {
      if (stoppedEarly !== undefined) {
        await markNotSent(ledger, batch, stoppedEarly, counts, fail);
        continue;
      }
      const done = new Set<PlannedRow>();
      const tally = async (outcomes: RowOutcome[]): Promise<void> => {
        await ledger.record(outcomes.map((o) => toWrite(o, entries, runId, mappingHash)));
        for (const o of outcomes) {
          done.add(o.row);
          if (o.status === 'accepted') {
            counts.rowsAccepted++;
            continue;
          }
          if (o.status === 'rejected') counts.rowsRejected++;
          else counts.rowsTransient++;
          fail({
            index: o.row.index,
            destination: o.row.destination,
            key: o.row.key,
            status: o.status,
            error: o.error ?? o.status,
          });
        }
      };
      try {
        await sendBatch(client, target, ctx, batch, async (outcomes) => {
          await tally(outcomes);
          const accepted = outcomes.filter((o) => o.status === 'accepted').length;
          hooks.onProgress?.({
            batch: i + 1,
            batches: batches.length,
            rows: outcomes.length,
            accepted,
            failed: outcomes.length - accepted,
          });
        });
      } catch (error) {
        if (!(error instanceof RetriableApiError)) throw error;
        stoppedEarly = `sending stopped at batch ${i + 1} of ${batches.length}: ${error.message}`;
        await tally(
          batch.filter((r) => !done.has(r)).map((row) => ({ row, status: 'transient', error: error.message })),
        );
      }
    }
    counts.requests = client.stats.requestsSent;
    const clean = counts.rowsRejected + counts.rowsInvalid + counts.rowsTransient + plan.stillRefused.length === 0;
    await ledger.finishRun(clean ? 'succeeded' : 'partial', counts, stoppedEarly);
    return {
      kind: 'push',
      summary: {
        runId,
        target: opts.target,
        status: clean ? 'succeeded' : 'partial',
        source: sourceText,
        rowsRead: counts.rowsRead,
        rowsUnchanged: counts.rowsUnchanged,
        rowsAccepted: counts.rowsAccepted,
        rowsRejected: counts.rowsRejected,
        rowsInvalid: counts.rowsInvalid,
        rowsTransient: counts.rowsTransient,
        rowsStillRefused: plan.stillRefused.length,
        requests: counts.requests,
        seconds: Math.round((Date.now() - started.getTime()) / 100) / 10,
        failures,
        ...(stoppedEarly ? { stoppedEarly } : {}),
      },
    };
  } catch (error) {
    counts.requests = client.stats.requestsSent;
    const message = error instanceof Error ? error.message : String(error);
    await ledger.finishRun('failed', counts, message).catch(() => undefined);
    throw error instanceof FatalError || error instanceof ConfigError
      ? error
      : new FatalError(`push ${runId} failed: ${message}`, { cause: error });
  } finally {
    await client.close();
    scheduler.close();
  }
}

/** The ledger entry an outcome leads to: acceptance moves the acknowledged values; anything else keeps them. */
function toWrite(
  outcome: RowOutcome,
  entries: Map<string, LedgerEntry>,
  runId: string,
  mappingHash: string,
): LedgerWrite {
  const { row, status } = outcome;
  const id = ledgerKey(row.destination, row.key);
  const stored = entries.get(id);
  const before = stored && stored.mappingHash === mappingHash ? stored : undefined;
  const entry: LedgerEntry =
    status === 'accepted'
      ? {
          destination: row.destination,
          key: row.key,
          status,
          ackedValues: row.values,
          ackedHash: row.hash,
          attemptedHash: row.hash,
          error: undefined,
          attempts: (before?.attempts ?? 0) + 1,
          runId,
          mappingHash,
        }
      : {
          destination: row.destination,
          key: row.key,
          status,
          ackedValues: before?.ackedValues,
          ackedHash: before?.ackedHash,
          attemptedHash: row.hash,
          error: outcome.error,
          attempts: (before?.attempts ?? 0) + 1,
          runId,
          mappingHash,
        };
  entries.set(id, entry);
  return { entry, rowIndex: row.index, operation: row.operation };
}

/** Invalid rows with an identity get a ledger entry (so an unchanged invalid row is not re-reported as new); all are logged. */
async function recordInvalid(
  ledger: PushLedger,
  plan: PushPlan,
  entries: Map<string, LedgerEntry>,
  runId: string,
  mappingHash: string,
): Promise<void> {
  const writes: LedgerWrite[] = [];
  const keyless: { rowIndex: number; error: string }[] = [];
  for (const r of plan.invalid) {
    if (r.destination === undefined || r.key === undefined || r.hash === undefined) {
      keyless.push({ rowIndex: r.index, error: r.error });
      continue;
    }
    const stored = entries.get(ledgerKey(r.destination, r.key));
    const before = stored && stored.mappingHash === mappingHash ? stored : undefined;
    const entry: LedgerEntry = {
      destination: r.destination,
      key: r.key,
      status: 'invalid',
      ackedValues: before?.ackedValues,
      ackedHash: before?.ackedHash,
      attemptedHash: r.hash,
      error: r.error,
      attempts: before?.attempts ?? 0,
      runId,
      mappingHash,
    };
    writes.push({ entry, rowIndex: r.index, operation: null });
  }
  await ledger.record(writes, keyless);
}

/** Rows of batches never sent because sending stopped: logged as transient, their ledger entries left as they were. */
async function markNotSent(
  ledger: PushLedger,
  batch: readonly PlannedRow[],
  why: string,
  counts: PushRunCounts,
  fail: (row: FailedRow) => void,
): Promise<void> {
  const error = `not sent: ${why}`;
  await ledger.logOnly(
    batch.map((row) => ({
      destination: row.destination,
      key: row.key,
      rowIndex: row.index,
      operation: row.operation,
      status: 'transient' as const,
      error,
    })),
  );
  counts.rowsTransient += batch.length;
  for (const row of batch)
    fail({ index: row.index, destination: row.destination, key: row.key, status: 'transient', error });
}
