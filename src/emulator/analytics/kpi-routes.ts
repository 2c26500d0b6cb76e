// Read routes of the four daily KPIs (`GET /kpi/{dau,mau,new_users,uninstalls}/data_series`): `length` days ending with
// the day containing `ending_at` (default now), all apps or one; the value field is named after the metric.
import type { EndpointSpec } from '../../api/endpoints.js';
import { ENDPOINTS } from '../../api/endpoints.js';
import type { KpiMetric, KpiPoint, SeriesBody } from '../../api/types.js';
import type { Route } from '../route.js';
import { kpiSeries } from './kpi-model.js';
import { readRoute } from './query-params.js';
import { appParam, dayWindowParams } from './series-routes.js';

function kpiRoute(endpoint: EndpointSpec, metric: KpiMetric): Route {
  return readRoute(endpoint, (req, ctx) => {
    const ws = ctx.workspace.analytics;
    const { nowMs, days } = dayWindowParams(req, ctx);
    const app = appParam(ws, req.query);
    const points = kpiSeries(ws, metric, app ? { app } : {}, days, nowMs);
    const body: SeriesBody<KpiPoint> = {
      message: 'success',
      data: points.map((p) => ({ time: p.time, [metric]: p.value }) as KpiPoint),
    };
    return { status: 200, body };
  });
}

export const kpiDauRoute = kpiRoute(ENDPOINTS.kpiDauDataSeries, 'dau');
export const kpiMauRoute = kpiRoute(ENDPOINTS.kpiMauDataSeries, 'mau');
export const kpiNewUsersRoute = kpiRoute(ENDPOINTS.kpiNewUsersDataSeries, 'new_users');
export const kpiUninstallsRoute = kpiRoute(ENDPOINTS.kpiUninstallsDataSeries, 'uninstalls');
