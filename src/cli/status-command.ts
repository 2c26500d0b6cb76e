// `engage-etl status`: per stream and series, the watermark, the last run, rows loaded and how stale it is.
import { Command } from 'commander';
import { openPublished, readLastRunNote } from '../load/published-snapshot.js';
import { RunLock } from '../load/run-lock.js';
import { formatRows } from './format-rows.js';

export function makeStatusCommand(): Command {
  return new Command('status')
    .description('Show each series\' watermark, last run, rows, staleness and missing units (holes).')
    .option('--db <file>', 'DuckDB database file (the published state of the last successful run; works while a run goes on)', 'data/engage.duckdb')
    .option('--json', 'print JSON')
    .action(async (flags: { db: string; json?: boolean }) => {
      const wh = await openPublished(flags.db);
      try {
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
          process.stdout.write(formatRows([{ lastRun: lastRun ?? null, latestFailure, running, series: rows.map((r) => ({ ...r, openHoles: openOf(r.stream, r.seriesKey) })), holes }], 'json'));
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
      } finally {
        await wh.close();
      }
    });
}

function staleness(ms: number): string {
  const hours = ms / 3_600_000;
  return hours < 48 ? `${hours.toFixed(1)} h` : `${(hours / 24).toFixed(1)} d`;
}
