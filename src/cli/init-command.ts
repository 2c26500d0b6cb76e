// `engage-etl init`: a pipeline file for the user's own workspace. It reads the workspace's lists (only list requests,
// counted), writes the shipped template with the workspace's own ids or `all`, a stream-by-stream note where a first
// backfill needs more than one night of a pool, and prints the plan: requests per pool and nights under the time budget.
// It never replaces an existing file without --force (exit 2 before any request, the file unchanged).
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { Command } from 'commander';
import { DateTime } from 'luxon';
import { ApiClient } from '../api/api-client.js';
import { LIMIT_POOLS } from '../api/endpoints.js';
import { parseDuration } from '../config/duration.js';
import { findShippedDir } from '../config/package-dir.js';
import { RUN_RETRY_ADVICE } from '../config/retry-limits.js';
import { resolveRunOptions } from '../config/run-options.js';
import { ConfigError } from '../errors.js';
import type { DraftPipeline } from '../pipeline/draft-pipeline.js';
import { draftPipeline } from '../pipeline/draft-pipeline.js';
import { writeFileAtomically } from '../process/write-file-atomically.js';
import { parseUtcInstant } from '../time/utc-time.js';
import { EXIT } from './exit-codes.js';
import { withJsonFailure, writeJsonLine } from './json-line.js';
import { withSource } from './run-command.js';

interface InitFlags {
  baseUrl?: string;
  apiKey?: string;
  emulator?: boolean;
  output: string;
  startDate?: string;
  apps?: string;
  timeBudget: string;
  force?: boolean;
  json?: boolean;
}

/** Where `init` writes when no --output says otherwise: beside the shipped pipelines, under the user's own name. */
export const DEFAULT_INIT_OUTPUT = 'pipelines/workspace.yaml';
/** One night's budget when no --time-budget says otherwise: a nightly window that ends before the working day. */
export const DEFAULT_TIME_BUDGET = '3h';
/** The backfill's first day when no --start-date says otherwise: a year before today. */
const DEFAULT_BACKFILL_DAYS = 365;

export function makeInitCommand(): Command {
  return new Command('init')
    .description(
      'Write a pipeline file for your workspace: reads its lists (only list requests, counted), names its own ids or `all`, and prints how many nights the first backfill takes.',
    )
    .option('--base-url <url>', 'REST base URL of your instance (or ENGAGE_BASE_URL)')
    .option('--api-key <key>', 'REST API key (or ENGAGE_API_KEY, also read from ./.env); never written to the file')
    .option('--emulator', "read the built-in emulator's workspace instead")
    .option('--output <file>', 'the pipeline file to write', DEFAULT_INIT_OUTPUT)
    .option('--start-date <date>', `first day of the backfill, YYYY-MM-DD (default: ${DEFAULT_BACKFILL_DAYS} days ago)`)
    .option(
      '--apps <ids>',
      'comma-separated app ids to export one series each beside the aggregate (the platform lists no apps)',
    )
    .option(
      '--time-budget <duration>',
      "one night's time budget the first backfill is sized to, e.g. 3h or 90m",
      DEFAULT_TIME_BUDGET,
    )
    .option('--force', 'replace --output if it exists')
    .option('--json', 'print the result as one JSON line on stdout (on failure too)')
    .addHelpText(
      'after',
      [
        '',
        'Exit 0: the file was written; 2: --output exists (without --force: nothing sent, the file unchanged), or a flag,',
        'the key or the base URL is wrong.',
        '',
        'Examples:',
        '  npx engage-etl init --base-url https://rest.example.com --output pipelines/acme.yaml',
        '  npx engage-etl init --emulator --output /tmp/demo.yaml --start-date 2025-01-01 --json',
      ].join('\n'),
    )
    .action(async (flags: InitFlags) =>
      withJsonFailure(flags.json, async () => {
        const output = flags.output.trim();
        if (output === '')
          throw new ConfigError('--output', `is empty; give the file to write, e.g. --output ${DEFAULT_INIT_OUTPUT}`);
        if (!/\.ya?ml$/i.test(output))
          throw new ConfigError(
            '--output',
            `${JSON.stringify(output)} is not a .yaml file; e.g. --output ${DEFAULT_INIT_OUTPUT}`,
          );
        refuseOverwrite(output, flags.force === true);
        const now = DateTime.utc();
        const startDate = startDateOf(flags.startDate, now);
        const timeBudget = { ms: parseDuration(flags.timeBudget, '--time-budget'), text: flags.timeBudget.trim() };
        const apps = appsOf(flags.apps);
        const templatePath = join(findShippedDir('pipelines'), 'nightly.yaml');
        const opts = resolveRunOptions({ pipeline: templatePath, ...sourceFlags(flags) }, process.env, now);
        const template = await readFile(templatePath, 'utf8');
        await withSource(opts, async (source, label) => {
          const client = ApiClient.create({
            baseUrl: source.baseUrl!,
            apiKey: source.apiKey!,
            retryAdvice: RUN_RETRY_ADVICE,
            maxAttempts: source.pipeline.retries.maxAttempts,
            maxRetryWaitMs: source.pipeline.retries.maxWaitSeconds * 1000,
          });
          try {
            const shown =
              label === undefined
                ? { label: source.baseUrl!, flags: `--base-url ${source.baseUrl!}` }
                : { label: `the ${label}`, flags: '--emulator' };
            const draft = await draftPipeline({
              client,
              template,
              file: output,
              name: nameOf(output),
              startDate,
              until: now,
              apps,
              timeBudget,
              source: shown,
            });
            // Checked again: the lists took a while, and a file that appeared meanwhile is still not ours to replace.
            refuseOverwrite(output, flags.force === true);
            await writeFileAtomically(output, draft.text);
            const sent = client.stats.requestsSent;
            if (flags.json) writeJsonLine(initJson(output, startDate, timeBudget.ms, sent, draft), EXIT.done, null);
            else process.stdout.write(formatInit(output, shown, startDate, timeBudget.text, sent, draft));
          } finally {
            await client.close();
          }
        });
      }),
    );
}

