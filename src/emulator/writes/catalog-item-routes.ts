// POST /catalogs/:catalog_name/items (4.4, asynchronous: 202, items visible after CATALOG_CREATE_DELAY_MS on the emulator
// clock) and PATCH /catalogs/:catalog_name/items/:item_id (4.5, synchronous: 200), with every error id of 7.1.
import { ENDPOINTS } from '../../api/endpoints.js';
import type { CatalogError } from '../../api/types.js';
import type { Catalog, CatalogItemValue } from '../people/catalogs.js';
import { CATALOG_CREATE_DELAY_MS, settleCatalog } from '../people/catalogs.js';
import type { EmulatorRequest, EmulatorResponse, Route, RouteContext } from '../route.js';
import { isPlainObject, show } from './body-checks.js';
import { catalogError, catalogErrorResponse } from './catalog-errors.js';
import { checkItemFields, checkItemId } from './catalog-item-checks.js';

export const MAX_CREATE_ITEMS = 50;

type Resolved =
  | { ok: true; catalog: Catalog; items: Record<string, unknown>[] }
  | { ok: false; response: EmulatorResponse };

/** Catalog lookup and the shape of `items`, common to create and edit. An unknown catalog answers 404 with the 7.1 body. */
function resolve(req: EmulatorRequest, ctx: RouteContext, maxItems: number): Resolved {
  const name = req.params['catalog_name'] ?? '';
  const catalog = ctx.workspace.people.catalogs.get(name);
  if (!catalog) {
    const known = [...ctx.workspace.people.catalogs.keys()].join(', ');
    return {
      ok: false,
      response: catalogErrorResponse(404, [
        catalogError(
          'catalog-not-found',
          `no catalog named ${show(name)}; known catalogs: ${known}`,
          ['catalog_name'],
          [name],
        ),
      ]),
    };
  }
  settleCatalog(catalog, ctx.clock.nowMs());
  const items = isPlainObject(req.body) ? req.body['items'] : undefined;
  if (!Array.isArray(items) || items.length === 0 || !items.every(isPlainObject)) {
    return {
      ok: false,
      response: catalogErrorResponse(400, [
        catalogError(
          'item-array-invalid',
          `send { "items": [ {...} ] } with 1 to ${maxItems} item object(s)`,
          ['items'],
          [show(items, 300)],
        ),
      ]),
    };
  }
  if (items.length > maxItems) {
    return {
      ok: false,
      response: catalogErrorResponse(400, [
        catalogError(
          'request-includes-too-many-items',
          `the request has ${items.length} items; the limit is ${maxItems}`,
          ['items'],
          [String(items.length)],
        ),
      ]),
    };
  }
  return { ok: true, catalog, items };
}

function handleCreate(req: EmulatorRequest, ctx: RouteContext): EmulatorResponse {
  const r = resolve(req, ctx, MAX_CREATE_ITEMS);
  if (!r.ok) return r.response;
  const errors: CatalogError[] = [];
  const accepted: CatalogItemValue[] = [];
  const seen = new Set<string>();
  for (const [i, item] of r.items.entries()) {
    const idErrors = checkItemId(item['id'], `items[${i}]`);
    if (idErrors.length > 0) {
      errors.push(...idErrors);
      continue;
    }
    const id = item['id'] as string;
    if (seen.has(id))
      errors.push(catalogError('ids-not-unique', `the id ${id} appears more than once in the request`, ['id'], [id]));
    seen.add(id);
    const checked = checkItemFields(r.catalog, item, id, 'create');
    errors.push(...checked.errors);
    accepted.push({ ...checked.fields, id });
  }
  if (errors.length > 0) return catalogErrorResponse(400, errors);
  // Accepted now, visible later: a create is asynchronous on the platform. An existing id is replaced when it lands.
  r.catalog.pending.push({ visibleAtMs: ctx.clock.nowMs() + CATALOG_CREATE_DELAY_MS, items: accepted });
  return { status: 202, body: { message: 'success' } };
}

function handleEdit(req: EmulatorRequest, ctx: RouteContext): EmulatorResponse {
  const itemId = req.params['item_id'] ?? '';
  const r = resolve(req, ctx, 1);
  if (!r.ok) return r.response;
  const errors = checkItemId(itemId, 'item_id').filter((e) => e.id !== 'items-missing-ids');
  const item = r.items[0] ?? {};
  if ('id' in item) {
    // Ids cannot change through an edit: the live service reports an id sent in the body as id-in-body.
    errors.push(
      catalogError(
        'id-in-body',
        `remove "id" from the body; the item is named by the path (${itemId})`,
        ['id'],
        [show(item['id'])],
      ),
    );
  }
  const checked = checkItemFields(r.catalog, item, itemId, 'edit');
  errors.push(...checked.errors);
  if (errors.length > 0) return catalogErrorResponse(400, errors);
  const existing = r.catalog.items.get(itemId);
  if (!existing) {
    return catalogErrorResponse(404, [
      catalogError(
        'item-not-found',
        `no item ${show(itemId)} in catalog ${r.catalog.name} (created items appear ${CATALOG_CREATE_DELAY_MS} ms after the create call)`,
        ['item_id'],
        [itemId],
      ),
    ]);
  }
  r.catalog.items.set(itemId, { ...existing, ...checked.fields });
  return { status: 200, body: { message: 'success' } };
}

export const catalogItemsCreateRoute: Route = { endpoint: ENDPOINTS.catalogItemsCreate, handle: handleCreate };
export const catalogItemEditRoute: Route = { endpoint: ENDPOINTS.catalogItemEdit, handle: handleEdit };
