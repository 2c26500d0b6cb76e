// The analytics series endpoints (spec 4.10, 4.11, 4.19, 4.20, events and KPI data series) and the events list (4.12), returning validated data:
// series as { time, value } with the time string untouched (servers differ in its format), values as numbers.
import type { ApiCall } from './api-call.js';
import type { ApiClient } from './api-client.js';
import { ENDPOINTS, EVENTS_PAGE_SIZE, MAX_SERIES_LENGTH, type EndpointSpec } from './endpoints.js';
import { paginatePageIndex } from './paginate-page-index.js';
import {
  checkIntegerParam,
  checkStringParam,
  contextOf,
  isRecord,
  malformed,
  readNumber,
  type NumberKind,
} from './response-shape.js';
import type { KpiMetric, SeriesUnit } from './types.js';
import { FatalError } from '../errors.js';

/** One point of a series: `time` exactly as the server wrote it, `value` as a number. */
export interface SeriesPoint {
  time: string;
  value: number;
}

/** Parameters of the purchase series (quantity and revenue). */
export interface PurchaseSeriesQuery {
  /** Units before `endingAt`, 1 to MAX_SERIES_LENGTH. */
  length: number;
  /** ISO 8601 end of the export, sent as written. */
  endingAt: string;
  unit: SeriesUnit;
  appId?: string;
  product?: string;
}

export interface SessionsSeriesQuery {
  length: number;
  endingAt: string;
  unit: SeriesUnit;
  appId?: string;
  segmentId?: string;
}

export interface SegmentSizeQuery {
  segmentId: string;
  /** Days before `endingAt`, 1 to MAX_SERIES_LENGTH. */
  length: number;
  endingAt: string;
}

/** Query parameters shared by the two purchase series (4.10, 4.11). */
function purchaseParams(q: PurchaseSeriesQuery): Record<string, string | number | undefined> {
  return { ...windowQuery(q), unit: checkUnit(q.unit), app_id: q.appId, product: q.product };
}

/** GET /purchases/quantity_series → points of `purchase_quantity`. */
export async function fetchPurchaseQuantity(client: ApiClient, q: PurchaseSeriesQuery): Promise<SeriesPoint[]> {
  return fetchSeries(client, ENDPOINTS.purchasesQuantitySeries, 'purchase_quantity', purchaseParams(q), 'count');
}

/** GET /purchases/revenue_series → points of `revenue`. */
export async function fetchRevenue(client: ApiClient, q: PurchaseSeriesQuery): Promise<SeriesPoint[]> {
  return fetchSeries(client, ENDPOINTS.purchasesRevenueSeries, 'revenue', purchaseParams(q), 'amount');
}

/** GET /sessions/data_series → points of `sessions`. */
export async function fetchSessions(client: ApiClient, q: SessionsSeriesQuery): Promise<SeriesPoint[]> {
  return fetchSeries(
    client,
    ENDPOINTS.sessionsDataSeries,
    'sessions',
    {
      ...windowQuery(q),
      unit: checkUnit(q.unit),
      app_id: q.appId,
      segment_id: q.segmentId,
    },
    'count',
  );
}

/** GET /segments/data_series → daily points of `size`. */
export async function fetchSegmentSize(client: ApiClient, q: SegmentSizeQuery): Promise<SeriesPoint[]> {
  checkStringParam('segmentId', q.segmentId);
  return fetchSeries(
    client,
    ENDPOINTS.segmentsDataSeries,
    'size',
    { segment_id: q.segmentId, ...windowQuery(q) },
    'count',
  );
}

/** GET /events/list, page by page: each yield is one page of event names (at most EVENTS_PAGE_SIZE). */
export async function* listEventNames(client: ApiClient): AsyncGenerator<string[]> {
  const call: ApiCall = { endpoint: ENDPOINTS.eventsList };
  const pages = paginatePageIndex<unknown>(client, call, {
    pageSize: EVENTS_PAGE_SIZE,
    itemsOf: (body) => {
      if (!isRecord(body) || !Array.isArray(body.events))
        throw malformed(contextOf(call), '`events` is missing or not an array', body);
      return body.events;
    },
  });
  for await (const { items, page } of pages) {
    const names: string[] = [];
    for (const [i, name] of items.entries()) {
      if (typeof name !== 'string') {
        throw malformed(
          contextOf({ ...call, query: { page } }),
          `events[${i}] is ${JSON.stringify(name)}, not an event name string`,
          items,
        );
      }
      names.push(name);
    }
    yield names;
  }
}

