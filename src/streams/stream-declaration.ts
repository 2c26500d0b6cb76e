// What a stream declares: its name, pipeline-file options, tables, endpoint (hence limit pool and permission) and kind.
// Generic machinery plans, fetches, loads, exports and reports every stream from this object alone.
import type { DateTime } from 'luxon';
import type { ApiClient } from '../api/api-client.js';
import type { EndpointSpec } from '../api/endpoints.js';
import type { SeriesUnit } from '../api/types.js';
import type { ExtractedRows } from '../extract/extracted-rows.js';
import type { SeriesPoint } from '../extract/series-extractor.js';
import type { Window } from '../extract/windows.js';
import type { TableSpec } from '../load/table-definition.js';
import type { IdReference } from './id-reference.js';
import type { OptionReader } from './option-reader.js';
import type { ListedObject, ListRequest, WorkspaceList } from './workspace-lists.js';

/** The pipeline-file options of a stream: the keys it accepts and how to read them into a normalized value. */
export interface StreamOptions<O> {
  /** Keys the stream accepts, in the file's snake_case spelling. */
  readonly keys: readonly string[];
  /** A working options block in YAML flow style, for docs, `--help` and the JSON Schema. */
  readonly example: string;
  /** Reads and validates the options; every refusal goes through `r.fail` (file, line, field and fix). */
  read(r: OptionReader): O;
}

interface StreamBase<N extends string, O, T extends readonly TableSpec[]> {
  readonly name: N;
  /** One line for `plan`, docs and the JSON Schema. */
  readonly description: string;
  /** The endpoint the stream reads: its limit pool and the permission the key needs. */
  readonly endpoint: EndpointSpec;
  /** The tables the stream fills; the first is its main table. A full refresh empties them all. */
  readonly tables: T;
  readonly options: StreamOptions<O>;
  /** How `all` in the options becomes ids: absent for streams whose options cannot say `all`. */
  readonly discovery?: StreamDiscovery<O>;
  /** The ids the options name explicitly and the list each must be on, for `check`. @default none */
  readonly references?: (options: O) => readonly IdReference[];
}

/** The entries of the lists discovery read this run. */
export type ListedLookup = (request: ListRequest) => readonly ListedObject[];

/** How a stream's `all` is resolved from the workspace's lists at the start of each run (src/pipeline/discover.ts). */
export interface StreamDiscovery<O> {
  /** The lists these options need read (none when they say no `all`). */
  needs(options: O): readonly ListRequest[];
  /**
   * The options with every `all` replaced by the listed ids, and what the run should be told (once each): objects left
   * out (a segment whose analytics tracking is off) are skipped, never failed.
   */
  resolve(options: O, listed: ListedLookup): { options: O; notes: readonly string[] };
}

/**
 * One series of a series stream: a fixed set of request parameters, fetched window by window. A plan holds one per
 * series for the whole run, so a stream with one per listed object (canvas_summary, campaign_series) makes them
 * instances of a class, whose methods are shared, rather than objects of closures. Callers call `fetch` and
 * `rows` as methods.
 */
export interface SeriesInstance<V = unknown> {
  /** Parameters that identify the series besides its unit (`{ app_id: '*', product: 'gems' }`); they make its key. */
  readonly dims: Readonly<Record<string, string>>;
  readonly unit: SeriesUnit;
  /** Fetches one window; points carry `time` exactly as the server wrote it. */
  fetch(client: ApiClient, window: Window): Promise<SeriesPoint<V>[]>;
  /** The rows of one unit (start of the unit, UTC) and, for breakdown tables, the scopes they replace. */
  rows(unitStart: Date, value: V): ExtractedRows;
  /** The endpoint when the options choose another than the stream's (Canvas `source: data_summary`). @default the stream's */
  readonly endpoint?: EndpointSpec;
  /** The largest window of that endpoint, in units. @default the stream's `maxUnits` */
  readonly maxUnits?: number;
}

/**
 * A check run after a stream's series are loaded: one request to another endpoint whose totals must equal the sum of
 * the stored daily rows over a window (reconciliation). The result lands in `_etl_reconciliation`.
 */
export interface Reconciliation {
  /** Identifies the checked series (its series key). */
  readonly dims: Readonly<Record<string, string>>;
  readonly endpoint: EndpointSpec;
  /** The table whose rows are summed, and the column holding the unit's start. */
  readonly table: string;
  readonly timeColumn: string;
  /** Metric name → column summed. */
  readonly metrics: Readonly<Record<string, string>>;
  /** The most days one request of `endpoint` may span: the reconciled window is at most this long. */
  readonly maxDays: number;
  /** Fetches the expected totals (metric → value) of the days [start, end). */
  fetch(client: ApiClient, start: DateTime, end: DateTime): Promise<Record<string, number>>;
}

/**
 * Where the details of the object behind each series (a campaign, a Canvas) say when it was active. A day the platform
 * leaves out before the first activity or after the last is a day when nothing happened: recorded as quiet, never a hole.
 * The details are another stream's rows; when a window leaves out days those rows cannot explain (none stored for the
 * object, or stored at another list version than the list shows) and no stream of the run reads the object, the series
 * reads them itself, once, and stores them as that stream would.
 */
