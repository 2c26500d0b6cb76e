// Reads a pipeline file (YAML; JSON too, since YAML 1.2 is a superset of JSON and the same parser reads both) into a
// normalized PipelineDefinition. Every refusal names the file, line:column, field path, value and fix, and a file with
// several mistakes gets them all in one ConfigError, so a user fixes the file in one pass instead of one rerun each.
import { readFileSync } from 'node:fs';
import { DateTime } from 'luxon';
import { isMap, isNode, isScalar, LineCounter, parseDocument } from 'yaml';
import type { Document } from 'yaml';
import type { SeriesUnit } from '../api/types.js';
import { ConfigError } from '../errors.js';
import { parseDuration } from './duration.js';
import { parseUtcInstant } from '../time/utc-time.js';
import { DEFAULT_MAX_PAGES } from '../api/api-client.js';
import { normalizeBaseUrl, showUrl } from '../api/base-url.js';
import { suggestion } from './nearest-name.js';
import { DEFAULT_RETRY_LIMITS, RETRY_BOUNDS, RETRY_KEYS } from './retry-limits.js';
import type { RetryLimits } from './retry-limits.js';
import type { BackfillOrder, Lookback, PipelineDefinition, StreamName, StreamsConfig } from './pipeline-definition.js';
import { STREAMS, STREAM_NAMES } from '../streams/registry.js';
import { ALL, ALL_OBJECTS } from '../streams/option-reader.js';
import type { IdSelection, OptionReader } from '../streams/option-reader.js';

type Path = readonly (string | number)[];

/** @default 3 — enough to catch the restatements the platform makes in the days after a day closes. */
export const DEFAULT_LOOKBACK_DAYS = 3;

/** @default 28 — the deepest an `auto` look-back goes, on its probe nights; four weeks of re-reads at most. */
export const DEFAULT_LOOKBACK_MAX_DAYS = 28;

/** The word that hands `lookback_days` to the restatements seen. */
export const AUTO_LOOKBACK = 'auto';

/** @default 3 — a unit still missing after three more nightly runs is taken as absent upstream. */
export const DEFAULT_HOLE_RETRIES = 3;
export const BACKFILL_ORDERS = ['newest_first', 'oldest_first'] as const satisfies readonly BackfillOrder[];
export const DEFAULT_BACKFILL_ORDER: BackfillOrder = 'newest_first';
/** Pages one list may have before it counts as endless: the client's own default. */
export const DEFAULT_MAX_LIST_PAGES = DEFAULT_MAX_PAGES;

/** A workspace name: one path segment every object store and query engine reads as it is. */
export const WORKSPACE_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

const TOP_LEVEL_KEYS = [
  'name',
  'workspace',
  'start_date',
  'lookback_days',
  'lookback_max_days',
  'backfill_order',
  'hole_retries',
  'max_list_pages',
  'time_budget',
  'source',
  'retries',
  'streams',
  'report',
] as const;
const SOURCE_KEYS = ['base_url'] as const;
const REPORT_KEYS = ['path'] as const;
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/** Read and validate a pipeline file. Throws one ConfigError listing every problem, each naming the file and field. */
export function loadPipelineFile(path: string): PipelineDefinition {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : (code ?? String(err));
    throw new ConfigError(
      path,
      `cannot read the pipeline file (${why}); pass an existing file with --pipeline, e.g. --pipeline pipelines/nightly.yaml`,
    );
  }
  return parsePipelineText(text, path);
}

/** Validate pipeline text; `file` is only used to name the source in messages. */
export function parsePipelineText(text: string, file: string): PipelineDefinition {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const syntax = doc.errors[0];
  if (syntax !== undefined) {
    const { line, col } = lineCounter.linePos(syntax.pos[0]);
    const firstLine = (syntax.message.split('\n')[0] ?? syntax.message).replace(/\.$/, '');
    throw new ConfigError(
      `${file}:${line}:${col}`,
      `YAML syntax error: ${firstLine}. Fix the file at that line (indent with spaces, quote values containing ": " or "#").`,
    );
  }
  return new PipelineReader(file, doc, lineCounter).read(doc.toJS() as unknown);
}

/** One refusal at one field; thrown inside the reader and caught where reading can go on with the next field. */
class Refusal {
  constructor(
    readonly where: string,
    readonly message: string,
    /** Where the field starts in the text; a missing field has none and is listed first. */
    readonly offset = -1,
  ) {}
}