function windowQuery(q: { length: number; endingAt: string }): { length: number; ending_at: string } {
  checkIntegerParam('length', q.length, 1, MAX_SERIES_LENGTH);
  checkStringParam('endingAt', q.endingAt);
  return { length: q.length, ending_at: q.endingAt };
}

function checkUnit(unit: SeriesUnit): SeriesUnit {
  if (unit !== 'day' && unit !== 'hour')
    throw new FatalError(`Parameter unit must be "day" or "hour", got ${JSON.stringify(unit)}.`);
  return unit;
}

async function fetchSeries(
  client: ApiClient,
  endpoint: EndpointSpec,
  valueField: string,
  query: Record<string, string | number | undefined>,
  kind: NumberKind,
): Promise<SeriesPoint[]> {
  const call: ApiCall = { endpoint, query };
  const response = await client.request<unknown>(call);
  return normalizeSeries(response.body, valueField, contextOf(call), response.status, kind);
}

/**
 * Checks a series body and maps each point to { time, value }; unknown extra fields are ignored.
 * @param kind what the values are: counts (whole numbers, BIGINT) or amounts (revenue). @default 'count'
 */
export function normalizeSeries(
  body: unknown,
  valueField: string,
  ctx: ReturnType<typeof contextOf>,
  status?: number,
  kind: NumberKind = 'count',
): SeriesPoint[] {
  if (!isRecord(body) || !Array.isArray(body.data))
    throw malformed(ctx, '`data` is missing or not an array', body, status);
  return body.data.map((point: unknown, i: number) => {
    if (!isRecord(point)) throw malformed(ctx, `data[${i}] is ${JSON.stringify(point)}, not an object`, body, status);
    if (typeof point.time !== 'string' || point.time.trim() === '') {
      throw malformed(ctx, `data[${i}] has no \`time\` string: ${JSON.stringify(point)}`, body, status);
    }
    const read = readNumber(point[valueField], kind);
    if ('problem' in read)
      throw malformed(ctx, `data[${i}] (time ${point.time}) field \`${valueField}\`: ${read.problem}`, body, status);
    return { time: point.time, value: read.value };
  });
}

export interface EventCountsQuery extends SessionsSeriesQuery {
  /** The custom event's name, case-sensitive. */
  event: string;
}

/** GET /events/data_series → points of `count` for one custom event. */
export async function fetchEventCounts(client: ApiClient, q: EventCountsQuery): Promise<SeriesPoint[]> {
  checkStringParam('event', q.event);
  return fetchSeries(
    client,
    ENDPOINTS.eventsDataSeries,
    'count',
    {
      event: q.event,
      ...windowQuery(q),
      unit: checkUnit(q.unit),
      app_id: q.appId,
      segment_id: q.segmentId,
    },
    'count',
  );
}

export interface KpiQuery {
  metric: KpiMetric;
  /** Days before `endingAt`, 1 to MAX_SERIES_LENGTH. */
  length: number;
  endingAt: string;
  appId?: string;
}

const KPI_ENDPOINTS: Record<KpiMetric, EndpointSpec> = {
  dau: ENDPOINTS.kpiDauDataSeries,
  mau: ENDPOINTS.kpiMauDataSeries,
  new_users: ENDPOINTS.kpiNewUsersDataSeries,
  uninstalls: ENDPOINTS.kpiUninstallsDataSeries,
};

/** GET /kpi/<metric>/data_series → daily points of the metric (its name is the value field). */
export async function fetchKpi(client: ApiClient, q: KpiQuery): Promise<SeriesPoint[]> {
  const endpoint = KPI_ENDPOINTS[q.metric];
  if (endpoint === undefined)
    throw new FatalError(
      `Parameter metric must be one of ${Object.keys(KPI_ENDPOINTS).join(', ')}, got ${JSON.stringify(q.metric)}.`,
    );
  return fetchSeries(client, endpoint, q.metric, { ...windowQuery(q), app_id: q.appId }, 'count');
}
