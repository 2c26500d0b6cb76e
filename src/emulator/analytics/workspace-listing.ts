// What the workspace's list endpoints show at an instant, as pure functions of the model: the routes page these lists,
// and tests compute the expected answers from them without HTTP. Lists are in creation order (ties in catalogue order).
import type {
  CampaignListEntry,
  CanvasListEntry,
  ContentBlockListEntry,
  EmailTemplateListEntry,
  SegmentListEntry,
} from '../../api/types.js';
import type { AnalyticsWorkspace } from './analytics-workspace.js';
import type { Campaign } from './campaign-catalogue.js';
import type { Canvas } from './canvas-catalogue.js';
import type { Lifecycle } from './lifecycle.js';
import { archivedAt, existsAt, iso, lastEditAt } from './lifecycle.js';
import type { ContentBlockRecord, TemplateRecord } from './metadata-catalogue.js';
import { contentBlockLastEditedAt, templateAt } from './metadata-catalogue.js';
import type { Segment } from './analytics-catalogue.js';

export type SortDirection = 'asc' | 'desc';

export interface ArchivableListOptions {
  /** Include objects archived at or before now. @default false */
  includeArchived?: boolean;
  /** `asc`: oldest first. @default 'asc' */
  direction?: SortDirection;
  /** Only objects whose latest edit (at now) is strictly after this instant (`last_edit.time[gt]`). */
  lastEditAfterMs?: number;
}

/** Objects that exist at `nowMs`, in creation order (or its reverse); the sort is stable, so ties keep catalogue order. */
function byCreation<T extends { lifecycle: Lifecycle }>(
  items: readonly T[],
  nowMs: number,
  direction: SortDirection = 'asc',
): T[] {
  const existing = items
    .filter((i) => existsAt(i.lifecycle, nowMs))
    .sort((a, b) => a.lifecycle.createdMs - b.lifecycle.createdMs);
  return direction === 'desc' ? existing.reverse() : existing;
}

function archivable<T extends { lifecycle: Lifecycle }>(
  items: readonly T[],
  nowMs: number,
  opts: ArchivableListOptions,
): T[] {
  return byCreation(items, nowMs, opts.direction).filter((i) => {
    if (!opts.includeArchived && archivedAt(i.lifecycle, nowMs)) return false;
    return opts.lastEditAfterMs === undefined || lastEditAt(i.lifecycle, nowMs) > opts.lastEditAfterMs;
  });
}

/** The Canvas with this id if it exists at `nowMs` (archived ones included). */
export function canvasAt(ws: AnalyticsWorkspace, id: string, nowMs: number): Canvas | undefined {
  const c = ws.canvas(id);
  return c && existsAt(c.lifecycle, nowMs) ? c : undefined;
}

export function campaignAt(ws: AnalyticsWorkspace, id: string, nowMs: number): Campaign | undefined {
  const c = ws.campaign(id);
  return c && existsAt(c.lifecycle, nowMs) ? c : undefined;
}

/** The segment with this id if it exists at `nowMs` (archived ones included: their details still answer). */
export function segmentAt(ws: AnalyticsWorkspace, id: string, nowMs: number): Segment | undefined {
  const s = ws.segment(id);
  return s && existsAt(s.lifecycle, nowMs) ? s : undefined;
}

export function templateRecordAt(ws: AnalyticsWorkspace, id: string, nowMs: number): TemplateRecord | undefined {
  const t = ws.templates.find((r) => r.template.email_template_id === id);
  return t && existsAt(t.lifecycle, nowMs) ? t : undefined;
}

export function contentBlockAt(ws: AnalyticsWorkspace, id: string, nowMs: number): ContentBlockRecord | undefined {
  const b = ws.contentBlocks.find((r) => r.id === id);
  return b && existsAt(b.lifecycle, nowMs) ? b : undefined;
}

/** Every entry `/canvas/list` shows at `nowMs` across all its pages. */
export function listedCanvases(
  ws: AnalyticsWorkspace,
  nowMs: number,
  opts: ArchivableListOptions = {},
): CanvasListEntry[] {
  return archivable(ws.canvases, nowMs, opts).map((c) => ({
    id: c.id,
    name: c.details.name,
    last_edited: iso(lastEditAt(c.lifecycle, nowMs)),
    tags: [...c.details.tags],
  }));
}

