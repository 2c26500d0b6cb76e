// Turns the raw `engage-etl run` flags, the environment and the pipeline file into one RunOptions, once, at the boundary.
// Precedence: flag > environment (ENGAGE_BASE_URL, ENGAGE_API_KEY) > pipeline file (base_url only).
import type { DateTime } from 'luxon';
import { credentialProblem } from '../api/credential-rules.js';
import { ConfigError } from '../errors.js';
import { parseDuration } from './duration.js';
import { parseDbLocation, parseLocation } from '../store/location.js';
import { parseUtcInstant } from '../time/utc-time.js';
import { normalizeBaseUrl, showUrl } from '../api/base-url.js';
import { DEFAULT_DB_PATH, DEFAULT_OUT_DIR, DEFAULT_PIPELINE_PATH } from './default-paths.js';
import { loadPipelineFile } from './load-pipeline-file.js';
import { parseMaxInFlight } from './max-in-flight-flag.js';
import { parseMaxWait } from './max-wait-flag.js';
import { suggestion } from './nearest-name.js';
import type { PipelineDefinition, StreamName } from './pipeline-definition.js';
import { isStreamName } from '../streams/registry.js';
import { STREAM_NAMES } from './pipeline-definition.js';

/** The flags of `engage-etl run` exactly as commander hands them over (strings and booleans, all optional). */
export interface RawRunFlags {
  pipeline?: string;
  baseUrl?: string;
  apiKey?: string;
  emulator?: boolean;
  db?: string;
  out?: string;
  from?: string;
  until?: string;
  streams?: string;
  fullRefresh?: boolean;
  json?: boolean;
  maxWait?: string;
  workDir?: string;
  maxInFlight?: string;
  checkpointEvery?: string;
  timeBudget?: string;
}

export interface RunOptions {
  pipeline: PipelineDefinition;
  /** @default 'pipelines/nightly.yaml' */
  pipelinePath: string;
  /** Base URL of the real service, without trailing slash; absent when `emulator` is true. */
  baseUrl?: string;
  /** REST API key from --api-key or ENGAGE_API_KEY. Never log it. */
  apiKey?: string;
  /** Run against the built-in emulator instead of a real service. @default false */
  emulator: boolean;
  /** DuckDB database file. @default 'data/engage.duckdb' */
  db: string;
  /** Parquet output directory. @default 'data/parquet' */
  out: string;
  /** Override of the lower bound (UTC); absent means the pipeline's start_date / the stored watermarks decide. */
  from?: DateTime;
  /** The run's frozen upper bound (UTC). @default the `now` given to resolveRunOptions */
  until: DateTime;
  /** Streams to run, in STREAM_NAMES order. @default every stream the pipeline file declares */
  streams: readonly StreamName[];
  /** Ignore watermarks and reload from `from` / start_date. @default false */
  fullRefresh: boolean;
  /** Print the run summary as JSON. @default false */
  json: boolean;
  /** Longest wait for a pool's rate-limit window (--max-wait). @default undefined (each pool's window + 5 minutes) */
  maxWaitMs?: number;
  /**
   * Local folder for the downloaded database, its working copy and files about to be uploaded, where `db` or `out` is an
   * `s3://` URL (--work-dir). @default a temp folder per run, removed at its end
   */
  workDir?: string;
  /** The most requests in flight at once across all pools (--max-in-flight). @default undefined (each pool's own rule) */
  maxInFlight?: number;
  /** With an `s3://` db: the least time between two checkpoints of the run's progress (--checkpoint-every). @default 5 minutes */
  checkpointEveryMs?: number;
  /**
   * How long the run may send requests (--time-budget, else the file's `time_budget:`): then no request starts, what is in
   * flight finishes, and everything committed is published. @default undefined (no budget)
   */
  timeBudgetMs?: number;
}

/** How far --until may be ahead of the clock (clock skew between machines). */
const UNTIL_SLACK_MS = 60_000;

/**
 * Validate and normalize everything a run needs. Throws ConfigError naming the flag, variable or file field and the fix;
 * the API key is masked out of every message, even one about a different value that happens to contain it.
 */
