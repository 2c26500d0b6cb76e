// The options of one push, parsed once from flags and environment (ENGAGE_BASE_URL, ENGAGE_API_KEY, ENGAGE_SCIM_TOKEN,
// ENGAGE_REQUEST_ORIGIN) into a normalized PushOptions. Every refusal is a ConfigError naming the flag and the fix.
import { credentialProblem } from '../api/credential-rules.js';
import { normalizeBaseUrl, showUrl } from '../api/base-url.js';
import { DEFAULT_DB_PATH } from '../config/default-paths.js';
import { parseMaxInFlight } from '../config/max-in-flight-flag.js';
import { parseMaxWait } from '../config/max-wait-flag.js';
import { ConfigError } from '../errors.js';
import type { MappingOptions, TargetName } from './push-target.js';
import { TARGET_NAMES } from './push-target.js';
import { PUSH_TARGETS, isTargetName } from './target-registry.js';
import type { RowSource } from './row-source.js';

/** The flags of `engage-etl push` as commander hands them over. */
export interface RawPushFlags {
  sql?: string;
  table?: string;
  file?: string;
  db?: string;
  baseUrl?: string;
  apiKey?: string;
  scimToken?: string;
  requestOrigin?: string;
  batchSize?: string;
  inc?: string;
  mirror?: boolean;
  catalog?: string;
  update?: boolean;
  dryRun?: boolean;
  confirm?: boolean;
  maxRows?: string;
  json?: boolean;
  maxWait?: string;
  maxInFlight?: string;
}

export interface PushOptions {
  target: TargetName;
  source: RowSource;
  /** DuckDB database holding the source tables and the ledger. @default 'data/engage.duckdb' */
  db: string;
  /** Base URL of the instance without trailing slash; absent only for --dry-run. */
  baseUrl?: string;
  /** REST API key. Never logged or stored. Absent for --dry-run and dashboard-user-deletions. */
  apiKey?: string;
  /** SCIM token (dashboard-user-deletions). Never logged or stored. */
  scimToken?: string;
  /** X-Request-Origin of SCIM requests. */
  requestOrigin?: string;
  /** Rows per request. @default the target's maximum (75 for user-attributes, 50 for the bulk targets, 1 for the others) */
  batchSize: number;
  mapping: MappingOptions;
  /** subscriptions: unsubscribe the pairs that left the query. @default false */
  mirror: boolean;
  /** Print what would be sent; send nothing, write nothing. @default false */
  dryRun: boolean;
  /** Acknowledge an irreversible target. @default false */
  confirm: boolean;
  /** Refuse the push when more rows than this would be sent. @default undefined (no cap) */
  maxRows?: number;
  /** Print the summary (or the dry-run report) as JSON. @default false */
  json: boolean;
  /** Longest wait for a pool's rate-limit window (--max-wait). @default undefined (each pool's window + 5 minutes) */
  maxWaitMs?: number;
  /** The most requests in flight at once (--max-in-flight). @default undefined (each pool's own rule) */
  maxInFlight?: number;
}

function positiveInteger(flag: string, raw: string): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < 1)
    throw new ConfigError(flag, `must be a whole number ≥ 1, got "${raw}"`);
  return n;
}

