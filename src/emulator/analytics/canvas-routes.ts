// Read routes of Canvases: 4.13 details and 4.14 data summary (a window of whole UTC days, at most 14).
import { ENDPOINTS, MAX_CANVAS_SUMMARY_DAYS } from '../../api/endpoints.js';
import type { CanvasDataSummary, CanvasDataSummaryBody } from '../../api/types.js';
import type { Route } from '../route.js';
import type { AnalyticsWorkspace } from './analytics-workspace.js';
import type { Canvas } from './canvas-catalogue.js';
import { canvasDetailsAt } from './canvas-catalogue.js';
import type { SummaryOptions } from './canvas-stats.js';
import { canvasSummary } from './canvas-stats.js';
import { booleanParam, daysBetween, instantParam, lengthParam, ParamError, readRoute } from './query-params.js';
import { DAY_MS, formatDay, unitStart } from './time-units.js';
import { canvasAt } from './workspace-listing.js';

/** The live service's own words for a missing or unknown canvas_id (recorded response). */
export const CANVAS_ID_ERROR = 'canvas_id must be a string of the Canvas api identifier';

/** A Canvas not yet created at `nowMs` is as unknown as one that never existed. */
export function canvasParam(ws: AnalyticsWorkspace, query: URLSearchParams, nowMs: number): Canvas {
  const raw = query.get('canvas_id');
  const canvas = raw === null ? undefined : canvasAt(ws, raw, nowMs);
  if (!canvas) throw new ParamError(CANVAS_ID_ERROR);
  return canvas;
}

export const canvasDetailsRoute: Route = readRoute(ENDPOINTS.canvasDetails, (req, ctx) => {
  const nowMs = ctx.clock.nowMs();
  const canvas = canvasParam(ctx.workspace.analytics, req.query, nowMs);
  return { status: 200, body: canvasDetailsAt(canvas, nowMs) };
});

/**
 * The days of a Canvas window (data summary and data series read it alike): `starting_at` to `ending_at`, both days
 * included, or `length` days ending with the day containing `ending_at`; `ending_at` defaults to now.
 */
export function canvasWindowDays(query: URLSearchParams, nowMs: number, maxDays: number): number[] {
  // The spec's table calls ending_at required yet gives it a default (the request time): we take the default.
  const endingMs = instantParam(query, 'ending_at') ?? nowMs;
  const startingMs = instantParam(query, 'starting_at');
  if (startingMs !== undefined) {
    // starting_at wins when both are sent; length is still checked so a bad value is never silently ignored.
    if (query.has('length')) lengthParam(query, maxDays);
    const count = (unitStart(endingMs, 'day') - unitStart(startingMs, 'day')) / DAY_MS + 1;
    if (count < 1)
      throw new ParamError(
        `starting_at (${formatDay(startingMs)}) must not be after ending_at (${formatDay(endingMs)})`,
      );
    if (count > maxDays) {
      throw new ParamError(
        `starting_at to ending_at spans ${count} days (${formatDay(startingMs)} to ${formatDay(endingMs)}); at most ${maxDays} are allowed: split the window`,
      );
    }
    return daysBetween(startingMs, endingMs);
  }
  if (!query.has('length'))
    throw new ParamError(`one of starting_at or length is required: length is an integer from 1 to ${maxDays}`);
  const length = lengthParam(query, maxDays);
  return daysBetween(unitStart(endingMs, 'day') - (length - 1) * DAY_MS, endingMs);
}

/** The three `include_*` flags of the Canvas statistics. */
export function summaryOptions(query: URLSearchParams): SummaryOptions {
  return {
    includeVariantBreakdown: booleanParam(query, 'include_variant_breakdown'),
    includeStepBreakdown: booleanParam(query, 'include_step_breakdown'),
    includeDeletedStepData: booleanParam(query, 'include_deleted_step_data'),
  };
}

export const canvasDataSummaryRoute: Route = readRoute(ENDPOINTS.canvasDataSummary, (req, ctx) => {
  const ws = ctx.workspace.analytics;
  const nowMs = ctx.clock.nowMs();
  const canvas = canvasParam(ws, req.query, nowMs);
  const days = canvasWindowDays(req.query, nowMs, MAX_CANVAS_SUMMARY_DAYS);
  const data = canvasSummary(ws, canvas, days, nowMs, summaryOptions(req.query));
  applySummarySkews(ws, canvas, days, nowMs, data);
  const body: CanvasDataSummaryBody = { data, message: 'success' };
  return { status: 200, body };
});

/**
 * The reconciliation-mismatch hook: skews registered with `ws.skewCanvasSummary` change the summary's totals for the
 * days they name (days that have begun), and nothing else — the data series of the same days stays the model's.
 */
function applySummarySkews(
  ws: AnalyticsWorkspace,
  canvas: Canvas,
  days: readonly number[],
  nowMs: number,
  data: CanvasDataSummary,
): void {
  const t = data.total_stats;
  for (const skew of ws.summarySkewsFor(
    canvas.id,
    days.filter((d) => d <= nowMs),
  )) {
    t.entries = Math.max(0, t.entries + skew.entries);
    t.conversions = Math.max(0, t.conversions + skew.conversions);
    t.revenue = Math.max(0, Math.round(t.revenue * 100) + skew.revenueCents) / 100;
  }
}
