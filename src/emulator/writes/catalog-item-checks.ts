// Checks of catalog items against their catalog (spec 7.1, 8): id rules, unknown fields, forbidden keys, nesting, size,
// type coercion, and — on edit — the filtered-set limit and the magic value that triggers `arbitrary-error`.
import type { CatalogError } from '../../api/types.js';
import { DateTime } from 'luxon';
import type { Catalog, CatalogField } from '../people/catalogs.js';
import { show } from '../people/plain-values.js';
import { catalogError } from './catalog-errors.js';

export const MAX_ITEM_ID_LENGTH = 250;
export const MAX_ITEM_VALUE_LENGTH = 5_000;
export const MAX_NESTING_DEPTH = 50;
export const ITEM_ID_PATTERN = /^[A-Za-z0-9_-]+$/;
/**
 * `arbitrary-error` cannot be caused by input on the live service; an edit carrying this exact string as a field value
 * triggers it here so clients can test their handling.
 */
export const ARBITRARY_ERROR_VALUE = '__arbitrary_error__';

export type ItemMode = 'create' | 'edit';

/** Errors of an item id (path parameter on edit, `id` field on create). Empty when the id is acceptable. */
export function checkItemId(id: unknown, where: string): CatalogError[] {
  if (id === undefined || id === null || id === '')
    return [catalogError('items-missing-ids', 'give every item an "id"', ['id'], [where])];
  if (typeof id !== 'string')
    return [catalogError('ids-not-strings', `send the id ${show(id)} as a string`, ['id'], [id])];
  if (id.length > MAX_ITEM_ID_LENGTH) {
    return [
      catalogError(
        'ids-too-large',
        `the id has ${id.length} characters; use at most ${MAX_ITEM_ID_LENGTH}`,
        ['id'],
        [id],
      ),
    ];
  }
  if (!ITEM_ID_PATTERN.test(id))
    return [catalogError('invalid-ids', `use only A-Z, a-z, 0-9, "-" and "_" in ${show(id)}`, ['id'], [id])];
  return [];
}

function badKeyPath(value: unknown, path: string): string | undefined {
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const bad = badKeyPath(v, `${path}[${i}]`);
      if (bad) return bad;
    }
  } else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (k.includes('.') || k.includes('$')) return `${path}.${k}`;
      const bad = badKeyPath(v, `${path}.${k}`);
      if (bad) return bad;
    }
  }
  return undefined;
}

/**
 * Levels of objects/arrays (a scalar is 0, `{}` is 1, `{a:{}}` is 2), counted only up to `cap + 1` so that absurdly
 * deep input cannot exhaust the stack.
 */
function depth(value: unknown, cap: number): number {
  if (typeof value !== 'object' || value === null) return 0;
  if (cap < 0) return 1;
  const children = Array.isArray(value) ? value : Object.values(value);
  let deepest = 0;
  for (const child of children) {
    deepest = Math.max(deepest, depth(child, cap - 1));
    if (deepest > cap) break;
  }
  return 1 + deepest;
}

/** The value converted to the field's type, or undefined when it cannot be. Null clears a field of any type. */
export function coerce(field: CatalogField, value: unknown): { value: unknown } | undefined {
  if (value === null) return { value: null };
  switch (field.type) {
    case 'string':
      return typeof value === 'string'
        ? { value }
        : typeof value === 'number' || typeof value === 'boolean'
          ? { value: String(value) }
          : undefined;
    case 'number': {
      if (typeof value === 'number' && Number.isFinite(value)) return { value };
      const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
      return Number.isFinite(n) ? { value: n } : undefined;
    }
    case 'boolean':
      if (typeof value === 'boolean') return { value };
      return value === 'true' ? { value: true } : value === 'false' ? { value: false } : undefined;
    case 'time': {
      if (typeof value !== 'string') return undefined;
      const dt = DateTime.fromISO(value, { zone: 'utc' });
      return dt.isValid ? { value: dt.toUTC().toISO() } : undefined;
    }
    case 'object':
      return typeof value === 'object' && !Array.isArray(value) ? { value } : undefined;
  }
}

/**
 * Check the fields of one item (everything but `id`); returns the errors and, when there are none, the coerced fields.
 * On create every catalog field must be present; on edit only the fields to change are sent.
 */
export function checkItemFields(
  catalog: Catalog,
  item: Record<string, unknown>,
  itemId: string,
  mode: ItemMode,
): { errors: CatalogError[]; fields: Record<string, unknown> } {
  const errors: CatalogError[] = [];
  const fields: Record<string, unknown> = {};
  const known = new Map(catalog.fields.map((f) => [f.name, f]));
  const entries = Object.entries(item).filter(([k]) => k !== 'id');
  const unknown = entries.filter(([k]) => !known.has(k)).map(([k]) => k);
  if (unknown.length > 0) {
    errors.push(
      catalogError(
        'invalid-fields',
        `item ${itemId} sends ${unknown.join(', ')}; the catalog ${catalog.name} has ${catalog.fields.map((f) => f.name).join(', ')}`,
        unknown,
        [itemId],
      ),
    );
  }
  if (mode === 'create') {
    const missing = catalog.fields.filter((f) => !(f.name in item)).map((f) => f.name);
    if (missing.length > 0)
      errors.push(
        catalogError(
          'invalid-fields',
          `item ${itemId} lacks ${missing.join(', ')}; a created item must carry every field of the catalog`,
          missing,
          [itemId],
        ),
      );
  }
  if (depth(item, MAX_NESTING_DEPTH) > MAX_NESTING_DEPTH) {
    // Deeper checks would walk the whole structure; the nesting error is what the client must fix first.
    errors.push(
      catalogError(
        'too-deep-nesting-in-value-object',
        `item ${itemId} nests deeper than ${MAX_NESTING_DEPTH} levels: flatten it`,
        ['id'],
        [itemId],
      ),
    );
    return { errors, fields };
  }
  const badKey = badKeyPath(item, itemId);
  if (badKey)
    errors.push(catalogError('invalid-keys-in-value-object', `rename the key at ${badKey}`, ['id'], [itemId]));
  for (const [name, value] of entries) {
    const field = known.get(name);
    if (!field) continue;
    const length = typeof value === 'string' ? value.length : (JSON.stringify(value) ?? '').length;
    if (length > MAX_ITEM_VALUE_LENGTH) {
      errors.push(
        catalogError(
          'items-too-large',
          `${name} of item ${itemId} has ${length} characters; use at most ${MAX_ITEM_VALUE_LENGTH}`,
          [name],
          [itemId],
        ),
      );
      continue;
    }
    if (mode === 'edit' && value === ARBITRARY_ERROR_VALUE) {
      errors.push(
        catalogError(
          'arbitrary-error',
          `retry the request (triggered on purpose by the value ${ARBITRARY_ERROR_VALUE})`,
          [name],
          [itemId],
        ),
      );
      continue;
    }
    const coerced = coerce(field, value);
    if (!coerced) {
      errors.push(
        catalogError(
          'unable-to-coerce-value',
          `${name} of item ${itemId} must be a ${field.type}, got ${show(value)}`,
          [name],
          [show(value, 300)],
        ),
      );
      continue;
    }
    const limit = field.filteredSetMaxLength;
    if (mode === 'edit' && limit !== undefined && typeof coerced.value === 'string' && coerced.value.length > limit) {
      errors.push(
        catalogError(
          'filtered-set-field-too-long',
          `${name} feeds a filtered set: use at most ${limit} characters (got ${coerced.value.length})`,
          [name],
          [itemId],
        ),
      );
      continue;
    }
    fields[name] = coerced.value;
  }
  return { errors, fields };
}
