// `engage-etl run`: the nightly export. Resolves flags, environment and pipeline file once, runs the pipeline with a
// terminal display or JSON-line logs on stderr, and prints a summary on stdout (with --json: one JSON line, also when
// the run fails). Ctrl-C or SIGTERM, however many arrive, stops the run cleanly: what was fetched is committed, the
// result and the metrics file are written, and the way to resume is printed.
import { Command, Option } from 'commander';
import { DateTime } from 'luxon';
import { DEFAULT_DB_PATH, DEFAULT_OUT_DIR, DEFAULT_PIPELINE_PATH } from '../config/default-paths.js';
import { resolveRunOptions } from '../config/run-options.js';
import type { RawRunFlags, RunOptions } from '../config/run-options.js';
import { startEmulatorProcess } from '../emulator/emulator-process.js';
import { InterruptedError } from '../errors.js';
import { readPublishedStreamState, writeRunMetrics } from '../export/run-metrics.js';
import { runPipeline } from '../pipeline/run-pipeline.js';
import { backfillSentence } from '../pipeline/backfill-progress.js';
import { StopSignals } from '../process/stop-signals.js';
import { StreamsFailedError } from '../pipeline/streams-failed-error.js';
import type { RunSummary } from '../pipeline/run-pipeline.js';
import type { RunReporter } from '../pipeline/run-events.js';
import { EXIT, exitCodeOf, ReportedError } from './exit-codes.js';
import { LOG_LEVELS, resolveLogLevel } from './log-level.js';
import { JsonLinesReporter } from './reporters.js';
import { RunTally, teeReporters } from './run-tally.js';
import { TtyProgressReporter } from './tty-progress-reporter.js';

/** Adds the flags `run` and `plan` share. */
export function addRunFlags(cmd: Command): Command {
  return cmd
    .option('--pipeline <file>', 'pipeline definition (YAML or JSON)', DEFAULT_PIPELINE_PATH)
    .option('--base-url <url>', 'REST base URL of your instance (or ENGAGE_BASE_URL)')
    .option('--api-key <key>', 'REST API key (or ENGAGE_API_KEY, also read from ./.env); never stored or logged')
    .option('--emulator', 'run against the built-in emulator instead of a real instance')
    .option(
      '--db <file>',
      'DuckDB database file that readers and BI tools open: replaced whole after each successful run (the run itself writes .<name>.work beside it); or s3://BUCKET/KEY.duckdb',
      DEFAULT_DB_PATH,
    )
    .option('--out <dir>', 'Parquet output folder, or s3://BUCKET/PREFIX', DEFAULT_OUT_DIR)
    .option(
      '--work-dir <dir>',
      'with s3:// --db or --out: local folder for the downloaded database and files being uploaded (default: a temp folder)',
    )
    .option(
      '--from <date>',
      "first day for series without state (default: the pipeline's start_date); UTC unless a zone is given",
    )
    .option('--until <datetime>', 'upper bound of the run, frozen at start (default: now); UTC unless a zone is given')
    .option('--streams <list>', 'comma-separated streams to run (default: all in the pipeline file)')
    .option('--full-refresh', "drop the selected streams' data and state, reload from --from / start_date")
    .option('--json', 'print the result as one JSON line on stdout (on failure too); stderr logs are JSON lines')
    .option(
      '--max-wait <duration>',
      "longest wait for a rate-limit window before failing, e.g. 10m or 2h (default: the pool's window + 5 min)",
    )
    .option(
      '--max-in-flight <n>',
      'the most requests in flight at once, across all pools (default: each pool keeps what its rate and the round trip call for)',
    );
}

interface RunFlags extends RawRunFlags {
  logLevel?: string;
  quiet?: boolean;
  verbose?: boolean;
  metricsFile?: string;
}

/**
 * Run statuses and their exit codes: a run that completed with units still missing (holes), or whose failed series all
 * failed for reasons a later run may not meet (retries exhausted), exits 3.
 */
const EXIT_BY_STATUS: Readonly<Record<string, number>> = {
  succeeded: EXIT.done,
  completed_with_holes: EXIT.incomplete,
  incomplete: EXIT.incomplete,
  failed: EXIT.failed,
};