function list(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

export function resolvePushOptions(targetName: string, flags: RawPushFlags, env: NodeJS.ProcessEnv): PushOptions {
  if (!isTargetName(targetName)) {
    throw new ConfigError('<target>', `"${targetName}" is not a push target; use one of: ${TARGET_NAMES.join(', ')}`);
  }
  const target = PUSH_TARGETS[targetName];
  const given = (['sql', 'table', 'file'] as const).filter((k) => flags[k] !== undefined);
  if (given.length !== 1) {
    throw new ConfigError(
      given.length === 0 ? '--sql' : `--${given.join(' / --')}`,
      given.length === 0
        ? 'no rows to push: give --sql "SELECT …", --table <name> or --file rows.csv|.json|.parquet'
        : 'give only one source of rows',
    );
  }
  const source: RowSource =
    flags.sql !== undefined
      ? { kind: 'sql', sql: flags.sql }
      : flags.table !== undefined
        ? { kind: 'table', table: flags.table }
        : { kind: 'file', path: flags.file! };

  let batchSize = target.maxBatchSize;
  if (flags.batchSize !== undefined) {
    batchSize = positiveInteger('--batch-size', flags.batchSize);
    if (batchSize < target.minBatchSize || batchSize > target.maxBatchSize) {
      throw new ConfigError(
        '--batch-size',
        `${targetName} sends ${target.minBatchSize === target.maxBatchSize ? `exactly ${target.maxBatchSize}` : `${target.minBatchSize} to ${target.maxBatchSize}`} rows per request, got ${batchSize}`,
      );
    }
  }
  const only = (flag: string, set: boolean, owner: TargetName): void => {
    if (set && targetName !== owner)
      throw new ConfigError(flag, `applies to ${owner} only, not ${targetName}; remove it`);
  };
  only('--inc', flags.inc !== undefined, 'user-attributes');
  only('--mirror', flags.mirror === true, 'subscriptions');
  only('--catalog', flags.catalog !== undefined, 'catalog-items');
  only('--update', flags.update === true, 'catalog-items');
  const catalog = flags.catalog?.trim();
  if (targetName === 'catalog-items' && !catalog)
    throw new ConfigError('--catalog', 'catalog-items needs the name of the catalog, e.g. --catalog restaurants');

  const dryRun = flags.dryRun === true;
  const confirm = flags.confirm === true;
  if (target.irreversible && !dryRun && !confirm) {
    throw new ConfigError(
      '--confirm',
      `${targetName} cannot be undone; look at --dry-run first, then add --confirm (and --max-rows N to cap it)`,
    );
  }
  const maxRows = flags.maxRows !== undefined ? positiveInteger('--max-rows', flags.maxRows) : undefined;

  const opts: PushOptions = {
    target: targetName,
    source,
    db: flags.db ?? DEFAULT_DB_PATH,
    batchSize,
    mapping: { incColumns: [...new Set(list(flags.inc))].sort(), update: flags.update === true, catalog },
    mirror: flags.mirror === true,
    dryRun,
    confirm,
    ...(maxRows !== undefined ? { maxRows } : {}),
    json: flags.json === true,
  };
  const maxWaitMs = parseMaxWait(flags.maxWait);
  if (maxWaitMs !== undefined) opts.maxWaitMs = maxWaitMs;
  const maxInFlight = parseMaxInFlight(flags.maxInFlight);
  if (maxInFlight !== undefined) opts.maxInFlight = maxInFlight;
  if (dryRun) return opts;

  const rawUrl = flags.baseUrl ?? env.ENGAGE_BASE_URL;
  if (rawUrl === undefined || rawUrl.trim() === '')
    throw new ConfigError(
      '--base-url',
      'is missing: give the REST base URL of your instance with --base-url or ENGAGE_BASE_URL',
    );
  const url = normalizeBaseUrl(rawUrl);
  if (!url.ok)
    throw new ConfigError(
      flags.baseUrl !== undefined ? '--base-url' : 'ENGAGE_BASE_URL',
      `${showUrl(rawUrl)} ${url.reason}`,
    );
  opts.baseUrl = url.url;

  if (targetName === 'dashboard-user-deletions') {
    const token = flags.scimToken ?? env.ENGAGE_SCIM_TOKEN;
    if (!token)
      throw new ConfigError(
        '--scim-token',
        'is missing: dashboard-user-deletions authenticates with the SCIM token (--scim-token or ENGAGE_SCIM_TOKEN)',
      );
    const origin = flags.requestOrigin ?? env.ENGAGE_REQUEST_ORIGIN;
    if (!origin)
      throw new ConfigError(
        '--request-origin',
        'is missing: SCIM requests carry X-Request-Origin (--request-origin or ENGAGE_REQUEST_ORIGIN)',
      );
    const tokenProblem = credentialProblem(token);
    if (tokenProblem)
      throw new ConfigError(
        flags.scimToken !== undefined ? '--scim-token' : 'ENGAGE_SCIM_TOKEN',
        `the SCIM token ${tokenProblem}`,
      );
    opts.scimToken = token;
    opts.requestOrigin = origin;
    return opts;
  }
  const apiKey = flags.apiKey ?? env.ENGAGE_API_KEY;
  if (!apiKey)
    throw new ConfigError(
      '--api-key',
      "is missing: give the REST API key with --api-key or ENGAGE_API_KEY (it needs the permission of the target's endpoint)",
    );
  const keyProblem = credentialProblem(apiKey);
  if (keyProblem)
    throw new ConfigError(
      flags.apiKey !== undefined ? '--api-key' : 'ENGAGE_API_KEY',
      `the REST API key ${keyProblem}`,
    );
  opts.apiKey = apiKey;
  return opts;
}
