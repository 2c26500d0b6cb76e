// Read routes of Canvases: 4.13 details and 4.14 data summary (a window of whole UTC days, at most 14).
import { ENDPOINTS, MAX_CANVAS_SUMMARY_DAYS } from '../../api/endpoints.js';
import type { CanvasDataSummaryBody } from '../../api/types.js';
import type { Route } from '../route.js';
import type { AnalyticsWorkspace } from './analytics-workspace.js';
import type { Canvas } from './canvas-catalogue.js';
import { canvasDetailsAt } from './canvas-catalogue.js';
import { canvasSummary } from './canvas-stats.js';
import { booleanParam, daysBetween, instantParam, lengthParam, ParamError, readRoute } from './query-params.js';
import { DAY_MS, formatDay, unitStart } from './time-units.js';
import { canvasAt } from './workspace-listing.js';

/** The live service's own words for a missing or unknown canvas_id (recorded response). */
export const CANVAS_ID_ERROR = 'canvas_id must be a string of the Canvas api identifier';

/** A Canvas not yet created at `nowMs` is as unknown as one that never existed. */
function canvasParam(ws: AnalyticsWorkspace, query: URLSearchParams, nowMs: number): Canvas {
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

export const canvasDataSummaryRoute: Route = readRoute(ENDPOINTS.canvasDataSummary, (req, ctx) => {
  const ws = ctx.workspace.analytics;
  const nowMs = ctx.clock.nowMs();
  const canvas = canvasParam(ws, req.query, nowMs);
  // The spec's table calls ending_at required yet gives it a default (the request time): we take the default.
  const endingMs = instantParam(req.query, 'ending_at') ?? nowMs;
  const startingMs = instantParam(req.query, 'starting_at');
  let days: number[];
  if (startingMs !== undefined) {
    // starting_at wins when both are sent; length is still checked so a bad value is never silently ignored.
    if (req.query.has('length')) lengthParam(req.query, MAX_CANVAS_SUMMARY_DAYS);
    const count = (unitStart(endingMs, 'day') - unitStart(startingMs, 'day')) / DAY_MS + 1;
    if (count < 1) throw new ParamError(`starting_at (${formatDay(startingMs)}) must not be after ending_at (${formatDay(endingMs)})`);
    if (count > MAX_CANVAS_SUMMARY_DAYS) {
      throw new ParamError(`starting_at to ending_at spans ${count} days (${formatDay(startingMs)} to ${formatDay(endingMs)}); at most ${MAX_CANVAS_SUMMARY_DAYS} are allowed: split the window`);
    }
    days = daysBetween(startingMs, endingMs);
  } else {
    if (!req.query.has('length')) throw new ParamError(`one of starting_at or length is required: length is an integer from 1 to ${MAX_CANVAS_SUMMARY_DAYS}`);
    const length = lengthParam(req.query, MAX_CANVAS_SUMMARY_DAYS);
    days = daysBetween(unitStart(endingMs, 'day') - (length - 1) * DAY_MS, endingMs);
  }
  const data = canvasSummary(ws, canvas, days, nowMs, {
    includeVariantBreakdown: booleanParam(req.query, 'include_variant_breakdown'),
    includeStepBreakdown: booleanParam(req.query, 'include_step_breakdown'),
    includeDeletedStepData: booleanParam(req.query, 'include_deleted_step_data'),
  });
  const body: CanvasDataSummaryBody = { data, message: 'success' };
  return { status: 200, body };
});
