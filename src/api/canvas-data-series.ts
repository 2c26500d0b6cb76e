// GET /canvas/data_series: a Canvas's statistics per day, up to MAX_CANVAS_DATA_SERIES_DAYS days a request.
// Each day is normalized exactly as a one-day data summary is (normalizeCanvasStats), so either endpoint yields the same
// daily values; the day's `time` is kept as the server wrote it for the series extractor to read.
import type { ApiCall } from './api-call.js';
import type { ApiClient } from './api-client.js';
import { normalizeCanvasStats, type CanvasSummaryData } from './canvas-summary.js';
import { ENDPOINTS, MAX_CANVAS_DATA_SERIES_DAYS } from './endpoints.js';
import { checkIntegerParam, checkStringParam, contextOf, isRecord, malformed } from './response-shape.js';
import type { RequestContext } from '../errors.js';

export interface CanvasDataSeriesQuery {
  canvasId: string;
  /** Days ending with the day that contains `endingAt`, 1 to MAX_CANVAS_DATA_SERIES_DAYS. */
  length: number;
  /** ISO 8601, sent as written. */
  endingAt: string;
  includeVariantBreakdown: boolean;
  includeStepBreakdown: boolean;
  /** @default undefined (parameter not sent; the server's default is false) */
  includeDeletedStepData?: boolean;
}

/** One day of a Canvas data series: the day as written by the server, and that day's roll-up (the series' name). */
export interface CanvasDayPoint {
  time: string;
  value: CanvasSummaryData;
}

/** Fetches and normalizes one window of a Canvas's daily statistics. */
export async function fetchCanvasDataSeries(client: ApiClient, q: CanvasDataSeriesQuery): Promise<CanvasDayPoint[]> {
  checkStringParam('canvasId', q.canvasId);
  checkIntegerParam('length', q.length, 1, MAX_CANVAS_DATA_SERIES_DAYS);
  checkStringParam('endingAt', q.endingAt);
  const call: ApiCall = {
    endpoint: ENDPOINTS.canvasDataSeries,
    query: {
      canvas_id: q.canvasId,
      ending_at: q.endingAt,
      length: q.length,
      include_variant_breakdown: q.includeVariantBreakdown,
      include_step_breakdown: q.includeStepBreakdown,
      include_deleted_step_data: q.includeDeletedStepData,
    },
  };
  const response = await client.request<unknown>(call);
  return normalizeCanvasDataSeries(response.body, contextOf(call), response.status);
}

/** Checks a data-series body: `data.name`, and per element of `data.stats` a `time` and the one-day roll-up. */
function normalizeCanvasDataSeries(body: unknown, ctx: RequestContext, status?: number): CanvasDayPoint[] {
  const fail = (what: string): never => {
    throw malformed(ctx, what, body, status);
  };
  if (!isRecord(body) || !isRecord(body.data)) return fail('`data` is missing or not an object');
  const { name, stats } = body.data;
  if (typeof name !== 'string') return fail(`data.name is ${JSON.stringify(name)}, not a string`);
  if (!Array.isArray(stats)) return fail('data.stats is missing or not an array');
  return stats.map((day: unknown, i: number) => {
    const where = `data.stats[${i}]`;
    if (!isRecord(day)) return fail(`${where} is ${JSON.stringify(day)}, not an object`);
    if (typeof day.time !== 'string' || day.time.trim() === '')
      return fail(`${where} has no \`time\` string: ${JSON.stringify(day.time)}`);
    return { time: day.time, value: { name, ...normalizeCanvasStats(day, where, fail) } };
  });
}
