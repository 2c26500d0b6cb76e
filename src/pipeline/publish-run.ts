// The publish phase of a run: Parquet of what changed (every partition when the workspace moved), the analyst views,
// then — after the run's end is recorded — the bookkeeping Parquet, the report, and the database itself.
import type { RunOptions } from '../config/run-options.js';
import { exportBookkeeping, exportParquet } from '../export/export-parquet.js';
import type { ExportSummary } from '../export/export-parquet.js';
import { retireLayout } from '../export/retire-layout.js';
import type { SnapshotStore } from '../store/snapshot-store.js';
import { RunLog } from '../load/run-log.js';
import { SettingsStore } from '../load/settings-store.js';
import type { Warehouse } from '../load/warehouse.js';
import { crashPoint } from '../process/crash-point.js';
import { writeReport } from '../report/write-report.js';
import { reportPathFor } from '../config/report-path.js';
import type { OpenedPlace } from '../store/open-place.js';
import type { Place } from '../store/place.js';
import { placeOfWorkspace } from '../store/workspace-place.js';
import { createAnalyticsViews } from '../views/analytics-views.js';
import type { RunReporter, RunWarning } from './run-events.js';
import type { RunSummary } from './run-summary.js';

/** Publish, first half: the Parquet, the workspace recorded, the views. Returns the place the workspace publishes to. */
export async function publishParquet(
  wh: Warehouse,
  out: OpenedPlace,
  opts: RunOptions,
  reporter: RunReporter,
  warnings: RunWarning[],
): Promise<{ lake: Place; exported: ExportSummary }> {
  reporter.emit({ type: 'phase', phase: 'export' });
  const lake = placeOfWorkspace(out.place, opts.pipeline.workspace);
  const moved = await workspaceMove(wh, opts.pipeline.workspace);
  await wh.liftCommitLimits();
  const exported = await exportParquet(wh, lake, { scope: moved ? 'all' : 'dirty' });
  for (const repair of exported.repaired) {
    const warning: RunWarning = {
      code: 'parquet_repaired',
      message: `repaired ${repair.table} in ${lake.description} from DuckDB: ${repair.problems.join('; ')}`,
    };
    warnings.push(warning);
    reporter.emit({ type: 'warning', ...warning });
  }
  crashPoint('export-done');
  if (moved) {
    await retireLayout(out.place, moved.from, wh);
    warnings.push({
      code: 'workspace_moved',
      message: `the Parquet of ${opts.db} moved from ${moved.from === undefined ? 'the layout without workspace' : `workspace=${moved.from}`} to workspace=${opts.pipeline.workspace ?? '(none)'} in ${out.place.description}: every partition was written anew and the old objects removed`,
    });
  }
  await new SettingsStore(wh).setWorkspace(opts.pipeline.workspace);
  reporter.emit({ type: 'exported', files: exported.filesWritten, rows: exported.rowsWritten });
  await createAnalyticsViews(wh);
  return { lake, exported };
}

/**
 * Whether this run moves the database's Parquet to another workspace's layout: the pipeline's `workspace:` differs from
 * the one the database last exported as (databases that never exported have nothing to move).
 */
async function workspaceMove(
  wh: Warehouse,
  workspace: string | undefined,
): Promise<{ from: string | undefined } | undefined> {
  const recorded = await new SettingsStore(wh).workspace();
  if (recorded === workspace) return undefined;
  return (await new RunLog(wh).endedCount()) > 0 ? { from: recorded } : undefined;
}

/**
 * Publish, second half, after the run's end is recorded (so the exported run log and the report show this run's
 * outcome): the bookkeeping tables' Parquet, the report, then the database itself — last, so a report that cannot be
 * written fails the run rather than leaving a published run without it.
 */
export async function publishDatabase(
  wh: Warehouse,
  lake: Place,
  snapshots: SnapshotStore,
  opts: RunOptions,
  summary: RunSummary,
  reporter: RunReporter,
): Promise<void> {
  await exportBookkeeping(wh, lake);
  if (opts.pipeline.report) {
    await wh.liftReportLimits();
    summary.report = (
      await writeReport(wh, reportPathFor(opts.db, opts.pipeline.report.path, opts.workDir), {
        database: snapshots.description,
        unfilled: summary.unfilled,
      })
    ).path;
  }
  for (const note of (await snapshots.publish(wh)).notes) {
    summary.warnings.push(note);
    reporter.emit({ type: 'warning', ...note });
  }
}
