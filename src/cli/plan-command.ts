// `engage-etl plan`: what `run` would send with the same flags — requests per stream and per limit pool, the minimum,
// and the estimated duration under the pools' limits — without writing anything. Before a first run (no stored state,
// or --full-refresh) it reads the lists the run reads whole (those `all` needs, the paged lists), as the run would, and
// plans exactly from what they show: a few requests, counted. With stored state it sends nothing (the last run's lists
// stand in) unless --discover asks; --offline never sends anything, and then a first run's `all` is not counted.
import { Command, InvalidArgumentError } from 'commander';
import { DateTime } from 'luxon';
import { ApiClient } from '../api/api-client.js';
import { LIMIT_POOLS } from '../api/endpoints.js';
import type { PoolId } from '../api/endpoints.js';
import { RUN_RETRY_ADVICE } from '../config/retry-limits.js';
import { ConfigError } from '../errors.js';
import { resolveRunOptions } from '../config/run-options.js';
import type { RawRunFlags, RunOptions } from '../config/run-options.js';
import type { Plan } from '../pipeline/plan.js';
import { planWithoutRunning } from '../pipeline/plan-for-run.js';
import type { EstimateBound, PlanEstimate } from '../pipeline/plan-estimate.js';
import {
  DEFAULT_ESTIMATE_LATENCY_MS,
  estimateDuration,
  formatDuration,
  nightsAtBudget,
} from '../pipeline/plan-estimate.js';
import { MIN_IN_FLIGHT } from '../api/in-flight-window.js';
import { EXIT } from './exit-codes.js';
import { withJsonFailure, writeJsonLine } from './json-line.js';
import { addRunFlags, withSource } from './run-command.js';

interface PlanFlags extends RawRunFlags {
  latencyMs: number;
  discover?: boolean;
  offline?: boolean;
}

/** What `plan --json` prints. */
export interface PlanReport {
  pipeline: string;
  until: string;
  db: string;
  /** Whether stored watermarks were read ('read'), absent ('none') or ignored ('ignored (--full-refresh)'). */
  storedState: string;
  /** Requests the plan itself sent: the list pages `--discover` read (0 without it). Not part of `requests`'s run. */
  sent: number;
  streams: Plan['streams'];
  /**
   * Per series stream planned, the look-back the run re-reads: `lookbackDays` complete days before the watermarks,
   * `lookback` `"auto"` (set from the restatements seen, see `lookback_days: auto`) or `"fixed"` (the pipeline file's
   * number), `probe` when this run is an auto look-back's deeper probe at lookback_max_days, and why.
   */
  lookbacks: { stream: string; lookbackDays: number; lookback: 'auto' | 'fixed'; probe: boolean; reason: string }[];
  byPool: {
    pool: PoolId;
    requests: number;
    limit: number;
    windowMs: number;
    waves: number;
    inFlight: number;
    ms: number;
    boundBy: EstimateBound;
  }[];
  requests: number;
  minimum: number;
  /** True when a count is estimated: a paged list's pages, or without --discover the lists `all` reads. */
  estimated: boolean;
  /** False when a first run's `all` was not read (--offline, or no key): `requests` then leaves out every listed object. */
  countsAll: boolean;
  /**
   * With a time budget (`time_budget:` or --time-budget): the nights the planned requests take at it, at least, and the
   * budget; null without one.
   */
  nights: { nights: number; budgetMs: number } | null;
  /** `boundBy`: the slowest pool's rate, the round trips at the least it keeps in flight, or `--max-in-flight`. */
  estimate: { ms: number; latencyMs: number; maxInFlight: number | null; boundBy: EstimateBound; pool: PoolId | null };
}

// The key only authenticates requests and plan sends none without --discover: it must not be demanded just to print a plan.
const NO_KEY_NEEDED = 'engage-etl-plan-sends-no-request';

function latencyArg(raw: string): number {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0) {
    throw new InvalidArgumentError(`"${raw}" is not a number of milliseconds ≥ 0; e.g. --latency-ms 200`);
  }
  return value;
}