/**
 * One problem alone reads as before (`file:line:col at field: why`); several are listed under the file in file order,
 * numbered so the list still reads when the CLI prints it on one line.
 */
function refusalsError(file: string, refusals: readonly Refusal[]): ConfigError {
  const [only] = refusals;
  if (refusals.length === 1 && only !== undefined) return new ConfigError(only.where, only.message);
  const lines = [...refusals]
    .sort((a, b) => a.offset - b.offset)
    .map((r, i) => `\n  (${i + 1}) ${r.where}: ${r.message}`);
  return new ConfigError(file, `${refusals.length} problems in the pipeline file; fix each of them:${lines.join('')}`);
}

const API_KEY_NAME = /^api[_-]?key$/i;

function formatPath(path: Path): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

/** A value as a message shows it: JSON, shortened. */
function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = value instanceof Date ? value.toISOString() : (JSON.stringify(value) ?? String(value));
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function typeName(value: unknown): string {
  if (value === null) return 'empty (null)';
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Date) return 'a timestamp';
  return typeof value === 'object' ? 'a mapping' : `a ${typeof value}`;
}

class PipelineReader {
  readonly #refusals: Refusal[] = [];

  constructor(
    readonly file: string,
    readonly doc: Document,
    readonly lineCounter: LineCounter,
  ) {}

  /** `file:line:col at field.path` — line and column of the key (for key errors) or of the value. */
  where(path: Path, atKey = false, offset = this.offsetOf(path, atKey)): string {
    const pos = offset === undefined ? '' : (({ line, col }) => `:${line}:${col}`)(this.lineCounter.linePos(offset));
    return path.length === 0 ? `${this.file}${pos}` : `${this.file}${pos} at ${formatPath(path)}`;
  }

  private offsetOf(path: Path, atKey: boolean): number | undefined {
    if (path.length === 0) return isNode(this.doc.contents) ? this.doc.contents.range?.[0] : undefined;
    if (atKey) {
      const parent = path.length === 1 ? this.doc.contents : this.doc.getIn(path.slice(0, -1), true);
      if (isMap(parent)) {
        const pair = parent.items.find((p) => isScalar(p.key) && p.key.value === path.at(-1));
        if (pair !== undefined && isNode(pair.key)) return pair.key.range?.[0];
      }
    }
    const node = this.doc.getIn(path, true);
    return isNode(node) ? node.range?.[0] : undefined;
  }

  /**
   * The YAML trap behind a value that should be text: unquoted, `0012` is the number 12, `yes` may be true, `2024-01-01`
   * a date. Says what YAML read and how to quote the text as written; empty when the value was not an unquoted scalar.
   */
  textTrap(path: Path, value: unknown): string {
    const node = this.doc.getIn(path, true);
    if (typeof value === 'string' || !isScalar(node) || node.type !== 'PLAIN' || typeof node.source !== 'string')
      return '';
    const read =
      value instanceof Date
        ? `the timestamp ${value.toISOString()}`
        : `the ${value === null ? 'empty value' : typeof value} ${show(value)}`;
    const key = path.at(-1);
    return `; YAML read the unquoted ${node.source} as ${read}: quote it to keep it as text, ${typeof key === 'string' ? `${key}: ` : ''}"${node.source}"`;
  }

  fail(path: Path, message: string, atKey = false): never {
    throw this.refusal(path, message, atKey);
  }

  /** Records a refusal and reads on. */
  private note(path: Path, message: string, atKey = false): void {
    this.#refusals.push(this.refusal(path, message, atKey));
  }

  private refusal(path: Path, message: string, atKey: boolean): Refusal {
    const offset = this.offsetOf(path, atKey);
    return new Refusal(this.where(path, atKey, offset), message, offset);
  }

  /** Reads one field; a refusal is recorded and `fallback` stands in, so the fields after it are still checked. */
  private attempt<T>(read: () => T, fallback: T): T {
    try {
      return read();
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      this.#refusals.push(err);
      return fallback;
    }
  }