function refuseOverwrite(output: string, force: boolean): void {
  if (force || !existsSync(output)) return;
  throw new ConfigError(
    '--output',
    `${output} exists and was left unchanged; pass --force to replace it, or choose another --output`,
  );
}

function sourceFlags(flags: InitFlags): { baseUrl?: string; apiKey?: string; emulator?: boolean } {
  return {
    ...(flags.baseUrl !== undefined ? { baseUrl: flags.baseUrl } : {}),
    ...(flags.apiKey !== undefined ? { apiKey: flags.apiKey } : {}),
    ...(flags.emulator ? { emulator: true } : {}),
  };
}

function startDateOf(raw: string | undefined, now: DateTime): string {
  if (raw === undefined) return now.minus({ days: DEFAULT_BACKFILL_DAYS }).toISODate()!;
  const day = /^\d{4}-\d{2}-\d{2}$/.test(raw.trim()) ? parseUtcInstant(raw.trim()) : undefined;
  if (day === undefined)
    throw new ConfigError(
      '--start-date',
      `${JSON.stringify(raw)} is not a day; write YYYY-MM-DD, e.g. --start-date ${now.minus({ days: DEFAULT_BACKFILL_DAYS }).toISODate()}`,
    );
  if (day.toMillis() >= now.startOf('day').toMillis())
    throw new ConfigError(
      '--start-date',
      `${raw} is not before today (${now.toISODate()}); the backfill starts on a past day`,
    );
  return day.toISODate()!;
}

function appsOf(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  const apps = [
    ...new Set(
      raw
        .split(',')
        .map((a) => a.trim())
        .filter((a) => a !== ''),
    ),
  ];
  if (apps.length === 0 || apps.includes('*'))
    throw new ConfigError(
      '--apps',
      `${JSON.stringify(raw)}: list app ids separated by commas, e.g. --apps ios_app_id,android_app_id (the aggregate "*" is always exported)`,
    );
  return apps;
}

/** The pipeline's `name:` from the file's name: `pipelines/acme.yaml` → `acme`. */
function nameOf(output: string): string {
  const stem = basename(output, extname(output)).replace(/[^A-Za-z0-9_-]+/g, '-');
  return stem === '' ? 'workspace' : stem;
}

function initJson(
  output: string,
  startDate: string,
  budgetMs: number,
  sent: number,
  d: DraftPipeline,
): Record<string, unknown> {
  return {
    output,
    start_date: startDate,
    sent,
    lists: d.lists.map((l) => ({ list: l.listing, objects: l.objects, pages: l.pages })),
    streams: d.pipeline.streamNames,
    left_out: d.leftOut,
    requests: d.plan.requests,
    time_budget_ms: budgetMs,
    nights: d.nights.nights,
    by_pool: d.nights.pools.map((p) => ({
      pool: p.pool,
      requests: p.requests,
      limit: p.limit,
      window_ms: p.windowMs,
      per_night: p.perNight,
      nights: p.nights,
    })),
  };
}

function formatInit(
  output: string,
  source: { label: string; flags: string },
  startDate: string,
  budget: string,
  sent: number,
  d: DraftPipeline,
): string {
  const n = (v: number) => v.toLocaleString('en-US');
  const width = Math.max(4, ...d.nights.pools.map((p) => p.pool.length));
  return [
    `engage-etl init — source ${source.label}: ${n(sent)} list request(s) sent, nothing else`,
    `  lists: ${d.lists.map((l) => `${l.listing} ${n(l.objects)}`).join(', ') || 'none needed'}`,
    ...d.leftOut.map((l) => `  left out ${l.stream}: ${l.reason}`),
    `wrote ${output} (${d.pipeline.streamNames.length} streams)`,
    '',
    `first backfill from ${startDate}: ${n(d.plan.requests)} requests`,
    `  ${'pool'.padEnd(width)}  ${'requests'.padStart(9)}  ${`per night (${budget})`.padStart(16)}  nights  limit`,
    ...d.nights.pools.map(
      (p) =>
        `  ${p.pool.padEnd(width)}  ${n(p.requests).padStart(9)}  ${n(p.perNight).padStart(16)}  ${String(p.nights).padStart(6)}  ${LIMIT_POOLS[p.pool].label}`,
    ),
    `→ ${d.nights.nights === 1 ? 'one night' : `${d.nights.nights} nights`} under a time budget of ${budget} a night${d.nights.nights > 1 ? ` (slowest: ${d.nights.pools[0]!.pool}, ${LIMIT_POOLS[d.nights.pools[0]!.pool].label}; the file says which streams need it)` : ''}`,
    '',
    'next:',
    `  npx engage-etl check --pipeline ${output} ${source.flags}`,
    `  npx engage-etl run --pipeline ${output} ${source.flags}`,
    '',
  ].join('\n');
}