/** Every entry `/campaigns/list` shows at `nowMs` across all its pages. */
export function listedCampaigns(
  ws: AnalyticsWorkspace,
  nowMs: number,
  opts: ArchivableListOptions = {},
): CampaignListEntry[] {
  return archivable(ws.campaigns, nowMs, opts).map((c) => ({
    id: c.id,
    name: c.name,
    last_edited: iso(lastEditAt(c.lifecycle, nowMs)),
    tags: [...c.tags],
    is_api_campaign: c.isApiCampaign,
  }));
}

/** Every entry `/segments/list` shows at `nowMs`: existing segments, archived ones never. */
export function listedSegments(
  ws: AnalyticsWorkspace,
  nowMs: number,
  direction: SortDirection = 'asc',
): SegmentListEntry[] {
  return byCreation(ws.segments, nowMs, direction)
    .filter((s) => !archivedAt(s.lifecycle, nowMs))
    .map((s) => ({
      id: s.id,
      name: s.name,
      analytics_tracking_enabled: s.analyticsTrackingEnabled,
      tags: [...s.tags],
    }));
}

/**
 * Every product `/purchases/product_list` names at `nowMs`: those whose first-sale hour has begun (the originals from
 * the workspace start), in order of first sale, so new products are appended and earlier pages stay as they were.
 */
export function listedProducts(ws: AnalyticsWorkspace, nowMs: number): string[] {
  return ws.products
    .map((p) => ({ id: p.id, firstMs: p.firstSaleMs ?? ws.startMs }))
    .filter((p) => p.firstMs <= nowMs)
    .sort((a, b) => a.firstMs - b.firstMs)
    .map((p) => p.id);
}

export interface ModifiedRange {
  /** Keep items modified at or after this instant. */
  modifiedAfterMs?: number;
  /** Keep items modified at or before this instant. */
  modifiedBeforeMs?: number;
}

function inRange(ms: number, range: ModifiedRange): boolean {
  return (
    (range.modifiedAfterMs === undefined || ms >= range.modifiedAfterMs) &&
    (range.modifiedBeforeMs === undefined || ms <= range.modifiedBeforeMs)
  );
}

/** Every entry `/templates/email/list` shows at `nowMs` (before `offset`/`limit`): drag-and-drop templates left out. */
export function listedTemplates(
  ws: AnalyticsWorkspace,
  nowMs: number,
  range: ModifiedRange = {},
): EmailTemplateListEntry[] {
  return byCreation(ws.templates, nowMs)
    .filter((r) => !r.dragAndDrop && inRange(lastEditAt(r.lifecycle, nowMs), range))
    .map((r) => {
      const t = templateAt(r, nowMs);
      return {
        email_template_id: t.email_template_id,
        template_name: t.template_name,
        created_at: t.created_at,
        updated_at: t.updated_at,
        tags: t.tags
          .split(',')
          .map((x) => x.trim())
          .filter((x) => x !== ''),
      };
    });
}

/** Archived Canvases do not count as inclusions (as on the platform); nor do Canvases not yet created. */
export function liveInclusions(ws: AnalyticsWorkspace, block: ContentBlockRecord, nowMs: number): string[] {
  return block.includedIn
    .filter((inc) => {
      const canvas = canvasAt(ws, inc.canvasId, nowMs);
      return canvas !== undefined && !archivedAt(canvas.lifecycle, nowMs);
    })
    .map((inc) => inc.messageId);
}

/** Every entry `/content_blocks/list` shows at `nowMs` (before `offset`/`limit`): deleted blocks left out. */
export function listedContentBlocks(
  ws: AnalyticsWorkspace,
  nowMs: number,
  range: ModifiedRange = {},
): ContentBlockListEntry[] {
  return byCreation(ws.contentBlocks, nowMs)
    .filter((b) => !b.deleted && inRange(lastEditAt(b.lifecycle, nowMs), range))
    .map((b) => ({
      content_block_id: b.id,
      name: b.name,
      content_type: b.contentType,
      liquid_tag: `{{content_blocks.\${${b.id}}}}`,
      inclusion_count: liveInclusions(ws, b, nowMs).length,
      created_at: b.createdAt,
      last_edited: contentBlockLastEditedAt(b, nowMs),
      tags: [...b.tags],
    }));
}