  read(root: unknown): PipelineDefinition {
    if (root === null || root === undefined) {
      throw refusalsError(this.file, [
        this.refusal(
          [],
          'the pipeline file is empty; it needs a mapping with name, start_date and streams (see pipelines/nightly.yaml)',
          false,
        ),
      ]);
    }
    if (!isPlainObject(root)) {
      throw refusalsError(this.file, [
        this.refusal(
          [],
          `the pipeline file must be a mapping (key: value lines), found ${typeName(root)}; start with "name: ..."`,
          false,
        ),
      ]);
    }
    this.refuseApiKeys(root, []);
    this.refuseUnknownKeys(root, [], TOP_LEVEL_KEYS, 'top-level key');

    const name = this.attempt(() => this.name(root), '');
    const workspace = this.attempt(() => this.workspace(root), undefined);
    const startDate = this.attempt(() => this.date(root, ['start_date']), undefined);
    const maxDays = this.attempt(() => this.lookbackMaxDays(root), DEFAULT_LOOKBACK_MAX_DAYS);
    const lookback = this.attempt(() => this.lookback(root, [], maxDays), {
      mode: 'fixed',
      days: DEFAULT_LOOKBACK_DAYS,
    } as Lookback);
    const holeRetries = this.attempt(
      () =>
        this.wholeNumber(
          root,
          'hole_retries',
          DEFAULT_HOLE_RETRIES,
          'runs ≥ 0; e.g. hole_retries: 3 (0 confirms a missing unit absent at once)',
        ),
      0,
    );
    const timeBudgetMs = this.attempt(() => this.timeBudget(root), undefined);
    const backfillOrder = this.attempt(() => this.backfillOrder(root), DEFAULT_BACKFILL_ORDER);
    const maxListPages = this.attempt(() => {
      const pages = this.wholeNumber(
        root,
        'max_list_pages',
        DEFAULT_MAX_LIST_PAGES,
        'pages ≥ 1; e.g. max_list_pages: 2000 for a list of 500,000 event names',
      );
      if (pages < 1)
        this.fail(
          ['max_list_pages'],
          `0 is not a whole number of pages ≥ 1; e.g. max_list_pages: ${DEFAULT_MAX_LIST_PAGES}`,
        );
      return pages;
    }, DEFAULT_MAX_LIST_PAGES);
    const source = this.attempt(() => this.source(root), {});
    const retries = this.attempt(() => this.retries(root), DEFAULT_RETRY_LIMITS);
    const streamLookbacks: Partial<Record<StreamName, Lookback>> = {};
    const streams = this.attempt(() => this.streams(root, lookback, maxDays, streamLookbacks), {});
    if (
      root['lookback_max_days'] !== undefined &&
      lookback.mode !== 'auto' &&
      !Object.values(streamLookbacks).some((l) => l.mode === 'auto')
    ) {
      this.note(
        ['lookback_max_days'],
        'bounds only lookback_days: auto, and no lookback_days here says auto; write lookback_days: auto or remove lookback_max_days',
        true,
      );
    }
    const report = this.attempt(() => this.report(root), undefined);
    if (this.#refusals.length > 0 || startDate === undefined) throw refusalsError(this.file, this.#refusals);
    const streamNames = STREAM_NAMES.filter((s) => streams[s] !== undefined);
    return {
      name,
      startDate,
      lookback,
      streamLookbacks,
      backfillOrder,
      holeRetries,
      maxListPages,
      source,
      retries,
      streams,
      streamNames,
      ...(workspace ? { workspace } : {}),
      ...(report ? { report } : {}),
      ...(timeBudgetMs !== undefined ? { timeBudgetMs } : {}),
    };
  }

  /** `lookback_max_days: 28`: at least 1, since a probe that re-reads nothing finds nothing. */
  private lookbackMaxDays(root: Record<string, unknown>): number {
    const days = this.wholeNumber(
      root,
      'lookback_max_days',
      DEFAULT_LOOKBACK_MAX_DAYS,
      `days ≥ 1; e.g. lookback_max_days: ${DEFAULT_LOOKBACK_MAX_DAYS}`,
    );
    if (days < 1)
      this.fail(
        ['lookback_max_days'],
        `0 is not a whole number of days ≥ 1; e.g. lookback_max_days: ${DEFAULT_LOOKBACK_MAX_DAYS}`,
      );
    return days;
  }

  /** `lookback_days: 3` or `lookback_days: auto`, at the top (`at` empty) or in a stream's block; absent: `fallback`. */
  private lookback(
    obj: Record<string, unknown>,
    at: Path,
    maxDays: number,
    fallback: Lookback = { mode: 'fixed', days: DEFAULT_LOOKBACK_DAYS },
  ): Lookback {
    const value = obj['lookback_days'];
    if (value === undefined || value === null) return fallback;
    if (value === AUTO_LOOKBACK) return { mode: 'auto', maxDays };
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
      this.fail(
        [...at, 'lookback_days'],
        `${show(value)} is not a whole number of days ≥ 0 nor ${AUTO_LOOKBACK}; e.g. lookback_days: 3 (0 re-fetches nothing before the watermark) or lookback_days: ${AUTO_LOOKBACK} (set from the restatements seen, at most lookback_max_days)`,
      );
    }
    return { mode: 'fixed', days: value };
  }

