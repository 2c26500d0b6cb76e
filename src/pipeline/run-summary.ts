// What a run reports when it ends: the summary the CLI prints (and `--json` carries), built from what the phases did.
import { unfilledViews, type UnfilledView } from '../views/unfilled-views.js';
import type { DateTime } from 'luxon';
import type { ApiClient } from '../api/api-client.js';
import type { PoolId } from '../api/endpoints.js';
import type { RunOptions } from '../config/run-options.js';
import { restatementsOfRun } from '../load/audit-store.js';
import type { ReconciliationRow } from '../load/audit-store.js';
import { rowCount } from '../load/stored-tables.js';
import type { TableName } from '../streams/table-specs.js';
import { tableSpec } from '../streams/table-specs.js';
import { HISTORY_SUFFIX, historyTableName } from '../load/table-history.js';
import type { HoleUpdate, Warehouse } from '../load/warehouse.js';
import type { BackfillProgress } from '../load/backfill-store.js';
import type { Plan } from './plan.js';
import type { RunWarning } from './run-events.js';
import type { SeriesFailure, StreamFailure } from './stream-failure.js';
import { tablesOf } from './stream-tables.js';

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

/** A history table the run's tables keep (`<table>_history`), and the versions this run wrote to it. */
export interface HistorySummary {
  table: TableName;
  /** Versions in the table after the run. */
  rows: number;
  /** Versions this run started: an object seen for the first time, or whose data changed. */
  opened: number;
  /** Versions this run ended: its object changed, was removed from its list, or left its parent's details. */
  closed: number;
}

/** Per table, what the run's commits changed; a history table's versions opened count as inserted, closed as updated. */
export type TableChanges = Map<TableName, { inserted: number; updated: number; deleted: number }>;

/**
 * 'failed': some series failed in a way running again cannot fix (exit 1). 'incomplete': some series failed, every one
 * for a reason the next run may not meet (retries exhausted on 429/5xx, unreadable bodies: exit 3).
 * 'completed_with_holes': every series completed but some units are still missing (exit 3). In every case everything
 * fetched completely was committed and published.
 */
export type RunStatus = 'succeeded' | 'completed_with_holes' | 'incomplete' | 'failed';

export interface RunSummary {
  runId: string;
  pipeline: string;
  status: RunStatus;
  /** Series that could not complete, and why: their failed windows are their next run's first. */
  failedSeries: SeriesFailure[];
  /** Streams with at least one failed series (with the first one's reason). */
  failedStreams: StreamFailure[];
  /** False when the time budget stopped the run before every planned request was sent (`remainingRequests` were not). */
  complete: boolean;
  remainingRequests: number;
  /** Per series stream, how much of the asked range is loaded (while a backfill spans nights). */
  backfill: BackfillProgress[];
  until: string;
  source: string;
  db: string;
  out: string;
  seconds: number;
  requests: {
    planned: number;
    minimum: number;
    sent: number;
    retries: number;
    followUps: number;
    byPool: Partial<Record<PoolId, number>>;
  };
  tables: TableSummary[];
  /** The history tables of `tables`' tables that keep one, with the versions this run opened and closed. */
  history: HistorySummary[];
  holes: HoleSummary;
  /** Comparisons of another endpoint with the stored days (`reconcile: true`), by status; mismatches and unavailable checks are also warnings. */
  reconciliation: { match: number; mismatch: number; incomplete: number; unavailable: number };
  /** Stored values of complete units this run's re-fetches changed (recorded in `_etl_restatements`). */
  restatements: number;
  parquet: { filesWritten: number; filesRemoved: number; rowsWritten: number };
  warnings: RunWarning[];
  /** Analyst views empty (and columns NULL throughout) for want of a pipeline option, with the option that fills each. */
  unfilled: UnfilledView[];
  /** Absolute path of the HTML report written after the run, when the pipeline file asks for one (`report: { path }`). */
  report?: string;
}

/** The status a run ends with (see RunStatus). */
export function runStatus(failed: readonly SeriesFailure[], openHoles: number): RunStatus {
  if (failed.some((f) => !f.retriable)) return 'failed';
  if (failed.length > 0) return 'incomplete';
  return openHoles > 0 ? 'completed_with_holes' : 'succeeded';
}

