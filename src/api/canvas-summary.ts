// GET /canvas/data_summary (spec 4.14 / 2.7): a Canvas's rolled-up stats, normalized — numbers as numbers (numeric
// strings accepted), optional breakdowns left undefined when the server sent none. Variant stats and step messages are
// read by the rule of channel-stats.ts: a documented field missing is absent, an unknown one kept and named.
import type { ApiCall } from './api-call.js';
import type { ApiClient } from './api-client.js';
import { ENDPOINTS, MAX_CANVAS_SUMMARY_DAYS } from './endpoints.js';
import { channelFieldKind, splitStats, STEP_MESSAGE_COUNT_FIELDS, type SplitStats } from './channel-stats.js';
import {
  checkStringParam,
  contextOf,
  idKeyed,
  isRecord,
  malformed,
  readNumber,
  type NumberKind,
} from './response-shape.js';
import type { CanvasStepStats, CanvasTotalStats } from './types.js';
import { FatalError, type RequestContext } from '../errors.js';

export interface CanvasSummaryQuery {
  canvasId: string;
  /** ISO 8601 start, sent as written. */
  startingAt: string;
  /** ISO 8601 end, sent as written; at most MAX_CANVAS_SUMMARY_DAYS after `startingAt`. */
  endingAt: string;
  includeVariantBreakdown: boolean;
  includeStepBreakdown: boolean;
  /**
   * Include stats of deleted steps.
   * @default undefined (parameter not sent; the server's default is false)
   */
  includeDeletedStepData?: boolean;
}

const DAY_MS = 86_400_000;

/** A variant's statistics: `name` and the documented numbers where present (`revenue`, `conversions`, `entries`, `conversions_by_entry_time`). */
export interface CanvasVariantDay extends SplitStats {
  name: string | null;
}

export interface CanvasStepDay extends Omit<CanvasStepStats, 'messages'> {
  /** Keyed by channel; one entry per message of the step on that channel, in the answer's order. */
  messages: Record<string, SplitStats[]>;
}

/** A data summary (or one day of a data series) as the client reads it. */
export interface CanvasSummaryData {
  name: string;
  total_stats: CanvasTotalStats;
  variant_stats?: Record<string, CanvasVariantDay>;
  step_stats?: Record<string, CanvasStepDay>;
}

const VARIANT_FIELDS: Readonly<Record<string, NumberKind>> = {
  revenue: 'amount',
  conversions: 'count',
  entries: 'count',
  conversions_by_entry_time: 'count',
};
const VARIANT_KIND = (field: string) => (Object.hasOwn(VARIANT_FIELDS, field) ? VARIANT_FIELDS[field] : undefined);
const STEP_MESSAGE_FIELDS: Readonly<Record<string, NumberKind>> = Object.fromEntries(
  STEP_MESSAGE_COUNT_FIELDS.map((f) => [f, 'count' as const]),
);

/** Fetches and normalizes one Canvas data summary. */
export async function fetchCanvasSummary(client: ApiClient, q: CanvasSummaryQuery): Promise<CanvasSummaryData> {
  checkStringParam('canvasId', q.canvasId);
  checkStringParam('startingAt', q.startingAt);
  checkStringParam('endingAt', q.endingAt);
  const start = Date.parse(q.startingAt);
  const end = Date.parse(q.endingAt);
  if (!Number.isNaN(start) && !Number.isNaN(end) && (end <= start || end - start > MAX_CANVAS_SUMMARY_DAYS * DAY_MS)) {
    throw new FatalError(
      `Canvas summary range ${q.startingAt} → ${q.endingAt} must be positive and at most ${MAX_CANVAS_SUMMARY_DAYS} days; split it into smaller ranges.`,
    );
  }
  const call: ApiCall = {
    endpoint: ENDPOINTS.canvasDataSummary,
    query: {
      canvas_id: q.canvasId,
      starting_at: q.startingAt,
      ending_at: q.endingAt,
      include_variant_breakdown: q.includeVariantBreakdown,
      include_step_breakdown: q.includeStepBreakdown,
      include_deleted_step_data: q.includeDeletedStepData,
    },
  };
  const response = await client.request<unknown>(call);
  return normalizeCanvasSummary(response.body, contextOf(call), response.status);
}

