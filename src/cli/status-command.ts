// `engage-etl status`: per stream and series, the watermark, the last run, rows loaded and how stale it is; the latest
// reconciliation; with --restatements, how many stored values changed at each age and the look-back that covers them.
import { Command, InvalidArgumentError } from 'commander';
import { latestReconciliation, restatementsByAge } from '../load/audit-store.js';
import { openPublished, readLastRunNote } from '../load/published-snapshot.js';
import { RunLock } from '../load/run-lock.js';
import { DEFAULT_RESTATEMENT_SHARE, recommendLookback } from '../pipeline/lookback-advice.js';
import { formatRows } from './format-rows.js';

export function makeStatusCommand(): Command {
  return new Command('status')
    .description('Show each series\' watermark, last run, rows, staleness and missing units (holes).')
    .option('--db <file>', 'DuckDB database file (the published state of the last successful run; works while a run goes on)', 'data/engage.duckdb')
    .option('--json', 'print JSON')
    .option('--restatements', 'per stream, how many stored values a re-fetch changed at each age (days before --until), and the lookback_days that covers --share of them')
    .option('--share <fraction>', 'share of the restated values the advised lookback_days must cover', shareArg, DEFAULT_RESTATEMENT_SHARE)
    .action(async (flags: { db: string; json?: boolean; restatements?: boolean; share: number }) => {
      const wh = await openPublished(flags.db);
      try {
        const query = (sql: string, params?: readonly unknown[]) => wh.query(sql, params);
        if (flags.restatements) {
          process.stdout.write(formatRestatements(await restatementReport(query, flags.share), flags.share, flags.json ?? false));
          return;
        }
        const reconciliation = await latestReconciliation(query);
        const rows = await wh.status();
        const holes = await wh.readHoles();
        const openOf = (stream: string, key: string): number => holes.filter((h) => h.stream === stream && h.seriesKey === key && h.status === 'open').length;
        const [lastRun] = await wh.query('SELECT run_id, status, started_at, finished_at, "until", requests, rows_changed, error FROM "_etl_runs" ORDER BY started_at DESC LIMIT 1');
        // The published file shows the last successful run; a run going on now is known from its lock.
        const holder = await RunLock.peek(flags.db);
        const running = holder ? { pid: holder.pid, startedAt: holder.startedAt, command: holder.command } : null;
        // A run that failed after the last successful one is not in the published file; its note says how it ended.
        const note = await readLastRunNote(flags.db);
        const latestFailure = note?.status === 'failed' && note.runId !== lastRun?.['run_id'] ? note : null;
        if (flags.json) {
          process.stdout.write(formatRows([{ lastRun: lastRun ?? null, latestFailure, running, series: rows.map((r) => ({ ...r, openHoles: openOf(r.stream, r.seriesKey) })), holes, reconciliation }], 'json'));
          return;
        }
        if (running) process.stdout.write(`${running.command} in progress (pid ${running.pid}, started ${running.startedAt}); shown: the state it started from\n`);
        if (latestFailure) {
          process.stdout.write(`latest run ${latestFailure.runId}: failed at ${latestFailure.finishedAt} — ${latestFailure.error ?? 'no reason recorded'}; what it committed is kept for the next run, shown below: the last successful run\n`);
        }
        process.stdout.write(lastRun ? `last run ${String(lastRun['run_id'])}: ${String(lastRun['status'])}${lastRun['error'] ? ` — ${String(lastRun['error'])}` : ''}\n\n` : 'no run yet\n\n');
        process.stdout.write(formatRows(rows.map((r) => ({
          stream: r.stream,
          series: r.seriesKey,
          watermark: r.watermark,
          rows_loaded: r.rowsLoaded,
          last_run: r.lastRunId,
          stale: staleness(r.stalenessMs),
          open_holes: openOf(r.stream, r.seriesKey),
        })), 'table'));
        if (holes.length > 0) {
          const open = holes.filter((h) => h.status === 'open').length;
          process.stdout.write(`\nmissing units: ${open} open (asked again by the next runs), ${holes.length - open} confirmed absent (no longer asked for)\n`);
          process.stdout.write(formatRows(holes.map((h) => ({
            stream: h.stream, series: h.seriesKey, unit_start: h.unitStart, status: h.status, attempts: h.attempts, reason: h.reason,
          })), 'table'));
        }
        if (reconciliation.length > 0) {
          const mismatches = reconciliation.filter((r) => r.status === 'mismatch').length;
          process.stdout.write(`\nreconciliation (latest check per series and metric): ${mismatches} mismatch(es)\n`);
          process.stdout.write(formatRows(reconciliation.map((r) => ({
            stream: r.stream, series: r.seriesKey, window_start: r.windowStart, window_end: r.windowEnd, metric: r.metric,
            expected: r.expected, actual: r.actual, status: r.status, run: r.runId,
          })), 'table'));
        }
      } finally {
        await wh.close();
      }
    });
}

function staleness(ms: number): string {
  const hours = ms / 3_600_000;
  return hours < 48 ? `${hours.toFixed(1)} h` : `${(hours / 24).toFixed(1)} d`;
}

function shareArg(raw: string): number {
  const value = Number(raw);
  if (raw.trim() === '' || !(value > 0 && value <= 1)) throw new InvalidArgumentError(`"${raw}" is not a share in (0, 1]; e.g. --share 0.999 (99.9 % of the changes seen)`);
  return value;
}

/** Per stream: changes at each age, their total, and the advised lookback_days. */
export interface RestatementReport {
  stream: string;
  total: number;
  byAge: { ageDays: number; changes: number }[];
  recommendedLookbackDays: number | undefined;
}

export async function restatementReport(query: (sql: string, params?: readonly unknown[]) => Promise<Record<string, unknown>[]>, share: number): Promise<RestatementReport[]> {
  const rows = await restatementsByAge(query);
  const streams = [...new Set(rows.map((r) => r.stream))];
  return streams.map((stream) => {
    const byAge = rows.filter((r) => r.stream === stream).map(({ ageDays, changes }) => ({ ageDays, changes }));
    return { stream, total: byAge.reduce((n, a) => n + a.changes, 0), byAge, recommendedLookbackDays: recommendLookback(byAge, share) };
  });
}

function formatRestatements(report: readonly RestatementReport[], share: number, json: boolean): string {
  if (json) return formatRows([{ share, streams: report }], 'json');
  if (report.length === 0) return 'no restated value recorded yet: re-fetches (the look-back) have not changed any stored value of a complete unit\n';
  const lines = [`restated values per stream and age (days between the unit's start and the --until of the run that saw the change); advice covers ${(share * 100).toFixed(1)} % of them`, ''];
  for (const r of report) {
    lines.push(`${r.stream}: ${r.total} change(s); recommended lookback_days: ${r.recommendedLookbackDays ?? '-'}`);
    lines.push(...r.byAge.map((a) => `  age ${String(a.ageDays).padStart(4)} d  ${String(a.changes).padStart(8)}`));
  }
  return `${lines.join('\n')}\n`;
}
