// The workspace's lists that `all` is resolved from: Canvases, campaigns, segments, products, custom event
// names, email templates and content blocks. Each says how to read its pages, what an entry's version is (what moves when the object is
// edited) and how many pages to expect; discovery reads each list a run needs once and stores its entries.
import type { ApiClient } from '../api/api-client.js';
import type { EndpointSpec } from '../api/endpoints.js';
import {
  CANVAS_LIST_PAGE_SIZE,
  ENDPOINTS,
  EVENTS_PAGE_SIZE,
  METADATA_LIST_MAX_LIMIT,
  PRODUCT_LIST_PAGE_SIZE,
} from '../api/endpoints.js';
import { toNumber } from '../api/response-shape.js';
import { listEventNames } from '../api/analytics-endpoints.js';
import {
  listCampaigns,
  listCanvases,
  listContentBlocks,
  listEmailTemplates,
  listProducts,
  listSegments,
} from '../api/list-endpoints.js';
import { stringList, timestampOrNull } from '../extract/extracted-rows.js';
import { col, defineTable } from '../load/table-definition.js';
import type { IdSelection } from './option-reader.js';

/** One entry of a list, as discovery keeps it. */
export interface ListedObject {
  readonly id: string;
  readonly name: string | null;
  /**
   * What moves when the object is edited: its edit instant in UTC ISO form (so `+02:00` and `Z` readings of one instant
   * agree), or for segments, whose list has no edit time, the listed fields themselves. Details are re-read when it moves.
   */
  readonly version: string;
  readonly tags: string[];
  /**
   * The list-only fields the tables keep (`last_edited`, `is_api_campaign`, `analytics_tracking_enabled`,
   * `inclusion_count`), normalized (instants as UTC ISO, numbers as numbers) so that every reading stores the same.
   */
  readonly attributes: Readonly<Record<string, unknown>>;
}

export type WorkspaceListName =
  | 'canvases'
  | 'campaigns'
  | 'segments'
  | 'products'
  | 'custom_events'
  | 'email_templates'
  | 'content_blocks';

/** One list of the workspace. */
export interface WorkspaceList {
  readonly name: WorkspaceListName;
  readonly endpoint: EndpointSpec;
  /** True when the list takes `include_archived`. */
  readonly archivable: boolean;
  /** Requests to expect for `n` entries (a full last page costs one more: the list ends on a short or empty page). */
  estimatePages(n: number): number;
  /** Every page, in order. */
  pages(client: ApiClient, includeArchived: boolean): AsyncGenerator<ListedObject[]>;
}

const UNVERSIONED = 'unknown:';

/**
 * The edit instant as UTC ISO; an entry without a usable one has a version that never moves (`unknown:…`), and
 * discovery re-reads such objects on a schedule instead.
 */
function instantVersion(raw: unknown): string {
  return timestampOrNull(raw)?.toISOString() ?? `${UNVERSIONED}${JSON.stringify(raw ?? null)}`;
}

/** True for the version of an entry without a usable edit time: the list cannot say when the object changed. */
export function isUnversioned(version: string): boolean {
  return version.startsWith(UNVERSIONED);
}

function nameOf(raw: unknown): string | null {
  return typeof raw === 'string' ? raw : null;
}

// Read until a page is shorter than the first: a list shorter than one page costs a second, empty, request (the
// server's page size might be that short), and a full last page costs one more.
const pageIndexEstimate = (size: number) => (n: number) => (n > 0 && n < size ? 2 : Math.floor(n / size) + 1);

async function* mapPages<E>(
  pages: AsyncGenerator<E[]>,
  toListed: (entry: E) => ListedObject,
): AsyncGenerator<ListedObject[]> {
  for await (const page of pages) yield page.map(toListed);
}

/**
 * A Canvas or campaign entry. Archiving may not move `last_edited`: an entry that carries an `archived` flag has it in its
 * version (and attributes), so the object is re-read when it is archived or restored.
 */
function editable(entry: {
  id: string;
  name?: unknown;
  last_edited?: unknown;
  tags?: unknown;
  is_api_campaign?: unknown;
  archived?: unknown;
}): ListedObject {
  const attributes: Record<string, unknown> = {
    last_edited: timestampOrNull(entry.last_edited)?.toISOString() ?? null,
  };
  if (entry.is_api_campaign !== undefined)
    attributes['is_api_campaign'] = typeof entry.is_api_campaign === 'boolean' ? entry.is_api_campaign : null;
  const archived = typeof entry.archived === 'boolean' ? entry.archived : undefined;
  if (archived !== undefined) attributes['archived'] = archived;
  const version = instantVersion(entry.last_edited);
  return {
    id: entry.id,
    name: nameOf(entry.name),
    version: archived ? `${version} archived` : version,
    tags: stringList(entry.tags),
    attributes,
  };
}

export const CANVAS_LIST: WorkspaceList = {
  name: 'canvases',
  endpoint: ENDPOINTS.canvasList,
  archivable: true,
  estimatePages: pageIndexEstimate(CANVAS_LIST_PAGE_SIZE),
  pages: (client, includeArchived) => mapPages(listCanvases(client, { includeArchived }), editable),
};

export const CAMPAIGN_LIST: WorkspaceList = {
  name: 'campaigns',
  endpoint: ENDPOINTS.campaignsList,
  archivable: true,
  estimatePages: pageIndexEstimate(CANVAS_LIST_PAGE_SIZE),
  pages: (client, includeArchived) => mapPages(listCampaigns(client, { includeArchived }), editable),
};