export function makeRunCommand(): Command {
  return addRunFlags(
    new Command('run').description(
      "Export the pipeline's streams into DuckDB and Parquet (incremental, exact, resumable).",
    ),
  )
    .addOption(
      new Option(
        '--log-level <level>',
        'what stderr shows: error, warn, info, or debug (every request: path, query, status, duration, X-RateLimit-*)',
      ).choices(LOG_LEVELS as unknown as string[]),
    )
    .option('--quiet', 'same as --log-level error: only a failure is printed on stderr (cron mails nothing on success)')
    .option('--verbose', 'same as --log-level debug')
    .option(
      '--time-budget <duration>',
      "send requests for at most this long (e.g. 3h), then publish what was committed and exit 0 with complete: false; the next run continues where it stopped (default: the pipeline's time_budget, else none)",
    )
    .option(
      '--metrics-file <file>',
      "write the run's metrics in the Prometheus text format (node_exporter textfile collector), atomically",
    )
    .option(
      '--checkpoint-every <duration>',
      'with an s3:// --db: upload the committed progress as a checkpoint beside the database at most this often, e.g. 5m (also when the run is stopped), so a run on another machine resumes from it',
      '5m',
    )
    .addHelpText(
      'after',
      [
        '',
        'Exit 3: the run completed, but some units are still missing (a server left them out; listed in the summary and',
        'by `engage-etl status`, asked again by the next runs), or some series failed after every retry (429/5xx): what',
        'they fetched is published and the next run asks for the rest. Exit 1: some series failed in a way retrying cannot',
        'fix (a 4xx, an unknown id, an answer that does not match the spec); everything else was published.',
        'A run cut by --time-budget exits 0 with complete: false; the next run continues where it stopped.',
        '',
        'Examples:',
        '  engage-etl run --emulator',
        '  ENGAGE_API_KEY=... engage-etl run --base-url https://rest.example.com --until 2025-06-01',
        '  engage-etl run --json --quiet --metrics-file /var/lib/node_exporter/engage_etl.prom >> run.jsonl 2>&1',
        '',
        'Precedence: flag > environment > ./.env (ENGAGE_* lines) > pipeline file (base_url only; never the key).',
      ].join('\n'),
    )
    .action(async (flags: RunFlags) => {
      const tally = new RunTally();
      const started = Date.now();
      let opts: RunOptions | undefined;
      let note: (line: string) => void = () => undefined;
      // Listening from the first line to the last: a signal during the summary or the metrics must not kill the process.
      const stop = StopSignals.install(
        () => note('interrupting: committing what was fetched, then releasing the database…'),
        () =>
          note(
            'already stopping: the run ends by itself once what was fetched is committed (kill -9 quits at once, losing it)',
          ),
      );
      try {
        const level = resolveLogLevel(flags);
        opts = resolveRunOptions(flags, process.env, DateTime.utc());
        const display =
          process.stderr.isTTY && !opts.json
            ? new TtyProgressReporter(process.stderr, { level })
            : new JsonLinesReporter(process.stderr, level);
        if (display instanceof TtyProgressReporter) note = (line) => display.note(line);
        const summary = await withSource(opts, (source, label, sourceDone) => {
          if (stop.signal.aborted)
            throw new InterruptedError('interrupted before the run started: nothing was fetched');
          // From the commit phase on, a run sends no request (fetch and reconciliation are over).
          const fetched: RunReporter = {
            emit: (e) => (e.type === 'phase' && e.phase === 'commit' ? sourceDone?.() : undefined),
            close: () => undefined,
          };
          return runPipeline(source, {
            reporter: teeReporters(display, tally, fetched),
            signal: stop.signal,
            ...(label ? { sourceLabel: label } : {}),
          });
        });
        const exitCode = EXIT_BY_STATUS[summary.status] ?? EXIT.failed;
        if (flags.metricsFile) {
          const failedStreams = summary.failedStreams.map((f) => f.stream);
          await writeMetrics(flags.metricsFile, opts, tally, {
            status: summary.status === 'incomplete' ? 'incomplete' : 'succeeded',
            exitCode,
            seconds: summary.seconds,
            requests: summary.requests.sent,
            failedStreams,
          });
        }
        process.stdout.write(opts.json ? summaryLine(summary, exitCode, null) : formatSummary(summary));
        if (exitCode !== EXIT.done) process.exitCode = exitCode;
      } catch (err) {
        // Some streams failed, the rest was published: the summary is printed as for a success, the error line names them.
        if (err instanceof StreamsFailedError && opts) {
          const { summary } = err;
          if (flags.metricsFile) {
            const failedStreams = summary.failedStreams.map((f) => f.stream);
            await writeMetrics(flags.metricsFile, opts, tally, {
              status: 'failed',
              exitCode: EXIT.failed,
              seconds: summary.seconds,
              requests: summary.requests.sent,
              failedStreams,
            }).catch(() => undefined);
          }
          process.stdout.write(opts.json ? summaryLine(summary, EXIT.failed, err.message) : formatSummary(summary));
          if (opts.json) throw new ReportedError(EXIT.failed, err);
          throw err;
        }
        const exitCode = exitCodeOf(err);
        const status = err instanceof InterruptedError ? 'interrupted' : 'failed';
        const error = err instanceof Error ? err.message : String(err);
        const seconds = Math.round((Date.now() - started) / 100) / 10;
        if (flags.metricsFile && opts) {
          await writeMetrics(flags.metricsFile, opts, tally, {
            status,
            exitCode,
            seconds,
            requests: tally.counts().requests.sent,
          }).catch(() => undefined);
        }
        if (err instanceof InterruptedError && flags.json !== true) {
          const kept = err.progressKept
            ? 'everything committed stays'
            : 'not everything committed could be kept (below)';
          process.stderr.write(
            `interrupted: committed ${tally.committedText()}; ${kept}.\nresume with: ${resumeCommand(process.argv.slice(2))}\n`,
          );
        }
        if (flags.json !== true) throw err;
        // The run stopped before its hole accounting: holes are null here, `status` lists those of the last published run.
        process.stdout.write(
          `${JSON.stringify({ run_id: tally.runId, status, exit_code: exitCode, error, seconds, ...tally.counts(), holes: null })}\n`,
        );
        throw new ReportedError(exitCode, err);
      } finally {
        stop.dispose();
      }
    });
}

