// The normalized pipeline definition: what a pipeline file means once parsed, validated and defaulted. Code below
// config/ sees only these types, never the raw YAML. Which streams exist and what their options mean is the registry's.
import type { DateTime } from 'luxon';
import type { StreamName, StreamsConfig } from '../streams/registry.js';
import type { RetryLimits } from './retry-limits.js';

export type { StreamName, StreamsConfig } from '../streams/registry.js';
export { STREAM_NAMES } from '../streams/registry.js';
export { ALL } from '../streams/option-reader.js';

/** How many complete days before its watermark a series stream re-reads. */
export type Lookback =
  | { mode: 'fixed'; days: number }
  /** Set each run from the restatements the stream has shown, never above `maxDays` (`lookback_max_days:`). */
  | { mode: 'auto'; maxDays: number };

/** Which end of its range a series' first backfill (or a widened start_date) loads first. */
export type BackfillOrder = 'newest_first' | 'oldest_first';

export interface PipelineDefinition {
  /** Letters, digits, `_` and `-`: it names state rows and files. */
  name: string;
  /**
   * `workspace: NAME`: which of several workspaces publishing into one lake this pipeline exports. Adds the path part
   * `<table>/workspace=NAME/` to every Parquet table (read back as a `workspace` column) and the column to the views.
   * @default none (the layout of a single workspace)
   */
  workspace?: string;
  /** Start of the first UTC day (or the instant given) the pipeline covers. */
  startDate: DateTime;
  /**
   * `lookback_days:` the complete days re-fetched before each watermark to pick up restatements: a number, or `auto`
   * (set each run from the restatements seen, see pipeline/auto-lookback.ts). @default { mode: 'fixed', days: 3 }
   */
  lookback: Lookback;
  /**
   * The look-back of each declared series stream: its own `lookback_days:` when its block has one, else the pipeline's.
   * Streams that re-read nothing (lists, snapshots) have none.
   */
  streamLookbacks: Partial<Record<StreamName, Lookback>>;
  /**
   * `backfill_order:` a backfill loads each series from its newest complete day backwards (`newest_first`: after any
   * budgeted night a series with rows holds one contiguous range ending at its newest complete day) or from its first day
   * forwards (`oldest_first`). Either way the windows are the same; only their order differs. @default 'newest_first'
   */
  backfillOrder: BackfillOrder;
  /** Later runs that re-request a hole (a unit the server left out) before it is confirmed absent. @default 3 */
  holeRetries: number;
  /**
   * `time_budget:` the longest a run sends requests; then it publishes what it committed and exits 0 with
   * `complete: false`, and the next run continues from the watermarks. --time-budget overrides it. @default none
   */
  timeBudgetMs?: number;
  /**
   * Pages one workspace or paged list may have (`max_list_pages:`); a list still going there, or one that loops, fails
   * only the streams that need it. @default 500
   */
  maxListPages: number;
  /** Where the API lives, when the file says; flags and environment override it. The API key is never in the file. */
  source: { baseUrl?: string };
  /** Retry limits of the run's API client (`retries:` in the file). @default DEFAULT_RETRY_LIMITS (6 attempts, 120 s) */
  retries: RetryLimits;
  streams: StreamsConfig;
  /** The declared streams, in registry order. */
  streamNames: readonly StreamName[];
  /**
   * `report: {}` or `report: { path }`: the HTML report written after every successful run — `report.html` beside the
   * database unless a path is given (relative to the working folder).
   */
  report?: { path?: string };
}
