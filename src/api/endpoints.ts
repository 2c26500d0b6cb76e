// The endpoint catalogue of spec section 4 with the limit pools of section 8: which pool each endpoint draws from and
// which permission it needs. Shared by the client (planner, limiter) and the emulator (routes, 429s, 403s).

/** A rate-limit pool of section 8. Endpoints that share a limit share a pool. */
export interface LimitPool {
  id: PoolId;
  /** Requests allowed per window. */
  limit: number;
  /** Window length in milliseconds. */
  windowMs: number;
  /** What the spec calls it, for messages and `engage-etl plan`. */
  label: string;
}

export type PoolId =
  | 'subscription'
  | 'cdi'
  | 'catalog_async'
  | 'catalog_sync'
  | 'scim'
  | 'preference_center'
  | 'external_ids_rename'
  | 'external_ids_remove'
  | 'purchases_events'
  | 'default'
  | 'users_track';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const LIMIT_POOLS: Readonly<Record<PoolId, LimitPool>> = {
  subscription: {
    id: 'subscription',
    limit: 5_000,
    windowMs: MINUTE,
    label: 'subscription status set (v1 + v2), 5,000/min',
  },
  cdi: { id: 'cdi', limit: 50, windowMs: MINUTE, label: 'data integrations, 50/min' },
  catalog_async: {
    id: 'catalog_async',
    limit: 16_000,
    windowMs: MINUTE,
    label: 'asynchronous catalog item endpoints, 16,000/min',
  },
  catalog_sync: {
    id: 'catalog_sync',
    limit: 50,
    windowMs: MINUTE,
    label: 'synchronous catalog item endpoints, 50/min',
  },
  scim: { id: 'scim', limit: 5_000, windowMs: DAY, label: 'SCIM /scim/v2/Users, 5,000/day' },
  preference_center: {
    id: 'preference_center',
    limit: 10,
    windowMs: MINUTE,
    label: 'preference center update, 10/min',
  },
  external_ids_rename: {
    id: 'external_ids_rename',
    limit: 1_000,
    windowMs: MINUTE,
    label: 'external ID rename, 1,000/min',
  },
  external_ids_remove: {
    id: 'external_ids_remove',
    limit: 1_000,
    windowMs: MINUTE,
    label: 'external ID remove, 1,000/min',
  },
  purchases_events: {
    id: 'purchases_events',
    limit: 1_000,
    windowMs: HOUR,
    label: 'purchases + events list, 1,000/hour',
  },
  default: {
    id: 'default',
    limit: 250_000,
    windowMs: HOUR,
    label: 'default (Canvas, templates, content blocks, sessions, segments, schedules, blacklist), 250,000/hour',
  },
  // The spec states no rate limit for /users/track; it is given the default hourly budget and documented as a choice.
  users_track: {
    id: 'users_track',
    limit: 250_000,
    windowMs: HOUR,
    label: 'users track (limit not stated by the spec; default assumed), 250,000/hour',
  },
};

/**
 * A pool's limit and window scaled down (for tests, benchmarks and the emulator's `--limit-scale` /
 * `--limit-window-scale`): the limit rounded and at least 1, the window at least one second.
 */
export function scaledPool(pool: PoolId, limitScale: number, windowScale: number): { limit: number; windowMs: number } {
  return {
    limit: Math.max(1, Math.round(LIMIT_POOLS[pool].limit * limitScale)),
    windowMs: Math.max(1000, Math.round(LIMIT_POOLS[pool].windowMs * windowScale)),
  };
}

