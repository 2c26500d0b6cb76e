// The normalized pipeline definition: what a pipeline file means once parsed, validated and defaulted. Code below
// config/ sees only these types, never the raw YAML.
import type { DateTime } from 'luxon';
import type { SeriesUnit } from '../api/types.js';
import type { RetryLimits } from './retry-limits.js';

/** Every stream a pipeline may declare, in the order runs process them. */
export const STREAM_NAMES = [
  'purchase_quantity',
  'revenue',
  'sessions',
  'segment_size',
  'custom_events',
  'canvas_summary',
  'canvas_details',
  'email_templates',
  'content_blocks',
  'data_integrations',
] as const;

export type StreamName = (typeof STREAM_NAMES)[number];

/** In a selector list, `"*"` means "omit the parameter": the series over all apps / products / segments. */
export const ALL = '*';

/** A purchases series (quantity or revenue): one series per app × product pair. */
export interface PurchaseSeriesConfig {
  /** @default 'day' */
  unit: SeriesUnit;
  /** App ids, `"*"` for all apps. @default ['*'] */
  apps: readonly string[];
  /** Product names, `"*"` for all products. @default ['*'] */
  products: readonly string[];
}

/** Sessions: one series per app × segment pair. */
export interface SessionsConfig {
  /** @default 'day' */
  unit: SeriesUnit;
  /** App ids, `"*"` for all apps. @default ['*'] */
  apps: readonly string[];
  /** Segment ids, `"*"` for no segment filter. @default ['*'] */
  segments: readonly string[];
}

/** Segment size: a daily series per segment (the endpoint requires a segment id, so there is no `"*"`). */
export interface SegmentSizeConfig {
  /** Always 'day': the endpoint only has a daily series (spec 4.20). @default 'day' */
  unit: 'day';
  segments: readonly string[];
}

/** Custom event names (no options). */
export type CustomEventsConfig = Record<string, never>;

export interface CanvasSummaryConfig {
  canvases: readonly string[];
  /** Send include_variant_breakdown. @default false */
  variantBreakdown: boolean;
  /** Send include_step_breakdown. @default false */
  stepBreakdown: boolean;
  /** Send include_deleted_step_data. @default false */
  deletedStepData: boolean;
}

export interface CanvasDetailsConfig {
  canvases: readonly string[];
}

export interface EmailTemplatesConfig {
  ids: readonly string[];
}

export interface ContentBlocksConfig {
  ids: readonly string[];
  /** Send include_inclusion_data=true. @default false */
  inclusionData: boolean;
}

/** Data integrations (no options). */
export type DataIntegrationsConfig = Record<string, never>;

/** The streams a pipeline declares; an absent key means the stream is not part of this pipeline. */
export interface StreamsConfig {
  purchase_quantity?: PurchaseSeriesConfig;
  revenue?: PurchaseSeriesConfig;
  sessions?: SessionsConfig;
  segment_size?: SegmentSizeConfig;
  custom_events?: CustomEventsConfig;
  canvas_summary?: CanvasSummaryConfig;
  canvas_details?: CanvasDetailsConfig;
  email_templates?: EmailTemplatesConfig;
  content_blocks?: ContentBlocksConfig;
  data_integrations?: DataIntegrationsConfig;
}

export interface PipelineDefinition {
  /** Letters, digits, `_` and `-`: it names state rows and files. */
  name: string;
  /** Start of the first UTC day (or the instant given) the pipeline covers. */
  startDate: DateTime;
  /** Complete days re-fetched before each watermark to pick up restatements. @default 3 */
  lookbackDays: number;
  /** Where the API lives, when the file says; flags and environment override it. The API key is never in the file. */
  source: { baseUrl?: string };
  /** Retry limits of the run's API client (`retries:` in the file). @default DEFAULT_RETRY_LIMITS (6 attempts, 120 s) */
  retries: RetryLimits;
  streams: StreamsConfig;
  /** The declared streams, in STREAM_NAMES order. */
  streamNames: readonly StreamName[];
}
