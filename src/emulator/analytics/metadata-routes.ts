// Read routes of metadata: 4.3 data integrations (cursor pages, Link header), 4.12 custom event names (page index),
// 4.15 email template info and 4.16 content block info (with the error texts of 7.2).
import { CDI_PAGE_SIZE, ENDPOINTS, EVENTS_PAGE_SIZE } from '../../api/endpoints.js';
import type { ContentBlock, DataIntegrationsBody, EventsListBody } from '../../api/types.js';
import type { Route } from '../route.js';
import { happenedEventNames } from './event-model.js';
import { contentBlockLastEditedAt, templateAt } from './metadata-catalogue.js';
import { booleanParam, ParamError, readRoute } from './query-params.js';
import { contentBlockAt, liveInclusions, templateRecordAt } from './workspace-listing.js';

/** Cursors are opaque to clients; inside they carry the offset of the page. */
export function integrationsCursor(offset: number): string {
  return Buffer.from(`offset:${offset}`).toString('base64url');
}

function decodeCursor(cursor: string, total: number): number | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const m = /^offset:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m) return undefined;
  const offset = Number(m[1]);
  return offset % CDI_PAGE_SIZE === 0 && offset < total ? offset : undefined;
}

export const integrationsRoute: Route = readRoute(ENDPOINTS.cdiIntegrations, (req, ctx) => {
  const all = ctx.workspace.analytics.integrations;
  const cursor = req.query.get('cursor');
  const offset = cursor === null ? 0 : decodeCursor(cursor, all.length);
  if (offset === undefined) throw new ParamError('Invalid cursor');
  const links: string[] = [];
  if (offset > 0) links.push(`</cdi/integrations?cursor=${integrationsCursor(offset - CDI_PAGE_SIZE)}>; rel="prev"`);
  if (offset + CDI_PAGE_SIZE < all.length)
    links.push(`</cdi/integrations?cursor=${integrationsCursor(offset + CDI_PAGE_SIZE)}>; rel="next"`);
  const body: DataIntegrationsBody = {
    results: all.slice(offset, offset + CDI_PAGE_SIZE).map((i) => ({ ...i })),
    message: 'success',
  };
  return { status: 200, body, ...(links.length > 0 ? { headers: { Link: links.join(', ') } } : {}) };
});

export const eventsListRoute: Route = readRoute(ENDPOINTS.eventsList, (req, ctx) => {
  const raw = req.query.get('page');
  if (raw !== null && !/^\d{1,9}$/.test(raw))
    throw new ParamError(
      `page must be an integer ≥ 0 (0 is the first ${EVENTS_PAGE_SIZE} names), got ${JSON.stringify(raw.slice(0, 60))}`,
    );
  const page = raw === null ? 0 : Number(raw);
  const ws = ctx.workspace.analytics;
  // An event is listed once it has happened (its first occurrence's hour is over), so every name has counts.
  const names = happenedEventNames(ws, ws.apps, ws.eventNames, ctx.clock.nowMs());
  const body: EventsListBody = {
    message: 'success',
    events: names.slice(page * EVENTS_PAGE_SIZE, (page + 1) * EVENTS_PAGE_SIZE),
  };
  return { status: 200, body };
});

export const emailTemplateRoute: Route = readRoute(ENDPOINTS.emailTemplateInfo, (req, ctx) => {
  const id = req.query.get('email_template_id');
  if (id === null || id === '')
    throw new ParamError('email_template_id is required: the API identifier of an email template');
  // A template not yet created is unknown; a drag-and-drop template answers although the list leaves it out.
  const nowMs = ctx.clock.nowMs();
  const record = templateRecordAt(ctx.workspace.analytics, id, nowMs);
  if (!record)
    throw new ParamError(
      `email_template_id ${JSON.stringify(id.slice(0, 60))} is not an email template of this workspace`,
    );
  return { status: 200, body: templateAt(record, nowMs) };
});

export const contentBlockRoute: Route = readRoute(ENDPOINTS.contentBlockInfo, (req, ctx) => {
  const ws = ctx.workspace.analytics;
  const id = req.query.get('content_block_id');
  if (id === null || id.trim() === '') throw new ParamError('Content Block ID cannot be blank');
  const nowMs = ctx.clock.nowMs();
  const block = contentBlockAt(ws, id, nowMs);
  if (!block) throw new ParamError('Content Block ID is invalid for this workspace');
  if (block.deleted) throw new ParamError('Content Block has been deleted—content not available');
  const includeInclusionData = booleanParam(req.query, 'include_inclusion_data', 'Include Inclusion Data—error');
  // Archived (and deleted) Canvases are excluded from inclusions; the count follows the same rule.
  const inclusions = liveInclusions(ws, block, nowMs);
  const body: ContentBlock = {
    content_block_id: block.id,
    name: block.name,
    content: block.content,
    description: block.description,
    content_type: block.contentType,
    tags: [...block.tags],
    created_at: block.createdAt,
    last_edited: contentBlockLastEditedAt(block, nowMs),
    inclusion_count: inclusions.length,
    ...(includeInclusionData ? { inclusion_data: inclusions } : {}),
    message: 'success',
  };
  return { status: 200, body };
});