export function makePlanCommand(): Command {
  return addRunFlags(
    new Command('plan').description(
      'Print the requests `run` would send with the same flags (per stream and per limit pool), the minimum, and the estimated duration; sends no request (with --discover: only the pages of the lists the run reads whole).',
    ),
  )
    .option('--latency-ms <ms>', 'round trip of one request, for the estimate', latencyArg, DEFAULT_ESTIMATE_LATENCY_MS)
    .option(
      '--discover',
      'read the lists the run reads whole (those `all` needs, and data integrations) from the source — a few requests, counted — and plan exactly from them, also when state is stored; needs a source as run does (--base-url and --api-key, or --emulator)',
    )
    .option(
      '--offline',
      'send nothing, also before a first run: then `all` counts no object (no list is known yet) and the plan under-counts',
    )
    .addHelpText(
      'after',
      '\nBefore a first run (no stored state, or --full-refresh) plan reads the lists `all` needs and the paged lists — a few\nrequests, counted and shown — so its `requests` is what the first run sends. Without a key (or with --offline) it sends\nnothing and says that `all` is not counted.\n\nExamples:\n  engage-etl plan --emulator\n  engage-etl plan --emulator --discover --from 2026-01-01\n  engage-etl plan --base-url https://rest.example.com --from 2024-01-01 --full-refresh --latency-ms 300 --json',
    )
    .action(async (flags: PlanFlags) =>
      withJsonFailure(flags.json, async () => {
        if (flags.discover && flags.offline)
          throw new ConfigError(
            '--offline',
            'cannot be combined with --discover: --discover reads the lists, --offline sends nothing; choose one',
          );
        const env = { ...process.env };
        const keyGiven = Boolean(flags.apiKey ?? env['ENGAGE_API_KEY']) || flags.emulator === true;
        if (!flags.discover && !keyGiven) env['ENGAGE_API_KEY'] = NO_KEY_NEEDED;
        const opts = resolveRunOptions(flags, env, DateTime.utc());
        const discovered = () =>
          withSource(opts, (source) =>
            withDiscoveryClient(source, (client) => buildPlanReport(source, flags.latencyMs, client)),
          );
        let report = flags.discover ? await discovered() : await buildPlanReport(opts, flags.latencyMs);
        // A first run's `all` is unknown until the lists are read: read them (a few requests) unless told to send nothing.
        if (!flags.discover && report.storedState !== 'read') {
          if (!flags.offline && keyGiven) report = await discovered();
          else report = { ...report, countsAll: !report.streams.some((s) => s.stream.startsWith('discovery: ')) };
        }
        if (opts.json) writeJsonLine({ ...report }, EXIT.done, null);
        else process.stdout.write(formatPlan(report));
      }),
    );
}