/** Holes after the run from the changes it committed (the last change per unit counts). */
export function summarizeHoles(changes: readonly HoleUpdate[]): HoleSummary {
  const units = changes
    .filter((h): h is HoleUpdate & { status: 'open' | 'confirmed_absent' } => h.status !== 'filled')
    .map((h) => ({
      stream: h.stream,
      seriesKey: h.seriesKey,
      unitStart: h.unitStart.toISOString(),
      status: h.status,
      attempts: h.attempts,
      reason: h.reason,
    }));
  return {
    open: units.filter((u) => u.status === 'open').length,
    filled: changes.filter((h) => h.status === 'filled').length,
    confirmedAbsent: units.filter((u) => u.status === 'confirmed_absent').length,
    units: units.slice(0, 50),
  };
}

/** Rows the run changed in its data tables (a history table's versions are not rows changed: see HistorySummary). */
export function sumChanges(changes: TableChanges): number {
  let n = 0;
  for (const [table, c] of changes) if (!table.endsWith(HISTORY_SUFFIX)) n += c.inserted + c.updated + c.deleted;
  return n;
}

/** The plan's request counts, all the summary keeps of it. */
export type PlannedRequests = Pick<Plan, 'requests' | 'minimum' | 'byPool'>;

export interface SummaryInput {
  runId: string;
  opts: RunOptions;
  until: DateTime;
  started: number;
  source: string;
  planned: PlannedRequests;
  changes: TableChanges;
  warnings: RunWarning[];
  followUps: number;
  holes: HoleSummary;
  reconciled: readonly ReconciliationRow[];
  failedSeries: SeriesFailure[];
  failedStreams: StreamFailure[];
  remainingRequests: number;
  backfill: BackfillProgress[];
  client: ApiClient;
  parquet: { filesWritten: number; filesRemoved: number; rowsWritten: number };
}

export async function summarize(wh: Warehouse, s: SummaryInput): Promise<RunSummary> {
  const tables = tablesOf(s.opts.streams);
  const histories = tables.filter((t) => tableSpec(t).history).map((t) => historyTableName(t) as TableName);
  const counts: Partial<Record<TableName, number>> = {};
  for (const t of [...tables, ...histories]) counts[t] = await rowCount(wh, t);
  const reconciled = (status: ReconciliationRow['status']) => s.reconciled.filter((r) => r.status === status).length;
  return {
    runId: s.runId,
    pipeline: s.opts.pipeline.name,
    status: runStatus(s.failedSeries, s.holes.open),
    failedSeries: s.failedSeries,
    failedStreams: s.failedStreams,
    complete: s.remainingRequests === 0,
    remainingRequests: s.remainingRequests,
    backfill: s.backfill,
    until: s.until.toISO() ?? '',
    source: s.source,
    db: s.opts.db,
    out: s.opts.out,
    seconds: Math.round((Date.now() - s.started) / 100) / 10,
    requests: {
      planned: s.planned.requests,
      minimum: s.planned.minimum,
      sent: s.client.stats.requestsSent,
      retries: s.client.stats.retries,
      followUps: s.followUps,
      byPool: s.planned.byPool,
    },
    tables: tables.map((table) => ({
      table,
      rows: counts[table] ?? 0,
      ...(s.changes.get(table) ?? { inserted: 0, updated: 0, deleted: 0 }),
    })),
    history: histories.map((table) => ({
      table,
      rows: counts[table] ?? 0,
      opened: s.changes.get(table)?.inserted ?? 0,
      closed: s.changes.get(table)?.updated ?? 0,
    })),
    holes: s.holes,
    reconciliation: {
      match: reconciled('match'),
      mismatch: reconciled('mismatch'),
      incomplete: reconciled('incomplete'),
      unavailable: reconciled('unavailable'),
    },
    restatements: await restatementsOfRun(wh, s.runId),
    parquet: {
      filesWritten: s.parquet.filesWritten,
      filesRemoved: s.parquet.filesRemoved,
      rowsWritten: s.parquet.rowsWritten,
    },
    warnings: s.warnings,
    unfilled: await unfilledViews(wh),
  };
}