export function resolveRunOptions(flags: RawRunFlags, env: NodeJS.ProcessEnv, now: DateTime): RunOptions {
  const apiKey = nonEmpty(flags.apiKey) ?? nonEmpty(env['ENGAGE_API_KEY']);
  // Checked first: masking a key of a few letters out of the messages below would garble them ("--api-***ey").
  const keyProblem = apiKey === undefined ? undefined : credentialProblem(apiKey);
  if (keyProblem)
    throw new ConfigError(
      nonEmpty(flags.apiKey) !== undefined ? '--api-key' : 'ENGAGE_API_KEY',
      `the REST API key ${keyProblem}`,
    );
  try {
    return resolve(flags, env, now, apiKey);
  } catch (err) {
    if (err instanceof ConfigError && apiKey !== undefined && err.message.includes(apiKey)) {
      throw new ConfigError(
        err.where.split(apiKey).join('***'),
        err.message
          .slice(err.where.length + 2)
          .split(apiKey)
          .join('***'),
      );
    }
    throw err;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function resolve(flags: RawRunFlags, env: NodeJS.ProcessEnv, now: DateTime, apiKey: string | undefined): RunOptions {
  const pipelinePath = pathFlag(flags.pipeline, '--pipeline', DEFAULT_PIPELINE_PATH);
  const db = pathFlag(flags.db, '--db', DEFAULT_DB_PATH);
  const out = pathFlag(flags.out, '--out', DEFAULT_OUT_DIR);
  // An s3:// URL is checked here (exit 2 for a malformed one), not taken for a folder named `s3:`.
  parseDbLocation(db, '--db');
  parseLocation(out, '--out');
  const workDir = flags.workDir === undefined ? undefined : pathFlag(flags.workDir, '--work-dir', 'a temp folder');
  const pipeline = loadPipelineFile(pipelinePath);
  const emulator = flags.emulator === true;

  let baseUrl: string | undefined;
  if (emulator) {
    if (flags.baseUrl !== undefined) {
      throw new ConfigError(
        '--emulator',
        'cannot be combined with --base-url: choose the built-in emulator or a real service, not both',
      );
    }
    // ENGAGE_BASE_URL or a file's base_url are standing defaults; an explicit --emulator overrides them.
  } else {
    baseUrl = resolveBaseUrl(flags, env, pipeline);
    if (baseUrl === undefined) {
      throw new ConfigError(
        'source',
        'no source: pass --base-url or set ENGAGE_BASE_URL, or --emulator for the built-in emulator (never loads fake data into a real warehouse silently)',
      );
    }
    if (apiKey === undefined) {
      throw new ConfigError(
        '--api-key',
        `the service at ${baseUrl} needs a REST API key: pass --api-key KEY or set the ENGAGE_API_KEY environment variable`,
      );
    }
  }

  const nowUtc = now.toUTC();
  const from = instantFlag(flags.from, '--from');
  const until = instantFlag(flags.until, '--until') ?? nowUtc;
  if (until.toMillis() > nowUtc.toMillis() + UNTIL_SLACK_MS) {
    throw new ConfigError(
      '--until',
      `${until.toISO()} is in the future (now is ${nowUtc.toISO()}); data after now does not exist yet — pass an instant up to now, or omit --until`,
    );
  }
  if (from !== undefined && from.toMillis() > until.toMillis()) {
    throw new ConfigError(
      '--from',
      `${from.toISO()} is after --until ${until.toISO()}; pass a --from earlier than --until`,
    );
  }
  // Watermarks never stand before the start, so an --until at or before it leaves every series empty: a mistake to say
  // at once (exit 2) rather than a run that loads nothing and reports success (docs/decisions.md).
  const start = from ?? pipeline.startDate;
  if (until.toMillis() <= start.toMillis()) {
    const which = from !== undefined ? `--from ${from.toISO()}` : `start_date ${start.toISODate()} of ${pipelinePath}`;
    throw new ConfigError(
      '--until',
      `${until.toISO()} is not after ${which}: nothing is in range; pass a later --until, or an earlier ${from !== undefined ? '--from' : 'start_date'}`,
    );
  }

  return {
    pipeline,
    pipelinePath,
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    ...(apiKey !== undefined ? { apiKey } : {}),
    emulator,
    db,
    out,
    ...(from !== undefined ? { from } : {}),
    until,
    streams: selectStreams(flags.streams, pipeline, pipelinePath),
    fullRefresh: flags.fullRefresh === true,
    json: flags.json === true,
    ...maxWaitOption(flags.maxWait),
    ...(workDir !== undefined ? { workDir } : {}),
    ...maxInFlightOption(flags.maxInFlight),
    ...(flags.checkpointEvery !== undefined
      ? { checkpointEveryMs: parseDuration(flags.checkpointEvery, '--checkpoint-every') }
      : {}),
    ...timeBudgetOption(flags.timeBudget, pipeline.timeBudgetMs),
  };
}

function timeBudgetOption(raw: string | undefined, fromFile: number | undefined): { timeBudgetMs?: number } {
  const ms = raw !== undefined ? parseDuration(raw, '--time-budget') : fromFile;
  return ms === undefined ? {} : { timeBudgetMs: ms };
}

function maxInFlightOption(raw: string | undefined): { maxInFlight?: number } {
  const n = parseMaxInFlight(raw);
  return n === undefined ? {} : { maxInFlight: n };
}

function maxWaitOption(raw: string | undefined): { maxWaitMs?: number } {
  const ms = parseMaxWait(raw);
  return ms === undefined ? {} : { maxWaitMs: ms };
}

function pathFlag(value: string | undefined, flag: string, fallback: string): string {
  if (value === undefined) return fallback;
  if (value.trim() === '') throw new ConfigError(flag, `is empty; give a path or omit ${flag} for ${fallback}`);
  return value.trim();
}

function resolveBaseUrl(flags: RawRunFlags, env: NodeJS.ProcessEnv, pipeline: PipelineDefinition): string | undefined {
  const candidates: [string | undefined, string][] = [
    [flags.baseUrl, '--base-url'],
    [nonEmpty(env['ENGAGE_BASE_URL']), 'ENGAGE_BASE_URL'],
  ];
  for (const [raw, where] of candidates) {
    if (raw === undefined) continue;
    const url = normalizeBaseUrl(raw);
    if (!url.ok)
      throw new ConfigError(
        where,
        `${showUrl(raw)} ${url.reason}; give the service's base URL, e.g. https://rest.example.com`,
      );
    return url.url;
  }
  // The file's base_url was validated when the file was read.
  return pipeline.source.baseUrl;
}

function instantFlag(raw: string | undefined, flag: string): DateTime | undefined {
  if (raw === undefined) return undefined;
  const parsed = parseUtcInstant(raw);
  if (parsed === undefined) {
    throw new ConfigError(
      flag,
      `${JSON.stringify(raw)} is not an ISO 8601 date or date-time; e.g. 2024-03-10 or 2024-03-10T14:00:00Z (without a zone it is UTC)`,
    );
  }
  return parsed;
}

function selectStreams(
  raw: string | undefined,
  pipeline: PipelineDefinition,
  pipelinePath: string,
): readonly StreamName[] {
  if (raw === undefined) return pipeline.streamNames;
  const asked = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (asked.length === 0) {
    throw new ConfigError(
      '--streams',
      `is empty; list stream names separated by commas (e.g. --streams revenue,sessions) or omit it to run all of ${pipelinePath}`,
    );
  }
  const chosen = new Set<StreamName>();
  for (const name of asked) {
    if (!isStreamName(name)) {
      throw new ConfigError('--streams', `unknown stream ${JSON.stringify(name)}.${suggestion(name, STREAM_NAMES)}`);
    }
    const stream = name;
    if (!pipeline.streamNames.includes(stream)) {
      throw new ConfigError(
        '--streams',
        `stream ${JSON.stringify(name)} is not configured in ${pipelinePath}; add it under streams: there, or choose among ${pipeline.streamNames.join(', ')}`,
      );
    }
    chosen.add(stream);
  }
  return STREAM_NAMES.filter((s) => chosen.has(s));
}