/** A client as the run's (same retries and waits), for the lists `plan --discover` reads; closed after `fn`. */
async function withDiscoveryClient<T>(opts: RunOptions, fn: (client: ApiClient) => Promise<T>): Promise<T> {
  const client = ApiClient.create({
    baseUrl: opts.baseUrl!,
    apiKey: opts.apiKey!,
    retryAdvice: RUN_RETRY_ADVICE,
    maxAttempts: opts.pipeline.retries.maxAttempts,
    maxRetryWaitMs: opts.pipeline.retries.maxWaitSeconds * 1000,
    ...(opts.maxWaitMs !== undefined ? { maxWaitMs: opts.maxWaitMs } : {}),
  });
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

/**
 * Plans the run `opts` describes (database read-only) and estimates it at `latencyMs`. Without `client` no request is
 * sent; with it the lists the run reads whole are read through it (`plan --discover`).
 */
export async function buildPlanReport(
  opts: RunOptions,
  latencyMs: number = DEFAULT_ESTIMATE_LATENCY_MS,
  client?: ApiClient,
): Promise<PlanReport> {
  const { plan, storedState } = await planWithoutRunning(opts, client);
  const estimate: PlanEstimate = estimateDuration(plan.byPool, {
    latencyMs,
    ...(opts.maxInFlight !== undefined ? { maxInFlight: opts.maxInFlight } : {}),
  });
  return {
    pipeline: opts.pipeline.name,
    until: opts.until.toUTC().toISO() ?? '',
    db: opts.db,
    storedState,
    sent: client?.stats.requestsSent ?? 0,
    streams: plan.streams,
    lookbacks: plan.lookbacks.map((l) => ({
      stream: l.stream,
      lookbackDays: l.days,
      lookback: l.mode,
      probe: l.probe,
      reason: l.reason,
    })),
    byPool: estimate.pools.map(({ pool, requests, limit, windowMs, waves, inFlight, ms, boundBy }) => ({
      pool,
      requests,
      limit,
      windowMs,
      waves,
      inFlight,
      ms,
      boundBy,
    })),
    requests: plan.requests,
    minimum: plan.minimum,
    estimated: plan.estimated,
    countsAll: true,
    nights:
      opts.timeBudgetMs === undefined
        ? null
        : { nights: nightsAtBudget(plan.byPool, estimate.ms, opts.timeBudgetMs), budgetMs: opts.timeBudgetMs },
    estimate: {
      ms: estimate.ms,
      latencyMs: estimate.latencyMs,
      maxInFlight: estimate.maxInFlight ?? null,
      boundBy: estimate.boundBy,
      pool: estimate.pool ?? null,
    },
  };
}

export function formatPlan(r: PlanReport): string {
  const n = (v: number, approx = false) => `${approx ? '~' : ''}${v.toLocaleString('en-US')}`;
  const width = Math.max(...r.streams.map((s) => s.stream.length), 'total'.length);
  const poolWidth = Math.max(...r.byPool.map((p) => p.pool.length), 'pool'.length);
  const lines = [
    `engage-etl plan — pipeline ${r.pipeline}, until ${r.until}, stored state: ${r.storedState} (${r.db}); ${r.sent === 0 ? 'no request sent' : `${n(r.sent)} list request(s) sent (to read the lists the run reads), nothing else`}`,
    '',
    `  ${'stream'.padEnd(width)}  ${'series'.padStart(6)}  ${'requests'.padStart(9)}  ${'minimum'.padStart(9)}  pool`,
    ...r.streams.map(
      (s) =>
        `  ${s.stream.padEnd(width)}  ${n(s.series).padStart(6)}  ${n(s.requests, s.estimated).padStart(9)}  ${n(s.minimum, s.estimated).padStart(9)}  ${s.pool}${s.estimated ? (s.stream.startsWith('discovery: ') ? '  (list: pages expected from the entries stored last time; --discover reads it)' : '  (paged list: estimated from the rows stored last time)') : ''}${s.reconciliations > 0 ? `  (${n(s.reconciliations)} reconciliation request(s) included)` : ''}${s.holes > 0 ? `  (re-asks ${n(s.holes)} missing unit(s))` : ''}${s.unchanged ? `  (${n(s.unchanged)} listed unchanged since stored: not re-read)` : ''}`,
    ),
    `  ${'total'.padEnd(width)}  ${''.padStart(6)}  ${n(r.requests, r.estimated).padStart(9)}  ${n(r.minimum, r.estimated).padStart(9)}`,
    '',
    ...lookbackLines(r.lookbacks),
    `  ${'pool'.padEnd(poolWidth)}  ${'requests'.padStart(9)}  ${'limit'.padStart(16)}  ${'waves'.padStart(5)}  ${'in flight'.padStart(9)}  time alone`,
    ...r.byPool.map(
      (p) =>
        `  ${p.pool.padEnd(poolWidth)}  ${n(p.requests).padStart(9)}  ${`${n(p.limit)} / ${windowLabel(p.windowMs)}`.padStart(16)}  ${String(p.waves).padStart(5)}  ${String(p.inFlight).padStart(9)}  ${formatDuration(p.ms)} (${p.boundBy})`,
    ),
    '',
    `estimated duration: ${r.estimated ? '~' : ''}${formatDuration(r.estimate.ms)} at ${r.estimate.latencyMs} ms per request — ${boundSentence(r.estimate)}`,
    ...(r.nights === null
      ? []
      : [
          r.nights.nights <= 1
            ? `time budget ${formatDuration(r.nights.budgetMs)}: the run fits in one night`
            : `time budget ${formatDuration(r.nights.budgetMs)}: ${r.nights.nights} nights remain at least (each later night also re-reads the look-back of the series already loaded)`,
        ]),
    `minimum: ${r.requests === r.minimum ? 'the plan sends exactly the minimum' : `the plan sends ${n(r.requests - r.minimum)} more than the minimum`} ` +
      "(per series the fewest windows, each within its endpoint's largest length, that cover the look-back, the new units and the open holes; one request per id)",
    ...(r.streams.some((s) => s.stream.startsWith('discovery: '))
      ? [
          r.sent > 0
            ? 'discovery: each list `all` needs was read now, as the run reads it once at its start; `series` is the objects listed, and only objects whose list entry moved since stored are re-read'
            : r.countsAll
              ? 'discovery: each list `all` needs is read once at the start of the run; `series` is the objects it held at the last run, and only objects whose list entry moved are re-read (--discover reads the lists now)'
              : 'NOT COUNTED: `all` — before a first run no list is known and this plan sent nothing (--offline, or no API key): `all` counts no object here, and the run adds a request per object found and its series windows. Give the key (without --offline) and plan reads the lists, a few requests, and counts them',
        ]
      : []),
    ...(r.estimated
      ? [
          '~ marks estimates: paged lists and, without --discover, the lists `all` reads are counted from the rows stored last time; their real page count shows once fetched',
        ]
      : []),
    '',
  ];
  return lines.join('\n');
}

/** Each series stream's look-back: the days re-read before its watermarks, auto or fixed, and why. */
function lookbackLines(lookbacks: PlanReport['lookbacks']): string[] {
  if (lookbacks.length === 0) return [];
  const width = Math.max(...lookbacks.map((l) => l.stream.length));
  return [
    'look-back (complete days re-read before the stored watermarks):',
    ...lookbacks.map(
      (l) => `  ${l.stream.padEnd(width)}  ${`${l.lookbackDays} d`.padStart(5)}  ${l.lookback.padEnd(5)}  ${l.reason}`,
    ),
    '',
  ];
}

function boundSentence(e: PlanReport['estimate']): string {
  if (e.boundBy === 'cap') return `bound by the cap: --max-in-flight ${e.maxInFlight ?? ''}`;
  const pool = e.pool === null ? '' : ` of the ${e.pool} pool (${LIMIT_POOLS[e.pool].label})`;
  if (e.boundBy === 'rate')
    return `bound by the rate${pool}: it keeps rate × latency in flight, or spreads what exceeds its budget`;
  return `bound by latency${pool}: no pool's rate needs more than the ${MIN_IN_FLIGHT} requests each keeps in flight at least`;
}

/** A pool window as the spec writes it: `1 h`, `1 min`, `1 day`, or seconds for scaled-down windows. */
function windowLabel(ms: number): string {
  for (const [unit, size] of [
    ['day', 86_400_000],
    ['h', 3_600_000],
    ['min', 60_000],
  ] as const) {
    if (ms % size === 0) return `${ms / size} ${unit}`;
  }
  return `${ms / 1000} s`;
}
