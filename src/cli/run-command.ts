// `engage-etl run`: the nightly export. Resolves flags, environment and pipeline file once, runs the pipeline with
// TTY progress or JSON-line logs, and prints a summary (or, with --json, the summary as JSON on stdout).
import { Command } from 'commander';
import { DateTime } from 'luxon';
import { resolveRunOptions } from '../config/run-options.js';
import type { RawRunFlags, RunOptions } from '../config/run-options.js';
import { createEmulator } from '../emulator/server.js';
import { runPipeline } from '../pipeline/run-pipeline.js';
import type { RunSummary } from '../pipeline/run-pipeline.js';
import { JsonLinesReporter, TtyProgressReporter } from './reporters.js';

/** Adds the flags `run` and `plan` share. */
export function addRunFlags(cmd: Command): Command {
  return cmd
    .option('--pipeline <file>', 'pipeline definition (YAML or JSON)', 'pipelines/nightly.yaml')
    .option('--base-url <url>', 'REST base URL of your instance (or ENGAGE_BASE_URL)')
    .option('--api-key <key>', 'REST API key (or ENGAGE_API_KEY); never stored or logged')
    .option('--emulator', 'run against the built-in emulator instead of a real instance')
    .option('--db <file>', 'DuckDB database file that readers and BI tools open: replaced whole after each successful run (the run itself writes .<name>.work beside it)', 'data/engage.duckdb')
    .option('--out <dir>', 'Parquet output folder', 'data/parquet')
    .option('--from <date>', 'first day for series without state (default: the pipeline\'s start_date); UTC unless a zone is given')
    .option('--until <datetime>', 'upper bound of the run, frozen at start (default: now); UTC unless a zone is given')
    .option('--streams <list>', 'comma-separated streams to run (default: all in the pipeline file)')
    .option('--full-refresh', 'drop the selected streams\' data and state, reload from --from / start_date')
    .option('--json', 'print the summary as JSON on stdout')
    .option('--max-wait <duration>', 'longest wait for a rate-limit window before failing, e.g. 10m or 2h (default: the pool\'s window + 5 min)');
}

export function makeRunCommand(): Command {
  return addRunFlags(new Command('run').description('Export the pipeline\'s streams into DuckDB and Parquet (incremental, exact, resumable).'))
    .addHelpText('after', [
      '',
      'Exit codes: 0 done; 1 failed; 2 usage or configuration error; 3 completed, but some units are still missing',
      '(a server left them out; listed in the summary and by `engage-etl status`, asked again by the next runs).',
      '',
      'Examples:',
      '  engage-etl run --emulator',
      '  ENGAGE_API_KEY=... engage-etl run --base-url https://rest.example.com --until 2025-06-01',
    ].join('\n'))
    .action(async (flags: RawRunFlags) => {
      const opts = resolveRunOptions(flags, process.env, DateTime.utc());
      const reporter = process.stderr.isTTY && !opts.json ? new TtyProgressReporter(process.stderr) : new JsonLinesReporter(process.stderr);
      const summary = await withSource(opts, (source, label) => runPipeline(source, { reporter, ...(label ? { sourceLabel: label } : {}) }));
      process.stdout.write(opts.json ? `${JSON.stringify(summary, null, 2)}\n` : formatSummary(summary));
      if (summary.status === 'completed_with_holes') process.exitCode = 3;
    });
}

/**
 * Runs `fn` against the options' source: with `--emulator`, a built-in emulator started here (the pipeline itself never
 * imports the emulator) whose URL and demo key stand in for the base URL and key.
 */
export async function withSource<T>(opts: RunOptions, fn: (opts: RunOptions, label?: string) => Promise<T>): Promise<T> {
  if (!opts.emulator) return fn(opts);
  const emulator = await createEmulator({ seed: 1 });
  try {
    return await fn({ ...opts, baseUrl: emulator.url, apiKey: opts.apiKey ?? emulator.demoApiKey }, 'built-in emulator');
  } finally {
    await emulator.close();
  }
}

export function formatSummary(s: RunSummary): string {
  const width = Math.max(...s.tables.map((t) => t.table.length), 5);
  const lines = [
    `engage-etl run ${s.runId} ${s.status} in ${s.seconds} s — pipeline ${s.pipeline}, source ${s.source}, until ${s.until}`,
    `requests: ${s.requests.sent} sent (${s.requests.planned} planned, minimum ${s.requests.minimum}; ${s.requests.retries} retries, ${s.requests.followUps} follow-ups)`,
    '',
    `  ${'table'.padEnd(width)}  ${'rows'.padStart(9)}  ${'inserted'.padStart(9)}  ${'updated'.padStart(8)}  ${'deleted'.padStart(8)}`,
    ...s.tables.map((t) => `  ${t.table.padEnd(width)}  ${fmt(t.rows).padStart(9)}  ${fmt(t.inserted).padStart(9)}  ${fmt(t.updated).padStart(8)}  ${fmt(t.deleted).padStart(8)}`),
    '',
    `DuckDB: ${s.db}   Parquet: ${s.out} (${s.parquet.filesWritten} files written, ${s.parquet.filesRemoved} removed)`,
    ...s.warnings.map((w) => `warning: ${w.message}`),
    ...holeLines(s),
    ...auditLines(s),
    '',
    'Try:',
    `  npx engage-etl query "SELECT date_trunc('month', time) AS month, sum(revenue) AS revenue FROM revenue WHERE app_id = '*' AND product = '*' GROUP BY 1 ORDER BY 1 DESC LIMIT 6" --db ${s.db}`,
    `  npx engage-etl query "SELECT _month, count(*) AS hours FROM read_parquet('${s.out}/sessions/**/*.parquet', hive_partitioning=true) GROUP BY 1 ORDER BY 1 DESC LIMIT 3" --db ${s.db}`,
    '',
  ];
  return lines.join('\n');
}

function holeLines(s: RunSummary): string[] {
  const { holes } = s;
  if (holes.open === 0 && holes.filled === 0 && holes.confirmedAbsent === 0) return [];
  return [
    '',
    `missing units: ${holes.open} still open, ${holes.filled} filled, ${holes.confirmedAbsent} confirmed absent in this run`,
    ...holes.units.map((u) => `  ${u.status === 'open' ? 'open     ' : 'absent   '} ${u.stream} ${u.seriesKey} ${u.unitStart} (asked ${u.attempts}×): ${u.reason}`),
  ];
}

function auditLines(s: RunSummary): string[] {
  const r = s.reconciliation;
  const lines: string[] = [];
  if (r.match + r.mismatch + r.incomplete > 0) lines.push(`reconciliation: ${r.match} match, ${r.mismatch} mismatch, ${r.incomplete} incomplete (\`engage-etl status\` lists them)`);
  if (s.restatements > 0) lines.push(`restated values: ${fmt(s.restatements)} stored value(s) changed on re-fetch (\`engage-etl status --restatements\` advises the look-back)`);
  return lines.length > 0 ? ['', ...lines] : [];
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}