/** Every pool scaled as `scaledPool` does: what a client must be told to match an emulator started with these scales. */
export function scaledPools(
  limitScale: number,
  windowScale: number,
): Record<PoolId, { limit: number; windowMs: number }> {
  return Object.fromEntries(
    (Object.keys(LIMIT_POOLS) as PoolId[]).map((id) => [id, scaledPool(id, limitScale, windowScale)]),
  ) as Record<PoolId, { limit: number; windowMs: number }>;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** How a caller authenticates: a REST API key, or the SCIM token plus X-Request-Origin. */
export type Credential = 'api_key' | 'scim_token';

export interface EndpointSpec {
  /** Stable name used in logs, plans and the emulator's route table. */
  name: string;
  method: HttpMethod;
  /** Path pattern; `:param` marks a path parameter. */
  path: string;
  pool: PoolId;
  credential: Credential;
  /** Permission the API key must carry (section 5). Absent for SCIM. */
  permission?: string;
}

export const ENDPOINTS = {
  subscriptionStatusSet: {
    name: 'subscriptionStatusSet',
    method: 'POST',
    path: '/subscription/status/set',
    pool: 'subscription',
    credential: 'api_key',
    permission: 'subscription.status.set',
  },
  subscriptionStatusSetV2: {
    name: 'subscriptionStatusSetV2',
    method: 'POST',
    path: '/v2/subscription/status/set',
    pool: 'subscription',
    credential: 'api_key',
    permission: 'subscription.status.set',
  },
  usersTrack: {
    name: 'usersTrack',
    method: 'POST',
    path: '/users/track',
    pool: 'users_track',
    credential: 'api_key',
    permission: 'users.track',
  },
  cdiIntegrations: {
    name: 'cdiIntegrations',
    method: 'GET',
    path: '/cdi/integrations',
    pool: 'cdi',
    credential: 'api_key',
    permission: 'cdi.integration_list',
  },
  catalogItemsCreate: {
    name: 'catalogItemsCreate',
    method: 'POST',
    path: '/catalogs/:catalog_name/items',
    pool: 'catalog_async',
    credential: 'api_key',
    permission: 'catalogs.add_items',
  },
  catalogItemEdit: {
    name: 'catalogItemEdit',
    method: 'PATCH',
    path: '/catalogs/:catalog_name/items/:item_id',
    pool: 'catalog_sync',
    credential: 'api_key',
    permission: 'catalogs.update_item',
  },
  externalIdsRename: {
    name: 'externalIdsRename',
    method: 'POST',
    path: '/users/external_ids/rename',
    pool: 'external_ids_rename',
    credential: 'api_key',
    permission: 'users.external_ids.rename',
  },
  externalIdsRemove: {
    name: 'externalIdsRemove',
    method: 'POST',
    path: '/users/external_ids/remove',
    pool: 'external_ids_remove',
    credential: 'api_key',
    permission: 'users.external_ids.remove',
  },
  scimUserDelete: {
    name: 'scimUserDelete',
    method: 'DELETE',
    path: '/scim/v2/Users/:id',
    pool: 'scim',
    credential: 'scim_token',
  },
  scimUserGet: {
    name: 'scimUserGet',
    method: 'GET',
    path: '/scim/v2/Users/:id',
    pool: 'scim',
    credential: 'scim_token',
  },
  scimUsersSearch: {
    name: 'scimUsersSearch',
    method: 'GET',
    path: '/scim/v2/Users',
    pool: 'scim',
    credential: 'scim_token',
  },
  scimUserCreate: {
    name: 'scimUserCreate',
    method: 'POST',
    path: '/scim/v2/Users',
    pool: 'scim',
    credential: 'scim_token',
  },
  preferenceCenterUpdate: {
    name: 'preferenceCenterUpdate',
    method: 'PUT',
    path: '/preference_center/v1/:id',
    pool: 'preference_center',
    credential: 'api_key',
    permission: 'preference_center.update',
  },
  preferenceCenterUpdatePost: {
    name: 'preferenceCenterUpdatePost',
    method: 'POST',
    path: '/preference_center/v1/:id',
    pool: 'preference_center',
    credential: 'api_key',
    permission: 'preference_center.update',
  },
  purchasesQuantitySeries: {
    name: 'purchasesQuantitySeries',
    method: 'GET',
    path: '/purchases/quantity_series',
    pool: 'purchases_events',
    credential: 'api_key',
    permission: 'purchases.quantity_series',
  },
  purchasesRevenueSeries: {
    name: 'purchasesRevenueSeries',
    method: 'GET',
    path: '/purchases/revenue_series',
    pool: 'purchases_events',
    credential: 'api_key',
    permission: 'purchases.revenue_series',
  },
  eventsList: {
    name: 'eventsList',
    method: 'GET',
    path: '/events/list',
    pool: 'purchases_events',
    credential: 'api_key',
    permission: 'events.list',
  },
  canvasDetails: {
    name: 'canvasDetails',
    method: 'GET',
    path: '/canvas/details',
    pool: 'default',
    credential: 'api_key',
    permission: 'canvas.details',
  },
  canvasDataSummary: {
    name: 'canvasDataSummary',
    method: 'GET',
    path: '/canvas/data_summary',
    pool: 'default',
    credential: 'api_key',
    permission: 'canvas.data_summary',
  },
  emailTemplateInfo: {
    name: 'emailTemplateInfo',
    method: 'GET',
    path: '/templates/email/info',
    pool: 'default',
    credential: 'api_key',
    permission: 'templates.email.info',
  },
  contentBlockInfo: {
    name: 'contentBlockInfo',
    method: 'GET',
    path: '/content_blocks/info',
    pool: 'default',
    credential: 'api_key',
    permission: 'content_blocks.info',
  },
  scheduleDelete: {
    name: 'scheduleDelete',
    method: 'POST',
    path: '/messages/schedule/delete',
    pool: 'default',
    credential: 'api_key',
    permission: 'messages.schedule.delete',
  },
  emailBlacklist: {
    name: 'emailBlacklist',
    method: 'POST',
    path: '/email/blacklist',
    pool: 'default',
    credential: 'api_key',
    permission: 'email.blacklist',
  },
  sessionsDataSeries: {
    name: 'sessionsDataSeries',
    method: 'GET',
    path: '/sessions/data_series',
    pool: 'default',
    credential: 'api_key',
    permission: 'sessions.data_series',
  },
  segmentsDataSeries: {
    name: 'segmentsDataSeries',
    method: 'GET',
    path: '/segments/data_series',
    pool: 'default',
    credential: 'api_key',
    permission: 'segments.data_series',
  },
  eventsDataSeries: {
    name: 'eventsDataSeries',
    method: 'GET',
    path: '/events/data_series',
    pool: 'default',
    credential: 'api_key',
    permission: 'events.data_series',
  },
  kpiDauDataSeries: {
    name: 'kpiDauDataSeries',
    method: 'GET',
    path: '/kpi/dau/data_series',
    pool: 'default',
    credential: 'api_key',
    permission: 'kpi.dau.data_series',
  },
  kpiMauDataSeries: {
    name: 'kpiMauDataSeries',
    method: 'GET',
    path: '/kpi/mau/data_series',
    pool: 'default',
    credential: 'api_key',
    permission: 'kpi.mau.data_series',
  },
  kpiNewUsersDataSeries: {
    name: 'kpiNewUsersDataSeries',
    method: 'GET',
    path: '/kpi/new_users/data_series',
    pool: 'default',
    credential: 'api_key',
    permission: 'kpi.new_users.data_series',
  },
  kpiUninstallsDataSeries: {
    name: 'kpiUninstallsDataSeries',
    method: 'GET',
    path: '/kpi/uninstalls/data_series',
    pool: 'default',
    credential: 'api_key',
    permission: 'kpi.uninstalls.data_series',
  },
  canvasDataSeries: {
    name: 'canvasDataSeries',
    method: 'GET',
    path: '/canvas/data_series',
    pool: 'default',
    credential: 'api_key',
    permission: 'canvas.data_series',
  },
  canvasList: {
    name: 'canvasList',
    method: 'GET',
    path: '/canvas/list',
    pool: 'default',
    credential: 'api_key',
    permission: 'canvas.list',
  },
  campaignsList: {
    name: 'campaignsList',
    method: 'GET',
    path: '/campaigns/list',
    pool: 'default',
    credential: 'api_key',
    permission: 'campaigns.list',
  },
  campaignsDetails: {
    name: 'campaignsDetails',
    method: 'GET',
    path: '/campaigns/details',
    pool: 'default',
    credential: 'api_key',
    permission: 'campaigns.details',
  },
  campaignsDataSeries: {
    name: 'campaignsDataSeries',
    method: 'GET',
    path: '/campaigns/data_series',
    pool: 'default',
    credential: 'api_key',
    permission: 'campaigns.data_series',
  },
  segmentsList: {
    name: 'segmentsList',
    method: 'GET',
    path: '/segments/list',
    pool: 'default',
    credential: 'api_key',
    permission: 'segments.list',
  },
  segmentsDetails: {
    name: 'segmentsDetails',
    method: 'GET',
    path: '/segments/details',
    pool: 'default',
    credential: 'api_key',
    permission: 'segments.details',
  },
  // The platform documents product_list as sharing the 1,000-per-hour pool of the purchase series and the events list.
  purchasesProductList: {
    name: 'purchasesProductList',
    method: 'GET',
    path: '/purchases/product_list',
    pool: 'purchases_events',
    credential: 'api_key',
    permission: 'purchases.product_list',
  },
  emailTemplatesList: {
    name: 'emailTemplatesList',
    method: 'GET',
    path: '/templates/email/list',
    pool: 'default',
    credential: 'api_key',
    permission: 'templates.email.list',
  },
  contentBlocksList: {
    name: 'contentBlocksList',
    method: 'GET',
    path: '/content_blocks/list',
    pool: 'default',
    credential: 'api_key',
    permission: 'content_blocks.list',
  },
} as const satisfies Record<string, EndpointSpec>;

export type EndpointName = keyof typeof ENDPOINTS;

/** Every permission any endpoint needs: what the emulator's demo key carries. */
export const ALL_PERMISSIONS: readonly string[] = [
  ...new Set(Object.values(ENDPOINTS).flatMap((e: EndpointSpec) => (e.permission ? [e.permission] : []))),
];

/** Largest `length` per request of the windowed series (section 8). */
export const MAX_SERIES_LENGTH = 100;
export const MAX_CANVAS_SUMMARY_DAYS = 14;
/** Largest window of one `/canvas/data_series` request, in days (one point per day). */
export const MAX_CANVAS_DATA_SERIES_DAYS = 14;
/** Page sizes (section 4). */
export const EVENTS_PAGE_SIZE = 250;
export const CDI_PAGE_SIZE = 10;
/** Page size of `/canvas/list`, `/campaigns/list` and `/segments/list` (`page` is 0-based; a short page ends the list). */
export const CANVAS_LIST_PAGE_SIZE = 100;
export const CAMPAIGNS_LIST_PAGE_SIZE = 100;
export const SEGMENTS_LIST_PAGE_SIZE = 100;
/**
 * Page size of `/purchases/product_list`. The platform does not document it; the emulator chooses 10 (docs/emulator.md),
 * so a client must not assume a size: it reads pages until one is empty or shorter than the first.
 */
export const PRODUCT_LIST_PAGE_SIZE = 10;
/** `limit` of `/templates/email/list` and `/content_blocks/list`: default and largest value. */
export const METADATA_LIST_DEFAULT_LIMIT = 100;
export const METADATA_LIST_MAX_LIMIT = 1_000;
/** Largest `length` of `/campaigns/data_series` (days). */
export const MAX_CAMPAIGN_SERIES_LENGTH = 100;
