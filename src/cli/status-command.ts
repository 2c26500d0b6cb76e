// `engage-etl status`: per stream and series, the watermark, the last run, rows loaded and how stale it is. With
// --fail-if-stale it is a freshness check for monitors (like `dbt source freshness`): exit 1 when a series is too old.
import { Command } from 'commander';
import { parseDuration } from '../config/duration.js';
import { suggestion } from '../config/nearest-name.js';
import { STREAM_NAMES } from '../config/pipeline-definition.js';
import { ConfigError } from '../errors.js';
import { liveLockHolder } from '../load/run-lock.js';
import { Warehouse } from '../load/warehouse.js';
import type { StatusRow } from '../load/warehouse.js';
import { EXIT } from './exit-codes.js';
import { formatRows } from './format-rows.js';

interface StatusFlags {
  db: string;
  json?: boolean;
  failIfStale?: string;
  stream?: string;
}

/** A series older than the threshold, or a named stream with no series at all. */
interface Stale {
  stream: string;
  series: string | null;
  hours: number | null;
}

export function makeStatusCommand(): Command {
  return new Command('status')
    .description('Show each series\' watermark, last run, rows and staleness; with --fail-if-stale, fail when data is older than a threshold.')
    .option('--db <file>', 'DuckDB database file', 'data/engage.duckdb')
    .option('--json', 'print JSON')
    .option('--fail-if-stale <duration>', 'exit 1 when a series\' watermark is older than this (e.g. 26h, 90m, 2d), or when nothing was loaded')
    .option('--stream <name>', 'only this stream (shown and checked)')
    .addHelpText('after', '\nExamples:\n  engage-etl status\n  engage-etl status --fail-if-stale 26h\n  engage-etl status --fail-if-stale 2d --stream revenue --json\n\nA last run still logged as running whose process is gone (its lock is free) is shown as abandoned.')
    .action(async (flags: StatusFlags) => {
      const thresholdMs = flags.failIfStale === undefined ? undefined : parseDuration(flags.failIfStale, '--fail-if-stale');
      if (flags.stream !== undefined && !(STREAM_NAMES as readonly string[]).includes(flags.stream)) {
        throw new ConfigError('--stream', `unknown stream ${JSON.stringify(flags.stream)}.${suggestion(flags.stream, STREAM_NAMES)}`);
      }
      const wh = await Warehouse.open(flags.db, { readOnly: true });
      let rows: StatusRow[];
      let lastRun: Record<string, unknown> | undefined;
      try {
        rows = (await wh.status()).filter((r) => flags.stream === undefined || r.stream === flags.stream);
        [lastRun] = await wh.query('SELECT run_id, status, started_at, finished_at, "until", requests, rows_changed, error, pid FROM "_etl_runs" ORDER BY started_at DESC LIMIT 1');
      } finally {
        await wh.close();
      }
      // The run log says 'running' until the run records its end; only the lock tells whether its process still lives.
      if (lastRun?.['status'] === 'running' && (await liveLockHolder(flags.db)) === undefined) {
        lastRun['status'] = 'abandoned';
        lastRun['error'] = 'the process ended without recording its end (killed or crashed); the next run closes it and resumes from what was committed';
      }
      const stale = thresholdMs === undefined ? [] : staleSeries(rows, thresholdMs, flags.stream);
      if (flags.json) {
        const freshness = thresholdMs === undefined ? null : { threshold: flags.failIfStale, stream: flags.stream ?? null, ok: stale.length === 0, stale };
        process.stdout.write(formatRows([{ lastRun: lastRun ?? null, series: rows, freshness }], 'json'));
      } else {
        process.stdout.write(lastRun ? `last run ${String(lastRun['run_id'])}: ${String(lastRun['status'])}${lastRun['error'] ? ` — ${String(lastRun['error'])}` : ''}\n\n` : 'no run yet\n\n');
        process.stdout.write(formatRows(rows.map((r) => ({
          stream: r.stream,
          series: r.seriesKey,
          watermark: r.watermark,
          rows_loaded: r.rowsLoaded,
          last_run: r.lastRunId,
          stale: staleness(r.stalenessMs),
        })), 'table'));
      }
      if (stale.length > 0) {
        const shown = stale.slice(0, 5).map((s) => (s.series === null ? `${s.stream} (never loaded)` : `${s.stream} ${s.series} (${s.hours} h)`)).join(', ');
        process.stderr.write(`engage-etl: ${stale.length} series older than ${flags.failIfStale}: ${shown}${stale.length > 5 ? ', …' : ''}; run \`engage-etl run\` or look at the last run's error\n`);
        process.exitCode = EXIT.failed;
      }
    });
}

function staleSeries(rows: readonly StatusRow[], thresholdMs: number, stream: string | undefined): Stale[] {
  if (rows.length === 0) return [{ stream: stream ?? '(any)', series: null, hours: null }];
  return rows.filter((r) => r.stalenessMs > thresholdMs).map((r) => ({ stream: r.stream, series: r.seriesKey, hours: Math.round(r.stalenessMs / 360_000) / 10 }));
}

function staleness(ms: number): string {
  const hours = ms / 3_600_000;
  return hours < 48 ? `${hours.toFixed(1)} h` : `${(hours / 24).toFixed(1)} d`;
}