  /** `backfill_order: newest_first | oldest_first`. */
  private backfillOrder(root: Record<string, unknown>): BackfillOrder {
    const value = root['backfill_order'];
    if (value === undefined || value === null) return DEFAULT_BACKFILL_ORDER;
    if (typeof value !== 'string' || !(BACKFILL_ORDERS as readonly string[]).includes(value)) {
      this.fail(
        ['backfill_order'],
        `${show(value)} is not ${BACKFILL_ORDERS.join(' nor ')}; e.g. backfill_order: newest_first (a backfill loads each series from its newest complete day backwards)`,
      );
    }
    return value as BackfillOrder;
  }

  /** `time_budget: 3h`: the longest a run sends requests (see RunOptions.timeBudgetMs). */
  private timeBudget(root: Record<string, unknown>): number | undefined {
    const value = root['time_budget'];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string')
      this.fail(
        ['time_budget'],
        `${show(value)} is not a duration; write a number and a unit (s, m, h, d) in quotes if needed, e.g. time_budget: 3h`,
      );
    try {
      return parseDuration(value, 'time_budget');
    } catch (err) {
      return this.fail(
        ['time_budget'],
        err instanceof ConfigError ? err.message.replace(/^time_budget:?\s*/, '') : String(err),
      );
    }
  }

  /** `workspace: NAME`: a path part (`workspace=NAME/`) and a column value, so letters, digits, `_` and `-` only. */
  private workspace(root: Record<string, unknown>): string | undefined {
    const value = root['workspace'];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string')
      this.fail(
        ['workspace'],
        `must be text, found ${typeName(value)} ${show(value)}${this.textTrap(['workspace'], value)}`,
      );
    if (!WORKSPACE_PATTERN.test(value)) {
      this.fail(
        ['workspace'],
        `${show(value)} is not a usable workspace name; use letters, digits, "_" and "-" only (it becomes the path part workspace=NAME/ and the workspace column), e.g. workspace: brand_eu`,
      );
    }
    return value;
  }

  private name(root: Record<string, unknown>): string {
    const name = this.requiredString(root, ['name'], 'e.g. name: nightly');
    if (!NAME_PATTERN.test(name)) {
      this.fail(
        ['name'],
        `${show(name)} is not a usable pipeline name; use letters, digits, "_" and "-" only, starting with a letter or digit (e.g. nightly)`,
      );
    }
    return name;
  }

  /** Keys belong in flags or the environment: a key in a file ends up committed and shared. */
  private refuseApiKeys(value: unknown, path: Path): void {
    if (Array.isArray(value)) {
      value.forEach((v, i) => this.refuseApiKeys(v, [...path, i]));
      return;
    }
    if (!isPlainObject(value)) return;
    for (const [key, inner] of Object.entries(value)) {
      if (API_KEY_NAME.test(key)) {
        this.note(
          [...path, key],
          'an API key must not be written in a pipeline file (files get committed and shared); remove this key and pass the key with --api-key or the ENGAGE_API_KEY environment variable',
          true,
        );
        continue;
      }
      this.refuseApiKeys(inner, [...path, key]);
    }
  }

  private refuseUnknownKeys(obj: Record<string, unknown>, path: Path, valid: readonly string[], what: string): void {
    for (const key of Object.keys(obj)) {
      // An API key is refused once, by refuseApiKeys, with the advice that matters.
      if (!valid.includes(key) && !API_KEY_NAME.test(key)) {
        const tail = valid.length === 0 ? ' This stream takes no options: write it as "{}".' : suggestion(key, valid);
        this.note([...path, key], `unknown ${what} ${show(key)}.${tail}`, true);
      }
    }
  }

  private requiredString(obj: Record<string, unknown>, path: Path, example: string): string {
    const value = obj[String(path.at(-1))];
    if (value === undefined) this.fail(path, `is required but missing; add it (${example})`);
    if (typeof value !== 'string' || value.trim() === '') {
      this.fail(
        path,
        `must be a non-empty text, found ${typeName(value)} ${show(value)} (${example})${this.textTrap(path, value)}`,
      );
    }
    return value.trim();
  }