export const SEGMENT_LIST: WorkspaceList = {
  name: 'segments',
  endpoint: ENDPOINTS.segmentsList,
  archivable: false,
  estimatePages: pageIndexEstimate(CANVAS_LIST_PAGE_SIZE),
  pages: (client) =>
    mapPages(listSegments(client), (e) => ({
      id: e.id,
      name: nameOf(e.name),
      tags: stringList(e.tags),
      attributes: {
        analytics_tracking_enabled:
          typeof e.analytics_tracking_enabled === 'boolean' ? e.analytics_tracking_enabled : null,
      },
      version: JSON.stringify([e.name ?? null, stringList(e.tags), e.analytics_tracking_enabled ?? null]),
    })),
};

export const PRODUCT_LIST: WorkspaceList = {
  name: 'products',
  endpoint: ENDPOINTS.purchasesProductList,
  archivable: false,
  // An empty first page is asked again as page 1 (pages may count from 1): an empty list costs two requests.
  estimatePages: (n) => (n === 0 ? 2 : pageIndexEstimate(PRODUCT_LIST_PAGE_SIZE)(n)),
  pages: (client) => mapPages(listProducts(client), (p) => ({ id: p, name: p, version: p, tags: [], attributes: {} })),
};

/**
 * The custom event names (spec 4.12), 250 a page: read until a page is shorter than 250, so a full last page costs one
 * more request. A name is its own id and version (a name does not change, it is listed or not).
 */
export const EVENT_LIST: WorkspaceList = {
  name: 'custom_events',
  endpoint: ENDPOINTS.eventsList,
  archivable: false,
  estimatePages: (n) => Math.floor(n / EVENTS_PAGE_SIZE) + 1,
  pages: (client) =>
    mapPages(listEventNames(client), (name) => ({ id: name, name, version: name, tags: [], attributes: {} })),
};

// One request of the largest `limit` covers up to 1,000 objects when the server sends `count`.
const offsetEstimate = (n: number) => Math.floor(n / METADATA_LIST_MAX_LIMIT) + 1;

export const EMAIL_TEMPLATE_LIST: WorkspaceList = {
  name: 'email_templates',
  endpoint: ENDPOINTS.emailTemplatesList,
  archivable: false,
  estimatePages: offsetEstimate,
  pages: (client) =>
    mapPages(listEmailTemplates(client), (e) => ({
      id: e.email_template_id,
      name: nameOf(e.template_name),
      version: instantVersion(e.updated_at),
      tags: stringList(e.tags),
      attributes: {},
    })),
};

export const CONTENT_BLOCK_LIST: WorkspaceList = {
  name: 'content_blocks',
  endpoint: ENDPOINTS.contentBlocksList,
  archivable: false,
  estimatePages: offsetEstimate,
  pages: (client) =>
    mapPages(listContentBlocks(client), (e) => ({
      // A block's inclusions change when a Canvas starts or stops using it, not when it is edited: both make it re-read.
      id: e.content_block_id,
      name: nameOf(e.name),
      tags: stringList(e.tags),
      attributes: { inclusion_count: toNumber(e.inclusion_count) ?? null },
      version: `${instantVersion(e.last_edited)} included:${String(toNumber(e.inclusion_count) ?? '?')}`,
    })),
};

/** A list as one run reads it: archived objects included or not. */
export interface ListRequest {
  readonly list: WorkspaceList;
  readonly includeArchived: boolean;
}

/** The key a listing is stored under: `canvases`, or `canvases+archived` when archived objects were asked for. */
export function listingKey(r: ListRequest): string {
  return r.includeArchived && r.list.archivable ? `${r.list.name}+archived` : r.list.name;
}

/**
 * Every list entry the last runs saw. An entry a later listing no longer holds keeps its row, stamped `_removed_at`;
 * it is cleared if the object is listed again. Its row count per listing estimates the next run's discovery pages.
 */
export const listedObjectsTable = defineTable({
  name: 'listed_objects',
  description:
    "Every object the workspace's lists showed (listing: canvases, canvases+archived, campaigns, segments, products, custom_events, email_templates, content_blocks), with when it was first seen and, once a list stopped showing it, _removed_at.",
  columns: [
    col('listing', 'VARCHAR'),
    col('id', 'VARCHAR'),
    col('name', 'VARCHAR'),
    col('version', 'VARCHAR'),
    col('tags', 'VARCHAR[]'),
    col('attributes', 'JSON'),
    col('first_seen_at', 'TIMESTAMP', { keepOnUpdate: true }),
    col('_removed_at', 'TIMESTAMP'),
  ],
  key: ['listing', 'id'],
});

/** `selection` with `all` replaced by the listed ids (explicit ids first, each id once). */
export function withListed(selection: IdSelection, listed: readonly ListedObject[]): IdSelection {
  if (!selection.all) return selection;
  return { all: false, ids: [...new Set([...selection.ids, ...listed.map((o) => o.id)])] };
}

/** The discovery of a stream whose one id list (`key` of its options) may say `all`, read from `list`. */
export function idListDiscovery<O>(
  list: WorkspaceList,
  get: (o: O) => IdSelection,
  set: (o: O, ids: IdSelection) => O,
  includeArchived: (o: O) => boolean = () => false,
) {
  return {
    needs: (o: O): ListRequest[] => (get(o).all ? [{ list, includeArchived: includeArchived(o) }] : []),
    resolve: (o: O, listed: (r: ListRequest) => readonly ListedObject[]) => ({
      options: set(o, withListed(get(o), listed({ list, includeArchived: includeArchived(o) }))),
      notes: [] as string[],
    }),
  };
}
