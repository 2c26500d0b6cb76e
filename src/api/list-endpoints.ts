// The workspace's list endpoints: Canvases, campaigns and segments by page index, product names by page, email
// templates and content blocks by limit/offset. Each yields its pages with every entry checked for the fields discovery
// reads; other readings of the documentation (smaller pages, no `count`, instants with an offset) are accepted.
import type { ApiCall } from './api-call.js';
import type { ApiClient } from './api-client.js';
import {
  CAMPAIGNS_LIST_PAGE_SIZE,
  CANVAS_LIST_PAGE_SIZE,
  ENDPOINTS,
  METADATA_LIST_MAX_LIMIT,
  PRODUCT_LIST_PAGE_SIZE,
  SEGMENTS_LIST_PAGE_SIZE,
} from './endpoints.js';
import type { EndpointSpec } from './endpoints.js';
import { paginateOffset } from './paginate-offset.js';
import { paginatePageIndex } from './paginate-page-index.js';
import { contextOf, isRecord, malformed, toNumber } from './response-shape.js';
import type {
  CampaignListEntry,
  CanvasListEntry,
  ContentBlockListEntry,
  EmailTemplateListEntry,
  SegmentListEntry,
} from './types.js';

/** Parameters of the Canvas and campaign lists. */
export interface ArchivableListQuery {
  /** Send include_archived=true. @default false */
  includeArchived?: boolean;
}

/** The entries of one page, checked: each is an object whose `idField` is a non-empty string. */
function entriesOf(call: ApiCall, body: unknown, key: string, idField: string): Record<string, unknown>[] {
  const ctx = contextOf(call);
  if (!isRecord(body) || !Array.isArray(body[key])) throw malformed(ctx, `\`${key}\` is missing or not an array`, body);
  return (body[key] as unknown[]).map((entry, i) => {
    if (!isRecord(entry) || typeof entry[idField] !== 'string' || entry[idField] === '') {
      throw malformed(ctx, `${key}[${i}] has no ${idField} string: ${JSON.stringify(entry)}`, body);
    }
    return entry;
  });
}

async function* pageIndexList<E>(
  client: ApiClient,
  call: ApiCall,
  key: string,
  idField: string,
  pageSize: number,
): AsyncGenerator<E[]> {
  const pages = paginatePageIndex<unknown>(client, call, {
    pageSize,
    smallerPages: true,
    itemsOf: (body) => entriesOf(call, body, key, idField),
  });
  for await (const { items } of pages) yield items as E[];
}

function archivableCall(endpoint: EndpointSpec, q: ArchivableListQuery): ApiCall {
  return { endpoint, query: { include_archived: q.includeArchived ?? false, sort_direction: 'asc' } };
}

/** GET /canvas/list, oldest first; each yield is one page. */
export function listCanvases(client: ApiClient, q: ArchivableListQuery = {}): AsyncGenerator<CanvasListEntry[]> {
  return pageIndexList(client, archivableCall(ENDPOINTS.canvasList, q), 'canvases', 'id', CANVAS_LIST_PAGE_SIZE);
}

/** GET /campaigns/list, oldest first; each yield is one page. */
export function listCampaigns(client: ApiClient, q: ArchivableListQuery = {}): AsyncGenerator<CampaignListEntry[]> {
  return pageIndexList(client, archivableCall(ENDPOINTS.campaignsList, q), 'campaigns', 'id', CAMPAIGNS_LIST_PAGE_SIZE);
}

/** GET /segments/list, oldest first (archived segments are never listed); each yield is one page. */
export function listSegments(client: ApiClient): AsyncGenerator<SegmentListEntry[]> {
  return pageIndexList(
    client,
    { endpoint: ENDPOINTS.segmentsList, query: { sort_direction: 'asc' } },
    'segments',
    'id',
    SEGMENTS_LIST_PAGE_SIZE,
  );
}

/**
 * GET /purchases/product_list: product names; the page size is undocumented, so pages are read until one is short, and
 * whether pages count from 0 or 1 (the documentation's example asks page=1) is told from the answers.
 */
export async function* listProducts(client: ApiClient): AsyncGenerator<string[]> {
  const call: ApiCall = { endpoint: ENDPOINTS.purchasesProductList };
  const itemsOf = (body: unknown): unknown[] => {
    if (!isRecord(body) || !Array.isArray(body.products))
      throw malformed(contextOf(call), '`products` is missing or not an array', body);
    return body.products.map((p: unknown, i: number) => {
      if (typeof p !== 'string' || p === '')
        throw malformed(contextOf(call), `products[${i}] is ${JSON.stringify(p)}, not a product name`, body);
      return p;
    });
  };
  for await (const { items } of paginatePageIndex<unknown>(client, call, {
    pageSize: PRODUCT_LIST_PAGE_SIZE,
    smallerPages: true,
    detectFirstPage: true,
    itemsOf,
  }))
    yield items as string[];
}

/** Limit/offset lists ask for the largest page the platform allows: one request for up to 1,000 objects. */
async function* offsetList<E>(client: ApiClient, call: ApiCall, key: string, idField: string): AsyncGenerator<E[]> {
  const pages = paginateOffset<unknown>(client, call, {
    limit: METADATA_LIST_MAX_LIMIT,
    itemsOf: (body) => entriesOf(call, body, key, idField),
    countOf: (body) => (isRecord(body) ? toNumber(body.count) : undefined),
  });
  for await (const { items } of pages) yield items as E[];
}

/** Filters of the template and block lists: ISO 8601 instants, both inclusive. */
export interface ModifiedWindow {
  modifiedAfter?: string;
  modifiedBefore?: string;
}

function windowQuery(w: ModifiedWindow): Record<string, string | undefined> {
  return { modified_after: w.modifiedAfter, modified_before: w.modifiedBefore };
}

/** GET /templates/email/list (the platform leaves drag-and-drop templates out); each yield is one page. */
export function listEmailTemplates(
  client: ApiClient,
  w: ModifiedWindow = {},
): AsyncGenerator<EmailTemplateListEntry[]> {
  return offsetList(
    client,
    { endpoint: ENDPOINTS.emailTemplatesList, query: windowQuery(w) },
    'templates',
    'email_template_id',
  );
}

/** GET /content_blocks/list; each yield is one page. */
export function listContentBlocks(client: ApiClient, w: ModifiedWindow = {}): AsyncGenerator<ContentBlockListEntry[]> {
  return offsetList(
    client,
    { endpoint: ENDPOINTS.contentBlocksList, query: windowQuery(w) },
    'content_blocks',
    'content_block_id',
  );
}
