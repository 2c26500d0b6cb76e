// `catalog-items` → POST /catalogs/{name}/items (4.4: 50 items, asynchronous) or, with --update, PATCH
// /catalogs/{name}/items/{id} (4.5: one item, only the changed fields, 50/min pool). Error ids of 7.1 are mapped to rows.
import type { ApiCall } from '../../api/api-call.js';
import { ENDPOINTS } from '../../api/endpoints.js';
import type { CatalogError } from '../../api/types.js';
import type { FatalApiError } from '../../errors.js';
import { FatalError } from '../../errors.js';
import type { PinnedRows, PlannedRow, PushTarget, RowOutcome, SourceRow } from '../push-target.js';
import { isProblem, requiredText } from '../row-checks.js';
import type { Json, RowValues } from '../row-values.js';
import { sameJson, show, toJson } from '../row-values.js';

export const CATALOG_ITEMS_PER_REQUEST = 50;
/** Spec 7.1 / 8: an item id is at most 250 characters of letters, digits, hyphen and underscore. */
const ITEM_ID = /^[A-Za-z0-9_-]{1,250}$/;

function catalogErrors(error: FatalApiError): CatalogError[] {
  const errors = (error.body as { errors?: unknown } | undefined)?.errors;
  return Array.isArray(errors) ? (errors.filter((e) => e && typeof e === 'object') as CatalogError[]) : [];
}

function describe(e: CatalogError): string {
  return `${String(e.id)}: ${String(e.message)}`;
}

/** Does this 7.1 error name the item `id` (in parameter_values, or as "item <id>" in its message) or its request index? */
function names(e: CatalogError, id: string, position: number): boolean {
  const values = Array.isArray(e.parameter_values) ? e.parameter_values.map(String) : [];
  if (values.includes(id) || values.includes(`items[${position}]`)) return true;
  const message = String(e.message ?? '');
  const at = message.indexOf(`item ${id}`);
  return at >= 0 && !/[A-Za-z0-9_-]/.test(message.charAt(at + 5 + id.length));
}

export const catalogItemsTarget: PushTarget = {
  name: 'catalog-items',
  summary:
    'create catalog items in bulk (POST, 50 per request, asynchronous) or edit them one by one with --update (PATCH, 50/min)',
  irreversible: false,
  maxBatchSize: CATALOG_ITEMS_PER_REQUEST,
  minBatchSize: 1,
  endpointFor: (_operation, ctx) => (ctx.mapping.update ? ENDPOINTS.catalogItemEdit : ENDPOINTS.catalogItemsCreate),

  columnsProblem(columns, ctx) {
    if (ctx.mapping.catalog === undefined)
      return 'catalog-items needs --catalog <name>, the catalog the items belong to';
    if (!columns.includes('id'))
      return `catalog-items needs an "id" column (the item id); the source has ${columns.join(', ')}`;
    if (columns.length === 1)
      return 'catalog-items needs at least one field column besides "id" (one column per catalog field)';
    const bad = columns.filter((c) => c.includes('.') || c.includes('$'));
    if (bad.length > 0)
      return `catalog field names cannot contain "." or "$" (7.1 invalid-keys-in-value-object): rename ${bad.join(', ')}`;
    return undefined;
  },

  readRow(row, index, ctx) {
    const id = requiredText(row, 'id');
    if (isProblem(id)) return id.problem;
    if (!ITEM_ID.test(id))
      return `item id ${show(id)} must be 1 to 250 letters, digits, "-" or "_" (7.1 invalid-ids / ids-too-large)`;
    const values: RowValues = {};
    for (const [column, raw] of Object.entries(row)) {
      if (column === 'id') continue;
      const converted = toJson(raw, `column "${column}"`);
      if (!converted.ok) return converted.problem;
      const text = typeof converted.value === 'string' ? converted.value : JSON.stringify(converted.value);
      if (text.length > 5_000)
        return `column "${column}" of item ${id} has ${text.length} characters; an item value is at most 5000 (7.1 items-too-large)`;
      values[column] = converted.value;
    }
    return { index, destination: ctx.mapping.catalog ?? '', key: id, values } satisfies SourceRow;
  },

  plan(row, acked, ctx) {
    if (!ctx.mapping.update) return { operation: acked ? 'update' : 'create', payload: { id: row.key, ...row.values } };
    // An edit sends only the fields that differ from what the platform last accepted (all of them the first time).
    const changed: Record<string, Json> = {};
    for (const [field, value] of Object.entries(row.values))
      if (!acked || !sameJson(value, acked[field])) changed[field] = value;
    return Object.keys(changed).length === 0 ? undefined : { operation: 'update', payload: changed };
  },

  // Edits go one per request (the item is in the path); creates of one catalog share requests.
  groupKey: (row, ctx) => (ctx.mapping.update ? `${row.destination}\u0000${row.key}` : row.destination),

  call(rows, ctx): ApiCall {
    const catalog = rows[0]!.destination;
    if (ctx.mapping.update) {
      return {
        endpoint: ENDPOINTS.catalogItemEdit,
        pathParams: { catalog_name: catalog, item_id: rows[0]!.key },
        body: { items: [rows[0]!.payload] },
      };
    }
    return {
      endpoint: ENDPOINTS.catalogItemsCreate,
      pathParams: { catalog_name: catalog },
      body: { items: rows.map((r) => r.payload) },
    };
  },

  read: (_response, rows): RowOutcome[] => rows.map((row) => ({ row, status: 'accepted' })),

  pin(error, rows) {
    const errors = catalogErrors(error);
    const missing = errors.find((e) => e.id === 'catalog-not-found');
    if (missing) {
      throw new FatalError(
        `catalog ${show(rows[0]?.destination)} does not exist (${describe(missing)}); check --catalog (catalogs are created in the dashboard)`,
      );
    }
    const pinned: PinnedRows = new Map();
    rows.forEach((row: PlannedRow, position) => {
      const mine = rows.length === 1 ? errors : errors.filter((e) => names(e, row.key, position));
      if (mine.length === 0) return;
      // arbitrary-error: "retry or contact support" — the row is tried again next push.
      const status = mine.every((e) => e.id === 'arbitrary-error') ? 'transient' : 'rejected';
      pinned.set(row, { status, error: mine.map(describe).join('; ') });
    });
    return pinned;
  },
};
