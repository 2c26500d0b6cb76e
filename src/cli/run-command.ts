// `engage-etl run`: the nightly export. Resolves flags, environment and pipeline file once, runs the pipeline with
// TTY progress or JSON-line logs, and prints a summary (or, with --json, the summary as JSON on stdout).
import { Command } from 'commander';
import { DateTime } from 'luxon';
import { resolveRunOptions } from '../config/run-options.js';
import type { RawRunFlags } from '../config/run-options.js';
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
    .option('--db <file>', 'DuckDB database file', 'data/engage.duckdb')
    .option('--out <dir>', 'Parquet output folder', 'data/parquet')
    .option('--from <date>', 'first day for series without state (default: the pipeline\'s start_date); UTC unless a zone is given')
    .option('--until <datetime>', 'upper bound of the run, frozen at start (default: now); UTC unless a zone is given')
    .option('--streams <list>', 'comma-separated streams to run (default: all in the pipeline file)')
    .option('--full-refresh', 'drop the selected streams\' data and state, reload from --from / start_date')
    .option('--json', 'print the summary as JSON on stdout');
}

export function makeRunCommand(): Command {
  return addRunFlags(new Command('run').description('Export the pipeline\'s streams into DuckDB and Parquet (incremental, exact, resumable).'))
    .addHelpText('after', '\nExamples:\n  engage-etl run --emulator\n  ENGAGE_API_KEY=... engage-etl run --base-url https://rest.example.com --until 2025-06-01')
    .action(async (flags: RawRunFlags) => {
      const opts = resolveRunOptions(flags, process.env, DateTime.utc());
      const reporter = process.stderr.isTTY && !opts.json ? new TtyProgressReporter(process.stderr) : new JsonLinesReporter(process.stderr);
      const summary = await runPipeline(opts, { reporter });
      process.stdout.write(opts.json ? `${JSON.stringify(summary, null, 2)}\n` : formatSummary(summary));
    });
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
    '',
    'Try:',
    `  npx engage-etl query "SELECT date_trunc('month', day) AS month, sum(revenue) AS revenue FROM analytics.purchases_daily GROUP BY 1 ORDER BY 1 DESC LIMIT 6" --db ${s.db}`,
    `  npx engage-etl query "SELECT year, count(*) AS hours FROM read_parquet('${s.out}/sessions/**/*.parquet', hive_partitioning=true) GROUP BY 1 ORDER BY 1 DESC LIMIT 3" --db ${s.db}`,
    '',
    ...(s.report ? [`Report: ${s.report}`, ''] : []),
  ];
  return lines.join('\n');
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}
