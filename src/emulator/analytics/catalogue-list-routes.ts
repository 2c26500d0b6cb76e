// The list endpoints of discovery: Canvases, campaigns and segments by 0-based page of 100, product names by page,
// email templates and content blocks by limit/offset with a modification window. What each list holds at an instant
// is the model's (workspace-listing.ts); these routes read parameters and cut pages.
import {
  CAMPAIGNS_LIST_PAGE_SIZE,
  CANVAS_LIST_PAGE_SIZE,
  ENDPOINTS,
  METADATA_LIST_DEFAULT_LIMIT,
  PRODUCT_LIST_PAGE_SIZE,
  SEGMENTS_LIST_PAGE_SIZE,
} from '../../api/endpoints.js';
import type { EndpointSpec } from '../../api/endpoints.js';
import type { Route } from '../route.js';
import type { AnalyticsWorkspace } from './analytics-workspace.js';
import { limitParam, offsetParam, pageParam, sortDirectionParam } from './list-params.js';
import { booleanParam, instantParam, ParamError, readRoute } from './query-params.js';
import type { ArchivableListOptions, ModifiedRange } from './workspace-listing.js';
import {
  listedCampaigns,
  listedCanvases,
  listedContentBlocks,
  listedProducts,
  listedSegments,
  listedTemplates,
} from './workspace-listing.js';

function page<T>(items: readonly T[], index: number, size: number): T[] {
  return items.slice(index * size, (index + 1) * size);
}

function archivableOptions(query: URLSearchParams): ArchivableListOptions {
  const lastEditAfterMs = instantParam(query, 'last_edit.time[gt]');
  return {
    includeArchived: booleanParam(query, 'include_archived'),
    direction: sortDirectionParam(query),
    ...(lastEditAfterMs !== undefined ? { lastEditAfterMs } : {}),
  };
}

function modifiedRange(query: URLSearchParams): ModifiedRange {
  const modifiedAfterMs = instantParam(query, 'modified_after');
  const modifiedBeforeMs = instantParam(query, 'modified_before');
  if (modifiedAfterMs !== undefined && modifiedBeforeMs !== undefined && modifiedAfterMs > modifiedBeforeMs) {
    throw new ParamError(
      `modified_after (${new Date(modifiedAfterMs).toISOString()}) must not be after modified_before (${new Date(modifiedBeforeMs).toISOString()})`,
    );
  }
  return {
    ...(modifiedAfterMs !== undefined ? { modifiedAfterMs } : {}),
    ...(modifiedBeforeMs !== undefined ? { modifiedBeforeMs } : {}),
  };
}

/** A page-index list: `page` (0-based) of `pageSize` items of what `list` holds at now for the request's parameters. */
function pagedRoute(
  endpoint: EndpointSpec,
  key: string,
  pageSize: number,
  list: (ws: AnalyticsWorkspace, nowMs: number, query: URLSearchParams) => unknown[],
): Route {
  return readRoute(endpoint, (req, ctx) => {
    const index = pageParam(req.query, pageSize);
    const all = list(ctx.workspace.analytics, ctx.clock.nowMs(), req.query);
    return { status: 200, body: { [key]: page(all, index, pageSize), message: 'success' } };
  });
}

/** Answers a `CanvasListBody`. */
export const canvasListRoute: Route = pagedRoute(
  ENDPOINTS.canvasList,
  'canvases',
  CANVAS_LIST_PAGE_SIZE,
  (ws, nowMs, q) => listedCanvases(ws, nowMs, archivableOptions(q)),
);

/** Answers a `CampaignListBody`. */
export const campaignsListRoute: Route = pagedRoute(
  ENDPOINTS.campaignsList,
  'campaigns',
  CAMPAIGNS_LIST_PAGE_SIZE,
  (ws, nowMs, q) => listedCampaigns(ws, nowMs, archivableOptions(q)),
);

/** Answers a `SegmentListBody`. */
export const segmentsListRoute: Route = pagedRoute(
  ENDPOINTS.segmentsList,
  'segments',
  SEGMENTS_LIST_PAGE_SIZE,
  (ws, nowMs, q) => listedSegments(ws, nowMs, sortDirectionParam(q)),
);

/** Answers a `ProductListBody`. */
export const productListRoute: Route = pagedRoute(
  ENDPOINTS.purchasesProductList,
  'products',
  PRODUCT_LIST_PAGE_SIZE,
  (ws, nowMs) => listedProducts(ws, nowMs),
);

/** A limit/offset list: `count` is every item matching the modification window, the page is `offset`..`offset + limit`. */
function limitOffsetRoute(
  endpoint: EndpointSpec,
  key: string,
  list: (ws: AnalyticsWorkspace, nowMs: number, range: ModifiedRange) => unknown[],
): Route {
  return readRoute(endpoint, (req, ctx) => {
    const range = modifiedRange(req.query);
    const limit = limitParam(req.query, METADATA_LIST_DEFAULT_LIMIT);
    const offset = offsetParam(req.query);
    const all = list(ctx.workspace.analytics, ctx.clock.nowMs(), range);
    return { status: 200, body: { count: all.length, [key]: all.slice(offset, offset + limit), message: 'success' } };
  });
}

/** Answers an `EmailTemplateListBody`. */
export const emailTemplatesListRoute: Route = limitOffsetRoute(
  ENDPOINTS.emailTemplatesList,
  'templates',
  listedTemplates,
);

/** Answers a `ContentBlockListBody`. */
export const contentBlocksListRoute: Route = limitOffsetRoute(
  ENDPOINTS.contentBlocksList,
  'content_blocks',
  listedContentBlocks,
);
