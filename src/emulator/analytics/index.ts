// Every READ route of the emulator (spec section 4: 4.3, 4.10–4.16, 4.19, 4.20; the daily event, KPI and Canvas series;
// the lists discovery reads and the campaigns).
import type { Route } from '../route.js';
import { campaignDataSeriesRoute, campaignDetailsRoute } from './campaign-routes.js';
import {
  campaignsListRoute,
  canvasListRoute,
  contentBlocksListRoute,
  emailTemplatesListRoute,
  productListRoute,
  segmentsListRoute,
} from './catalogue-list-routes.js';
import { canvasDataSummaryRoute, canvasDetailsRoute } from './canvas-routes.js';
import { canvasDataSeriesRoute } from './canvas-series-route.js';
import { eventsDataSeriesRoute } from './event-series-route.js';
import { kpiDauRoute, kpiMauRoute, kpiNewUsersRoute, kpiUninstallsRoute } from './kpi-routes.js';
import { contentBlockRoute, emailTemplateRoute, eventsListRoute, integrationsRoute } from './metadata-routes.js';
import { segmentDetailsRoute } from './segment-routes.js';
import { purchasesQuantityRoute, purchasesRevenueRoute, segmentSizeRoute, sessionsRoute } from './series-routes.js';

export const READ_ROUTES: readonly Route[] = [
  integrationsRoute,
  purchasesQuantityRoute,
  purchasesRevenueRoute,
  eventsListRoute,
  canvasDetailsRoute,
  canvasDataSummaryRoute,
  emailTemplateRoute,
  contentBlockRoute,
  sessionsRoute,
  segmentSizeRoute,
  eventsDataSeriesRoute,
  kpiDauRoute,
  kpiMauRoute,
  kpiNewUsersRoute,
  kpiUninstallsRoute,
  canvasDataSeriesRoute,
  canvasListRoute,
  campaignsListRoute,
  campaignDetailsRoute,
  campaignDataSeriesRoute,
  segmentsListRoute,
  segmentDetailsRoute,
  productListRoute,
  emailTemplatesListRoute,
  contentBlocksListRoute,
];