async function writeMetrics(
  file: string,
  opts: RunOptions,
  tally: RunTally,
  outcome: { status: string; exitCode: number; seconds: number; requests: number; failedStreams?: string[] },
): Promise<void> {
  await writeRunMetrics(file, {
    pipeline: opts.pipeline.name,
    streams: opts.streams,
    ...outcome,
    finishedAt: new Date(),
    finished: tally.finished,
    ...(await readPublishedStreamState(opts.db).catch(() => ({ openHoles: {}, lastSuccess: {} }))),
  });
}

/** The command that resumes an interrupted run: the same flags, the key masked, without --full-refresh (which would drop what was committed). */
export function resumeCommand(args: readonly string[]): string {
  const out: string[] = ['engage-etl'];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--full-refresh') continue;
    if (arg === '--api-key') {
      i++;
      continue;
    }
    if (arg.startsWith('--api-key=')) continue;
    out.push(/^[\w./:=,@%+-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`);
  }
  return out.join(' ');
}

/**
 * Runs `fn` against the options' source: with `--emulator`, a built-in emulator started here in a process of its own (the
 * pipeline itself never imports the emulator) whose URL and demo key stand in for the base URL and key.
 */
export async function withSource<T>(
  opts: RunOptions,
  fn: (opts: RunOptions, label?: string, sourceDone?: () => void) => Promise<T>,
): Promise<T> {
  if (!opts.emulator) return fn(opts);
  const emulator = await startEmulatorProcess({ seed: 1 });
  // `sourceDone`: the caller will send no more requests; the emulator's process ends then,
  // not after the export and the report.
  let closing: Promise<void> | undefined;
  const close = () => (closing ??= emulator.close());
  try {
    return await fn(
      { ...opts, baseUrl: emulator.url, apiKey: opts.apiKey ?? emulator.demoApiKey },
      'built-in emulator',
      () => void close().catch(() => undefined),
    );
  } finally {
    await close();
  }
}

/** The `--json` line of a run that got to its summary: snake_case envelope, the summary's fields after it. */
function summaryLine(summary: RunSummary, exitCode: number, error: string | null): string {
  const { runId, status, failedStreams, failedSeries, complete, remainingRequests, ...rest } = summary;
  return `${JSON.stringify({
    run_id: runId,
    status,
    exit_code: exitCode,
    error,
    complete,
    remaining_requests: remainingRequests,
    failed_streams: failedStreams,
    failed_series: failedSeries,
    ...rest,
  })}\n`;
}

/** The history tables: versions kept, and the versions this run opened (a new or changed object) and closed. */
function historyLines(s: RunSummary): string[] {
  if (s.history.length === 0) return [];
  const width = Math.max(...s.history.map((h) => h.table.length), 'history table'.length);
  return [
    `  ${'history table'.padEnd(width)}  ${'versions'.padStart(9)}  ${'opened'.padStart(9)}  ${'closed'.padStart(8)}`,
    ...s.history.map(
      (h) =>
        `  ${h.table.padEnd(width)}  ${fmt(h.rows).padStart(9)}  ${fmt(h.opened).padStart(9)}  ${fmt(h.closed).padStart(8)}`,
    ),
    '',
  ];
}

function formatSummary(s: RunSummary): string {
  const width = Math.max(...s.tables.map((t) => t.table.length), 5);
  const lines = [
    `engage-etl run ${s.runId} ${s.status} in ${s.seconds} s — pipeline ${s.pipeline}, source ${s.source}, until ${s.until}`,
    `requests: ${s.requests.sent} sent (${s.requests.planned} planned, minimum ${s.requests.minimum}; ${s.requests.retries} retries, ${s.requests.followUps} follow-ups)`,
    '',
    `  ${'table'.padEnd(width)}  ${'rows'.padStart(9)}  ${'inserted'.padStart(9)}  ${'updated'.padStart(8)}  ${'deleted'.padStart(8)}`,
    ...s.tables.map(
      (t) =>
        `  ${t.table.padEnd(width)}  ${fmt(t.rows).padStart(9)}  ${fmt(t.inserted).padStart(9)}  ${fmt(t.updated).padStart(8)}  ${fmt(t.deleted).padStart(8)}`,
    ),
    '',
    ...historyLines(s),
    `DuckDB: ${s.db}   Parquet: ${s.out} (${s.parquet.filesWritten} files written, ${s.parquet.filesRemoved} removed)`,
    ...s.warnings.map((w) => `warning: ${w.message}`),
    ...(s.complete
      ? []
      : [
          `INCOMPLETE: the time budget ran out with ${fmt(s.remainingRequests)} request(s) not sent; everything fetched is published, and the next run continues where this one stopped`,
        ]),
    ...backfillLines(s),
    ...s.failedSeries
      .slice(0, 20)
      .map(
        (f) =>
          `FAILED ${f.stream} ${f.series}${f.id !== undefined ? ` (${f.id})` : ''}: ${f.error} (${f.retriable ? 'the next run asks again' : 'retrying will not help until it is fixed'}; what it fetched before is kept)`,
      ),
    ...(s.failedSeries.length > 20
      ? [`… and ${s.failedSeries.length - 20} more failed series (\`engage-etl status\` lists them all)`]
      : []),
    ...holeLines(s),
    ...auditLines(s),
    ...unfilledLines(s),
    '',
    'Try:',
    `  npx engage-etl query "SELECT date_trunc('month', day) AS month, sum(revenue) AS revenue FROM analytics.purchases_daily WHERE complete GROUP BY 1 ORDER BY 1 DESC LIMIT 6" --db ${s.db}`,
    `  npx engage-etl query "SELECT year, count(*) AS hours FROM read_parquet('${s.out}/sessions/**/*.parquet', hive_partitioning=true) GROUP BY 1 ORDER BY 1 DESC LIMIT 3" --db ${s.db}`,
    '',
    ...(s.report ? [`Report: ${s.report}`, ''] : []),
  ];
  return lines.join('\n');
}

