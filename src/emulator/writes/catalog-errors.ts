// The catalog error body of spec 7.1: `{ errors: [{ id, message, parameters, parameter_values }], message: "Invalid Request" }`.
import type { CatalogError, CatalogErrorBody, CatalogErrorId } from '../../api/types.js';
import { show } from '../people/plain-values.js';
import type { EmulatorResponse } from '../route.js';

/** The platform's text per error id, followed in each error by what to change. */
const MESSAGES: Record<CatalogErrorId, string> = {
  'catalog-not-found': 'Could not find catalog',
  'ids-not-strings': 'Item IDs must be of type string',
  'ids-not-unique': 'Item IDs must be unique in the request',
  'ids-too-large': "Item IDs can't be more than 250 characters",
  'invalid-ids': 'Item IDs can only include letters, numbers, hyphens and underscores',
  'invalid-fields': 'Fields sent do not exist in the catalog',
  'invalid-keys-in-value-object': "Item object keys can't include . or $",
  'item-array-invalid': 'items must be an array of objects',
  'items-missing-ids': 'There are items that do not have item IDs',
  'items-too-large': "Item values can't exceed 5,000 characters",
  'request-includes-too-many-items': 'Your request has too many items',
  'too-deep-nesting-in-value-object': "Item objects can't have more than 50 levels of nesting",
  'unable-to-coerce-value': "Item types can't be converted",
  'arbitrary-error': 'An arbitrary error occurred. Please try again or contact support',
  'filtered-set-field-too-long': 'The field value is used in a filtered set and exceeds its character limit',
  'id-in-body': 'An item ID given in the body already exists in the catalog',
  'item-not-found': 'Could not find item',
};

export function catalogError(id: CatalogErrorId, fix: string, parameters: string[], values: unknown[]): CatalogError {
  return {
    id,
    message: `${MESSAGES[id]}: ${fix}`,
    parameters,
    parameter_values: values.map((v) => (typeof v === 'string' ? v : show(v, 300))),
  };
}

export function catalogErrorResponse(status: 400 | 404, errors: CatalogError[]): EmulatorResponse {
  const body: CatalogErrorBody = { errors, message: 'Invalid Request' };
  return { status, body };
}
