// Read route of a Canvas's daily statistics (`GET /canvas/data_series`): the window of the data summary, one element
// per day, each equal to the one-day data summary of that day.
import { ENDPOINTS, MAX_CANVAS_DATA_SERIES_DAYS } from '../../api/endpoints.js';
import type { CanvasDataSeriesBody } from '../../api/types.js';
import type { Route } from '../route.js';
import { canvasParam, canvasWindowDays, summaryOptions } from './canvas-routes.js';
import { canvasDailyStats } from './canvas-stats.js';
import { readRoute } from './query-params.js';

export const canvasDataSeriesRoute: Route = readRoute(ENDPOINTS.canvasDataSeries, (req, ctx) => {
  const ws = ctx.workspace.analytics;
  const nowMs = ctx.clock.nowMs();
  const canvas = canvasParam(ws, req.query, nowMs);
  const days = canvasWindowDays(req.query, nowMs, MAX_CANVAS_DATA_SERIES_DAYS);
  const body: CanvasDataSeriesBody = {
    data: canvasDailyStats(ws, canvas, days, nowMs, summaryOptions(req.query)),
    message: 'success',
  };
  return { status: 200, body };
});