function backfillLines(s: RunSummary): string[] {
  const behind = s.backfill.filter((b) => b.seriesComplete < b.series);
  if (behind.length === 0) return [];
  return [
    '',
    'backfill in progress (days loaded of days asked):',
    ...behind.map(
      (b) =>
        `  ${b.stream}: ${fmt(b.daysCovered)} of ${fmt(b.daysAsked)} days, ${b.seriesComplete} of ${b.series} series complete: ${backfillSentence(b)}`,
    ),
  ];
}

function holeLines(s: RunSummary): string[] {
  const { holes } = s;
  if (holes.open === 0 && holes.filled === 0 && holes.confirmedAbsent === 0) return [];
  return [
    '',
    `missing units: ${holes.open} still open, ${holes.filled} filled, ${holes.confirmedAbsent} confirmed absent in this run`,
    ...holes.units.map(
      (u) =>
        `  ${u.status === 'open' ? 'open     ' : 'absent   '} ${u.stream} ${u.seriesKey} ${u.unitStart} (asked ${u.attempts}×): ${u.reason}`,
    ),
  ];
}

function auditLines(s: RunSummary): string[] {
  const r = s.reconciliation;
  const lines: string[] = [];
  if (r.match + r.mismatch + r.incomplete + r.unavailable > 0)
    lines.push(
      `reconciliation: ${r.match} match, ${r.mismatch} mismatch, ${r.incomplete} incomplete, ${r.unavailable} unavailable (\`engage-etl status\` lists them)`,
    );
  if (s.restatements > 0)
    lines.push(
      `restated values: ${fmt(s.restatements)} stored value(s) changed on re-fetch (\`engage-etl status --restatements\` advises the look-back)`,
    );
  return lines.length > 0 ? ['', ...lines] : [];
}

/** The views the pipeline leaves empty, once a run, each with the option that fills it (from the view's comment). */
function unfilledLines(s: RunSummary): string[] {
  if (s.unfilled.length === 0) return [];
  return [
    '',
    "empty for want of a pipeline option (the view's comment says the same):",
    ...s.unfilled.map(
      (u) => `  analytics.${u.view}${u.column === undefined ? '' : `.${u.column} (NULL on every row)`}: ${u.fill}`,
    ),
  ];
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}