/** Checks a data-summary body and returns its `data`, normalized. */
export function normalizeCanvasSummary(body: unknown, ctx: RequestContext, status?: number): CanvasSummaryData {
  const fail = (what: string): never => {
    throw malformed(ctx, what, body, status);
  };
  if (!isRecord(body) || !isRecord(body.data)) return fail('`data` is missing or not an object');
  const data = body.data;
  if (typeof data.name !== 'string') return fail(`data.name is ${JSON.stringify(data.name)}, not a string`);
  return { name: data.name, ...normalizeCanvasStats(data, 'data', fail) };
}

/**
 * The statistics of one Canvas roll-up (`total_stats` and the optional breakdowns) found at `where` in a body: one data
 * summary, or one day of a data series. `fail` throws with the whole body attached.
 */
export function normalizeCanvasStats(
  data: Record<string, unknown>,
  where: string,
  fail: (what: string) => never,
): Omit<CanvasSummaryData, 'name'> {
  // Every figure of a summary is a count (BIGINT) except revenue, an amount, read with `kind` 'amount'.
  const num = (obj: Record<string, unknown>, field: string, at: string, kind: NumberKind = 'count'): number => {
    const read = readNumber(obj[field], kind);
    return 'value' in read ? read.value : fail(`${at}.${field}: ${read.problem}`);
  };
  const name = (obj: Record<string, unknown>, at: string): string =>
    typeof obj.name === 'string' ? obj.name : fail(`${at}.name is ${JSON.stringify(obj.name)}, not a string`);

  if (!isRecord(data.total_stats)) return fail(`${where}.total_stats is missing or not an object`);
  const total = data.total_stats;
  const summary: Omit<CanvasSummaryData, 'name'> = {
    total_stats: {
      revenue: num(total, 'revenue', `${where}.total_stats`, 'amount'),
      conversions: num(total, 'conversions', `${where}.total_stats`),
      conversions_by_entry_time: num(total, 'conversions_by_entry_time', `${where}.total_stats`),
      entries: num(total, 'entries', `${where}.total_stats`),
    },
  };

  if (data.variant_stats !== undefined && data.variant_stats !== null) {
    if (!isRecord(data.variant_stats)) return fail(`${where}.variant_stats is not an object keyed by variant ID`);
    const variants: Record<string, CanvasVariantDay> = idKeyed();
    for (const [id, v] of Object.entries(data.variant_stats)) {
      const at = `${where}.variant_stats.${id}`;
      if (!isRecord(v)) return fail(`${at} is not an object`);
      variants[id] = {
        name: v.name === undefined || v.name === null ? null : name(v, at),
        ...splitStats(v, at, fail, VARIANT_KIND, ['name']),
      };
    }
    summary.variant_stats = variants;
  }

  if (data.step_stats !== undefined && data.step_stats !== null) {
    if (!isRecord(data.step_stats)) return fail(`${where}.step_stats is not an object keyed by step ID`);
    const steps: Record<string, CanvasStepDay> = idKeyed();
    for (const [id, s] of Object.entries(data.step_stats)) {
      const at = `${where}.step_stats.${id}`;
      if (!isRecord(s)) return fail(`${at} is not an object`);
      const messages: Record<string, SplitStats[]> = idKeyed();
      if (s.messages !== undefined && s.messages !== null) {
        if (!isRecord(s.messages)) return fail(`${at}.messages is not an object keyed by channel`);
        for (const [channel, list] of Object.entries(s.messages)) {
          if (!Array.isArray(list)) return fail(`${at}.messages.${channel} is not an array`);
          const kindOf = channelFieldKind(channel, STEP_MESSAGE_FIELDS);
          messages[channel] = list.map((m: unknown, i: number) => {
            const mAt = `${at}.messages.${channel}[${i}]`;
            if (!isRecord(m)) return fail(`${mAt} is not an object`);
            return splitStats(m, mAt, fail, kindOf);
          });
        }
      }
      steps[id] = {
        name: name(s, at),
        revenue: num(s, 'revenue', at, 'amount'),
        conversions: num(s, 'conversions', at),
        conversions_by_entry_time: num(s, 'conversions_by_entry_time', at),
        messages,
      };
    }
    summary.step_stats = steps;
  }
  return summary;
}