export interface SeriesActivity {
  /** The id-by-id stream whose main table holds the details (`campaigns`, `canvas_details`), read as the last run left it. */
  readonly details: PerIdStream;
  /** That stream's options for an object the series reads on its own. */
  readonly detailsOptions: unknown;
  /** The details table's id column, and the series dimension holding the same id. */
  readonly idColumn: string;
  readonly dim: string;
  /** Columns of the first and last activity (first_sent/last_sent, first_entry/last_entry); NULL last = still active, NULL first = not known; both NULL: holes as usual. */
  readonly first: string;
  readonly last: string;
}

/** The table holding an activity's details: its details stream's main table. */
export function activityTable(a: SeriesActivity): string {
  return a.details.tables[0]!.name;
}

/** A time series with a unit: planned as exact incremental windows of at most `maxUnits` units. */
export interface SeriesStream<
  N extends string = string,
  O = unknown,
  T extends readonly TableSpec[] = readonly TableSpec[],
> extends StreamBase<N, O, T> {
  readonly kind: 'series';
  /** The largest window one request may ask for, in units (e.g. `length` 1–100; 1 for one-day roll-ups). */
  readonly maxUnits: number;
  /** Where each series' object says when it was active. @default none (every unit left out is a hole) */
  readonly activity?: SeriesActivity;
  /** The series the options ask for (with every `all` already resolved by discovery). */
  series(options: O): SeriesInstance[];
  /** Reconciliations to run once per run after the series are loaded. @default none */
  reconcile?(options: O): Reconciliation[];
}

/** A list read whole every run, page by page; its page count is estimated from the rows stored last time. */
export interface PagedListStream<
  N extends string = string,
  O = unknown,
  T extends readonly TableSpec[] = readonly TableSpec[],
> extends StreamBase<N, O, T> {
  readonly kind: 'paged_list';
  /** Pages to expect when the main table holds `storedRows` rows. */
  estimatePages(storedRows: number): number;
  /** Every page; `until` is the run's frozen upper bound (for first/last-seen stamps). */
  fetch(client: ApiClient, options: O, until: Date): Promise<ExtractedRows & { pages: number }>;
}

/** Objects fetched one request per id, every run. */
export interface PerIdStream<
  N extends string = string,
  O = unknown,
  T extends readonly TableSpec[] = readonly TableSpec[],
> extends StreamBase<N, O, T> {
  readonly kind: 'per_id';
  ids(options: O): readonly string[];
  /**
   * One object's rows. `listed` is its list entry when discovery found it: the list's fields (last_edited, tags…) go
   * into the row, and its version into `_list_version`, so the next run re-reads the object only when that moves.
   */
  fetch(client: ApiClient, id: string, options: O, listed?: ListedObject): Promise<ExtractedRows>;
  /**
   * The version a stored row must carry to count as current, when options change what a row holds (content blocks
   * with `inclusion_data`): switching such an option then re-reads every object once. @default the list's version
   */
  listVersion?(listed: ListedObject, options: O): string;
  /**
   * An error for one id that must not fail the run (a content block deleted upstream): the warning to give instead.
   * Undefined rethrows.
   */
  tolerate?(error: unknown, id: string): string | undefined;
}

/**
 * A workspace list stored as it is (products, custom event names): discovery reads it at the start of the run and its rows cost no
 * request beyond the list's pages, which the plan counts under discovery.
 */
export interface ListingStream<
  N extends string = string,
  O = unknown,
  T extends readonly TableSpec[] = readonly TableSpec[],
> extends StreamBase<N, O, T> {
  readonly kind: 'listing';
  readonly list: WorkspaceList;
  /** The rows of the listed objects; `until` is the run's frozen upper bound (for first-seen stamps). */
  rows(listed: readonly ListedObject[], until: Date): ExtractedRows;
}

export type StreamDeclaration<
  N extends string = string,
  O = unknown,
  T extends readonly TableSpec[] = readonly TableSpec[],
> = SeriesStream<N, O, T> | PagedListStream<N, O, T> | PerIdStream<N, O, T> | ListingStream<N, O, T>;

// Declaring helpers keep a stream's literal name, options type and tables, from which the registry derives its types.

export function seriesStream<const N extends string, O, const T extends readonly TableSpec[]>(
  stream: SeriesStream<N, O, T>,
): SeriesStream<N, O, T> {
  return stream;
}

export function pagedListStream<const N extends string, O, const T extends readonly TableSpec[]>(
  stream: PagedListStream<N, O, T>,
): PagedListStream<N, O, T> {
  return stream;
}

export function perIdStream<const N extends string, O, const T extends readonly TableSpec[]>(
  stream: PerIdStream<N, O, T>,
): PerIdStream<N, O, T> {
  return stream;
}

export function listingStream<const N extends string, O, const T extends readonly TableSpec[]>(
  stream: ListingStream<N, O, T>,
): ListingStream<N, O, T> {
  return stream;
}
