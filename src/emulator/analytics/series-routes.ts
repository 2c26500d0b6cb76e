// Read routes of the analytics series: 4.10 purchase quantity, 4.11 revenue, 4.19 sessions, 4.20 segment size.
// `length` units end with the unit containing `ending_at` (default: now), oldest first; units after now are omitted.
import { ENDPOINTS, MAX_SERIES_LENGTH } from '../../api/endpoints.js';
import type {
  PurchaseQuantityPoint,
  RevenuePoint,
  SegmentSizePoint,
  SeriesBody,
  SessionsPoint,
} from '../../api/types.js';
import type { EmulatorRequest, Route, RouteContext } from '../route.js';
import type { Segment } from './analytics-catalogue.js';
import type { AnalyticsWorkspace } from './analytics-workspace.js';
import { existsAt } from './lifecycle.js';
import {
  idParam,
  instantParam,
  lengthParam,
  ParamError,
  readRoute,
  unitParam,
  unitStartsEndingAt,
} from './query-params.js';
import { purchasesSeries, segmentSizeSeries, sessionsSeries } from './series-query.js';

/** `app_id`: an app of the workspace, or undefined for all apps. */
export function appParam(ws: AnalyticsWorkspace, query: URLSearchParams) {
  return idParam(
    query,
    'app_id',
    (id) => ws.app(id),
    () => ws.apps.map((a) => a.id),
    'all apps',
  );
}

/**
 * `segment_id`: a segment that exists at now (one created later is unknown, as on every endpoint), or undefined for
 * `omitted`. The platform keeps no series for a segment with analytics tracking off: a 400 that says so and how to fix it.
 */
export function segmentParam(ws: AnalyticsWorkspace, query: URLSearchParams, nowMs: number, omitted = 'all users') {
  const existing = (s: Segment | undefined) => (s !== undefined && existsAt(s.lifecycle, nowMs) ? s : undefined);
  const segment = idParam(
    query,
    'segment_id',
    (id) => existing(ws.segment(id)),
    () => ws.segments.filter((s) => existing(s)).map((s) => s.id),
    omitted,
  );
  if (segment && !segment.analyticsTrackingEnabled) {
    throw new ParamError(
      `segment_id "${segment.id}" has analytics tracking off, so no series is kept for it; turn tracking on for the segment in the dashboard, or leave it out`,
    );
  }
  return segment;
}

/** The parameters purchases, sessions and events share: `length`, `unit`, `ending_at` (default now) and `app_id`. */
export function windowParams(req: EmulatorRequest, ctx: RouteContext) {
  const ws = ctx.workspace.analytics;
  const length = lengthParam(req.query, MAX_SERIES_LENGTH);
  const unit = unitParam(req.query, ['day', 'hour']);
  const nowMs = ctx.clock.nowMs();
  const endingMs = instantParam(req.query, 'ending_at') ?? nowMs;
  return { ws, unit, nowMs, starts: unitStartsEndingAt(endingMs, length, unit), app: appParam(ws, req.query) };
}

/**
 * The window of the daily-only series (segment size, KPIs): `length` days ending with the day containing `ending_at`
 * (default now). `unit=day` is accepted, any other unit refused: these series have no hourly form.
 */
export function dayWindowParams(req: EmulatorRequest, ctx: RouteContext) {
  const length = lengthParam(req.query, MAX_SERIES_LENGTH);
  unitParam(req.query, ['day']);
  const nowMs = ctx.clock.nowMs();
  const endingMs = instantParam(req.query, 'ending_at') ?? nowMs;
  return { nowMs, days: unitStartsEndingAt(endingMs, length, 'day') };
}

function purchases(req: EmulatorRequest, ctx: RouteContext) {
  const { ws, unit, nowMs, starts, app } = windowParams(req, ctx);
  const product = idParam(
    req.query,
    'product',
    (id) => ws.product(id),
    () => ws.products.map((p) => p.id),
    'all products',
  );
  return purchasesSeries(ws, { ...(app ? { app } : {}), ...(product ? { product } : {}) }, unit, starts, nowMs);
}

export const purchasesQuantityRoute: Route = readRoute(ENDPOINTS.purchasesQuantitySeries, (req, ctx) => {
  const body: SeriesBody<PurchaseQuantityPoint> = {
    message: 'success',
    data: purchases(req, ctx).map((p) => ({ time: p.time, purchase_quantity: p.value.quantity })),
  };
  return { status: 200, body };
});

export const purchasesRevenueRoute: Route = readRoute(ENDPOINTS.purchasesRevenueSeries, (req, ctx) => {
  const body: SeriesBody<RevenuePoint> = {
    message: 'success',
    data: purchases(req, ctx).map((p) => ({ time: p.time, revenue: p.value.revenue })),
  };
  return { status: 200, body };
});

export const sessionsRoute: Route = readRoute(ENDPOINTS.sessionsDataSeries, (req, ctx) => {
  const { ws, unit, nowMs, starts, app } = windowParams(req, ctx);
  const segment = segmentParam(ws, req.query, nowMs);
  const points = sessionsSeries(ws, { ...(app ? { app } : {}), ...(segment ? { segment } : {}) }, unit, starts, nowMs);
  const body: SeriesBody<SessionsPoint> = {
    message: 'success',
    data: points.map((p) => ({ time: p.time, sessions: p.value })),
  };
  return { status: 200, body };
});

export const segmentSizeRoute: Route = readRoute(ENDPOINTS.segmentsDataSeries, (req, ctx) => {
  const ws = ctx.workspace.analytics;
  const rawSegment = req.query.get('segment_id');
  if (rawSegment === null || rawSegment === '')
    throw new ParamError(
      `segment_id is required: the id of a segment, e.g. ${ws.segments[0]!.id} (/segments/list gives them all)`,
    );
  const segment = segmentParam(ws, req.query, ctx.clock.nowMs(), 'nothing (it is required)')!;
  const { nowMs, days } = dayWindowParams(req, ctx);
  const points = segmentSizeSeries(ws, segment, days, nowMs);
  const body: SeriesBody<SegmentSizePoint> = {
    message: 'success',
    data: points.map((p) => ({ time: p.time, size: p.value })),
  };
  return { status: 200, body };
});
