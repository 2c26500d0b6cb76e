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
import type { CampaignListBody, CanvasListBody, ContentBlockListBody, EmailTemplateListBody, ProductListBody, SegmentListBody } from '../../api/types.js';
import type { Route } from '../route.js';
import { limitParam, offsetParam, pageParam, sortDirectionParam } from './list-params.js';
import { booleanParam, instantParam, ParamError, readRoute } from './query-params.js';
import type { ArchivableListOptions, ModifiedRange } from './workspace-listing.js';
import { listedCampaigns, listedCanvases, listedContentBlocks, listedProducts, listedSegments, listedTemplates } from './workspace-listing.js';

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
    throw new ParamError(`modified_after (${new Date(modifiedAfterMs).toISOString()}) must not be after modified_before (${new Date(modifiedBeforeMs).toISOString()})`);
  }
  return { ...(modifiedAfterMs !== undefined ? { modifiedAfterMs } : {}), ...(modifiedBeforeMs !== undefined ? { modifiedBeforeMs } : {}) };
}

export const canvasListRoute: Route = readRoute(ENDPOINTS.canvasList, (req, ctx) => {
  const index = pageParam(req.query, CANVAS_LIST_PAGE_SIZE);
  const all = listedCanvases(ctx.workspace.analytics, ctx.clock.nowMs(), archivableOptions(req.query));
  const body: CanvasListBody = { canvases: page(all, index, CANVAS_LIST_PAGE_SIZE), message: 'success' };
  return { status: 200, body };
});

export const campaignsListRoute: Route = readRoute(ENDPOINTS.campaignsList, (req, ctx) => {
  const index = pageParam(req.query, CAMPAIGNS_LIST_PAGE_SIZE);
  const all = listedCampaigns(ctx.workspace.analytics, ctx.clock.nowMs(), archivableOptions(req.query));
  const body: CampaignListBody = { campaigns: page(all, index, CAMPAIGNS_LIST_PAGE_SIZE), message: 'success' };
  return { status: 200, body };
});

export const segmentsListRoute: Route = readRoute(ENDPOINTS.segmentsList, (req, ctx) => {
  const index = pageParam(req.query, SEGMENTS_LIST_PAGE_SIZE);
  const all = listedSegments(ctx.workspace.analytics, ctx.clock.nowMs(), sortDirectionParam(req.query));
  const body: SegmentListBody = { segments: page(all, index, SEGMENTS_LIST_PAGE_SIZE), message: 'success' };
  return { status: 200, body };
});

export const productListRoute: Route = readRoute(ENDPOINTS.purchasesProductList, (req, ctx) => {
  const index = pageParam(req.query, PRODUCT_LIST_PAGE_SIZE);
  const body: ProductListBody = { products: page(listedProducts(ctx.workspace.analytics, ctx.clock.nowMs()), index, PRODUCT_LIST_PAGE_SIZE), message: 'success' };
  return { status: 200, body };
});

export const emailTemplatesListRoute: Route = readRoute(ENDPOINTS.emailTemplatesList, (req, ctx) => {
  const range = modifiedRange(req.query);
  const limit = limitParam(req.query, METADATA_LIST_DEFAULT_LIMIT);
  const offset = offsetParam(req.query);
  const all = listedTemplates(ctx.workspace.analytics, ctx.clock.nowMs(), range);
  const body: EmailTemplateListBody = { count: all.length, templates: all.slice(offset, offset + limit), message: 'success' };
  return { status: 200, body };
});

export const contentBlocksListRoute: Route = readRoute(ENDPOINTS.contentBlocksList, (req, ctx) => {
  const range = modifiedRange(req.query);
  const limit = limitParam(req.query, METADATA_LIST_DEFAULT_LIMIT);
  const offset = offsetParam(req.query);
  const all = listedContentBlocks(ctx.workspace.analytics, ctx.clock.nowMs(), range);
  const body: ContentBlockListBody = { count: all.length, content_blocks: all.slice(offset, offset + limit), message: 'success' };
  return { status: 200, body };
});