  private date(obj: Record<string, unknown>, path: Path): DateTime {
    const value = obj[String(path.at(-1))];
    if (value === undefined)
      this.fail(path, 'is required but missing; add the first UTC day to export, e.g. start_date: 2024-01-01');
    if (value instanceof Date) return DateTime.fromJSDate(value, { zone: 'utc' });
    const parsed = typeof value === 'string' ? parseUtcInstant(value) : undefined;
    if (parsed === undefined) {
      this.fail(path, `${show(value)} is not a date; write YYYY-MM-DD (a UTC day), e.g. 2024-01-01`);
    }
    return parsed;
  }

  private wholeNumber(obj: Record<string, unknown>, key: string, fallback: number, example: string): number {
    const value = obj[key];
    if (value === undefined || value === null) return fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
      this.fail([key], `${show(value)} is not a whole number of ${example}`);
    }
    return value;
  }

  /** `retries:`; bounds keep a typo from turning a nightly run into a day-long one. Each bad field is its own problem. */
  private retries(obj: Record<string, unknown>): RetryLimits {
    const value = obj['retries'];
    if (value === undefined || value === null) return DEFAULT_RETRY_LIMITS;
    if (!isPlainObject(value))
      this.fail(
        ['retries'],
        `must be a mapping, found ${typeName(value)}; e.g. retries: { max_attempts: 6, max_wait_seconds: 120 }`,
      );
    for (const key of Object.keys(value)) {
      // An API key is refused once, by refuseApiKeys.
      if (!(RETRY_KEYS as readonly string[]).includes(key) && !API_KEY_NAME.test(key)) {
        this.note(
          ['retries', key],
          `unknown key in retries ${JSON.stringify(key)}; use ${RETRY_KEYS.join(' or ')}`,
          true,
        );
      }
    }
    const bounded = (key: (typeof RETRY_KEYS)[number], fallback: number): number =>
      this.attempt(() => {
        const v = value[key];
        const { min, max } = RETRY_BOUNDS[key];
        if (v === undefined || v === null) return fallback;
        if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
          this.fail(
            ['retries', key],
            `${show(v)} is not a whole number from ${min} to ${max}; e.g. ${key}: ${fallback}`,
          );
        }
        return v;
      }, fallback);
    return {
      maxAttempts: bounded('max_attempts', DEFAULT_RETRY_LIMITS.maxAttempts),
      maxWaitSeconds: bounded('max_wait_seconds', DEFAULT_RETRY_LIMITS.maxWaitSeconds),
    };
  }

  private source(obj: Record<string, unknown>): { baseUrl?: string } {
    const value = obj['source'];
    if (value === undefined || value === null) return {};
    if (!isPlainObject(value))
      this.fail(
        ['source'],
        `must be a mapping, found ${typeName(value)}; e.g. source: { base_url: https://rest.example.com }`,
      );
    this.refuseUnknownKeys(value, ['source'], SOURCE_KEYS, 'key in source');
    const raw = value['base_url'];
    if (raw === undefined || raw === null) return {};
    if (typeof raw !== 'string')
      this.fail(['source', 'base_url'], `must be a URL text, found ${typeName(raw)} ${show(raw)}`);
    const url = normalizeBaseUrl(raw);
    if (!url.ok)
      this.fail(['source', 'base_url'], `${showUrl(raw)} ${url.reason}; e.g. base_url: https://rest.example.com`);
    return { baseUrl: url.url };
  }

  private report(obj: Record<string, unknown>): { path?: string } | undefined {
    const value = obj['report'];
    if (value === undefined || value === null) return undefined;
    if (!isPlainObject(value))
      this.fail(
        ['report'],
        `must be a mapping, found ${typeName(value)}; e.g. report: {} (report.html beside the database) or report: { path: out/report.html }`,
      );
    this.refuseUnknownKeys(value, ['report'], REPORT_KEYS, 'key in report');
    const path = value['path'];
    if (path === undefined || path === null) return {};
    if (typeof path !== 'string' || !/\.html?$/i.test(path.trim())) {
      this.fail(
        ['report', 'path'],
        `${show(path)} is not the path of an HTML file; e.g. report: { path: out/report.html }, or report: {} for report.html beside the database`,
      );
    }
    return { path: path.trim() };
  }

  /**
   * The streams' options; `lookbacks` receives each series stream's look-back (its own `lookback_days`, else `lookback`).
   * `lookback_days` is read here, not by the stream's declaration: every series stream takes it, and no other stream.
   */
  private streams(
    obj: Record<string, unknown>,
    lookback: Lookback,
    maxDays: number,
    lookbacks: Partial<Record<StreamName, Lookback>>,
  ): StreamsConfig {
    const value = obj['streams'];
    if (value === undefined || value === null) {
      this.fail(
        ['streams'],
        `is required; declare at least one stream among ${STREAM_NAMES.join(', ')} (e.g. streams: { custom_events: {} })`,
      );
    }
    if (!isPlainObject(value))
      this.fail(['streams'], `must be a mapping of stream name to options, found ${typeName(value)}`);
    this.refuseUnknownKeys(value, ['streams'], STREAM_NAMES, 'stream');
    if (Object.keys(value).length === 0) {
      this.fail(['streams'], `is empty; declare at least one stream among ${STREAM_NAMES.join(', ')}`);
    }
    const out: Record<string, unknown> = {};
    for (const stream of STREAMS) {
      if (!(stream.name in value)) continue;
      const raw = value[stream.name];
      const path = ['streams', stream.name];
      // `custom_events:` with nothing after it is YAML null: read as "no options".
      const block = raw === null ? {} : raw;
      if (!isPlainObject(block)) {
        this.note(path, `must be a mapping of options (or {}), found ${typeName(raw)} ${show(raw)}`);
        continue;
      }
      const { lookback_days: ownLookback, ...options } = block;
      if (stream.kind === 'series') {
        lookbacks[stream.name] = this.attempt(() => this.lookback(block, path, maxDays, lookback), lookback);
      } else if (ownLookback !== undefined) {
        this.note(
          [...path, 'lookback_days'],
          `${stream.name} re-reads nothing before a watermark (it is read whole every run), so it takes no look-back; remove lookback_days here`,
          true,
        );
      }
      this.refuseUnknownKeys(options, path, stream.options.keys, `key in stream ${stream.name}`);
      out[stream.name] = this.attempt(() => stream.options.read(this.optionReader(options, path)), undefined);
    }
    return out as StreamsConfig;
  }

  /**
   * The reader a stream declaration validates its options with: every refusal names file, line and field. A refused
   * option reads as its default so the stream's other options are still checked (the file is refused anyway).
   */
  private optionReader(o: Record<string, unknown>, path: Path): OptionReader {
    const none: IdSelection = { all: false, ids: [] };
    return {
      unit: (allowed) => this.attempt(() => this.unit(o, path, allowed), allowed[0] ?? 'day'),
      boolean: (key) => this.attempt(() => this.boolean(o, path, key), false),
      selectors: (key, example) => this.attempt(() => this.selectors(o, path, key, example), [ALL]),
      ids: (key, example) => this.attempt(() => this.ids(o, path, key, example), []),
      idSelection: (key, example, opts) =>
        this.attempt(() => this.idSelection(o, path, key, example, opts?.aggregate ?? false), none),
      choice: (key, allowed) => this.attempt(() => this.choice(o, path, key, allowed), allowed[0]!),
      idsOr: (key, word, example) =>
        o[key] === word ? word : this.attempt(() => this.ids(o, path, key, `${example}, or ${key}: ${word}`), []),
      subset: (key, allowed) => this.attempt(() => this.subset(o, path, key, allowed), allowed),
      fail: (key, message) => this.fail(key === undefined ? path : [...path, key], message),
    };
  }

  private unit(o: Record<string, unknown>, path: Path, allowed: readonly SeriesUnit[]): SeriesUnit {
    const value = o['unit'];
    const fallback = allowed[0] ?? 'day';
    if (value === undefined || value === null) return fallback;
    if (allowed.length === 1 && value !== fallback && (value === 'day' || value === 'hour')) {
      this.fail(
        [...path, 'unit'],
        `${show(value)} is not available: ${String(path.at(-1))} is a ${fallback === 'day' ? 'daily' : 'hourly'} series only (its endpoint has no other unit); remove unit or write unit: ${fallback}`,
      );
    }
    if (!allowed.includes(value as SeriesUnit))
      this.fail(
        [...path, 'unit'],
        `${show(value)} is not a unit; write ${allowed.map((u) => `unit: ${u}`).join(' or ')}`,
      );
    return value as SeriesUnit;
  }

  private choice<T extends string>(o: Record<string, unknown>, path: Path, key: string, allowed: readonly T[]): T {
    const value = o[key];
    if (value === undefined || value === null) return allowed[0]!;
    if (!allowed.includes(value as T))
      this.fail(
        [...path, key],
        `${show(value)} is not accepted; write ${allowed.map((a) => `${key}: ${a}`).join(' or ')}`,
      );
    return value as T;
  }

  private subset<T extends string>(
    o: Record<string, unknown>,
    path: Path,
    key: string,
    allowed: readonly T[],
  ): readonly T[] {
    if (o[key] === undefined || o[key] === null) return allowed;
    const values = this.list(o, [...path, key], false, `e.g. ${key}: [${allowed.join(', ')}]`);
    values.forEach((v, i) => {
      if (!allowed.includes(v as T))
        this.fail([...path, key, i], `${show(v)} is not accepted; list some of ${allowed.join(', ')}`);
    });
    return values as readonly T[];
  }

  private boolean(o: Record<string, unknown>, path: Path, key: string): boolean {
    const value = o[key];
    if (value === undefined || value === null) return false;
    if (typeof value !== 'boolean')
      this.fail([...path, key], `must be true or false (unquoted), found ${typeName(value)} ${show(value)}`);
    return value;
  }

  /** A filter list where "*" means "parameter omitted"; defaults to ["*"]. */
  private selectors(o: Record<string, unknown>, path: Path, key: string, example: string): readonly string[] {
    if (o[key] === undefined || o[key] === null) return [ALL];
    return this.list(o, [...path, key], true, `e.g. ${example} ("*" = all)`);
  }

  /** A required list of explicit ids (the endpoint needs one id per request, so "*" is meaningless). */
  private ids(o: Record<string, unknown>, path: Path, key: string, example: string): readonly string[] {
    if (o[key] === undefined || o[key] === null)
      this.fail([...path, key], `is required but missing; list the ${example}`);
    return this.list(o, [...path, key], false, example);
  }

  /** An id list that may say `all` (alone, as `[all]` or beside ids); with `aggregate`, `"*"` too and a `["*"]` default. */
  private idSelection(
    o: Record<string, unknown>,
    path: Path,
    key: string,
    example: string,
    aggregate: boolean,
  ): IdSelection {
    const value = o[key];
    const at = [...path, key];
    const hint = `e.g. ${key}: all, ${key}: [all] or ${example}${aggregate ? ' ("*" = the aggregate over all)' : ''}`;
    if (value === undefined || value === null) {
      if (aggregate) return { all: false, ids: [ALL] };
      this.fail(at, `is required but missing; write ${hint}`);
    }
    if (value === ALL_OBJECTS) return { all: true, ids: [] };
    if (typeof value === 'string')
      this.fail(at, `must be a list or the word all, found the text ${show(value)}; ${hint}`);
    const entries = this.list(o, at, aggregate, hint);
    return { all: entries.includes(ALL_OBJECTS), ids: entries.filter((id) => id !== ALL_OBJECTS) };
  }

  private list(o: Record<string, unknown>, path: Path, allowAll: boolean, example: string): readonly string[] {
    const value = o[String(path.at(-1))];
    if (!Array.isArray(value)) this.fail(path, `must be a list, found ${typeName(value)} ${show(value)}; ${example}`);
    if (value.length === 0)
      this.fail(path, `is an empty list; list at least one entry (${example}) or remove the stream`);
    const seen = new Map<string, number>();
    // Each bad entry is named, not only the first; what stands in for it never leaves the reader (the file is refused).
    return value.map((entry: unknown, i: number) =>
      this.attempt(() => {
        const at = [...path, i];
        if (typeof entry !== 'string' || entry.trim() === '') {
          this.fail(at, `must be a non-empty text, found ${typeName(entry)} ${show(entry)}${this.textTrap(at, entry)}`);
        }
        const id = entry.trim();
        if (id === ALL && !allowAll)
          this.fail(at, `"*" is not allowed here: this endpoint needs explicit ids; ${example}`);
        const first = seen.get(id);
        if (first !== undefined)
          this.fail(at, `${show(id)} is listed twice (also at [${first}]); list each entry once`);
        seen.set(id, i);
        return id;
      }, ''),
    );
  }
}
