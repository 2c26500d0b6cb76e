import { describe, expect, it } from 'vitest';
import type { CatalogErrorBody } from '../../../src/api/types.js';
import { CATALOG_CREATE_DELAY_MS, listCatalogItems } from '../../../src/emulator/people/catalogs.js';
import type { EmulatorResponse } from '../../../src/emulator/route.js';
import { ARBITRARY_ERROR_VALUE } from '../../../src/emulator/writes/catalog-item-checks.js';
import {
  catalogItemEditRoute as edit,
  catalogItemsCreateRoute as create,
} from '../../../src/emulator/writes/catalog-item-routes.js';
import type { Kit } from './people-test-kit.js';
import { makeKit } from './people-test-kit.js';

function restaurant(id: unknown, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    Name: 'R',
    City: 'Berlin',
    Cuisine: 'Thai',
    Rating: 4,
    Loyalty_Program: false,
    Location: { Latitude: 52.5, Longitude: 13.4 },
    Created_At: '2024-01-01T00:00:00Z',
    ...over,
  };
}

function errorIds(res: EmulatorResponse): string[] {
  return (res.body as CatalogErrorBody).errors.map((e) => e.id);
}

function createItems(kit: Kit, items: unknown, catalog = 'restaurants'): EmulatorResponse {
  return kit.call(create, { items }, { params: { catalog_name: catalog } });
}

function editItem(kit: Kit, itemId: string, items: unknown, catalog = 'restaurants'): EmulatorResponse {
  return kit.call(edit, { items }, { params: { catalog_name: catalog, item_id: itemId } });
}

function items(kit: Kit, catalog = 'restaurants') {
  const c = kit.workspace.people.catalogs.get(catalog);
  if (!c) throw new Error(`test setup: no catalog ${catalog}`);
  return listCatalogItems(c, kit.clock.nowMs());
}

describe('POST /catalogs/:catalog_name/items (create, asynchronous)', () => {
  it('answers 202 success at once and shows the items only after the create delay on the emulator clock', () => {
    const kit = makeKit();
    const res = createItems(kit, [restaurant('new_one', { Rating: '4.5' })]);
    expect(res).toEqual({ status: 202, body: { message: 'success' } });
    expect(items(kit).find((i) => i.id === 'new_one')).toBeUndefined();
    kit.clock.advance(CATALOG_CREATE_DELAY_MS);
    expect(items(kit).find((i) => i.id === 'new_one')).toMatchObject({
      Rating: 4.5,
      City: 'Berlin',
      Created_At: '2024-01-01T00:00:00.000Z',
    });
  });

  it('shapes error bodies as { errors: [{ id, message, parameters, parameter_values }], message: "Invalid Request" }', () => {
    const kit = makeKit();
    const res = createItems(kit, [restaurant('bad id!')]);
    expect(res.status).toBe(400);
    const body = res.body as CatalogErrorBody;
    expect(body.message).toBe('Invalid Request');
    expect(body.errors[0]).toEqual({
      id: 'invalid-ids',
      message: expect.stringMatching(/letters, numbers/),
      parameters: ['id'],
      parameter_values: ['bad id!'],
    });
  });

  it('reports every create error id of 7.1 under its condition and creates nothing', () => {
    const kit = makeKit();
    const count = items(kit).length;
    const cases: [unknown, string][] = [
      [[restaurant(42)], 'ids-not-strings'],
      [[restaurant('dup'), restaurant('dup')], 'ids-not-unique'],
      [[restaurant('x'.repeat(251))], 'ids-too-large'],
      [[restaurant('has space')], 'invalid-ids'],
      [[restaurant('f1', { Colour: 'red' })], 'invalid-fields'],
      [[restaurant('k1', { Location: { 'a.b': 1 } })], 'invalid-keys-in-value-object'],
      [[restaurant('k2', { Location: { $where: 1 } })], 'invalid-keys-in-value-object'],
      ['not an array', 'item-array-invalid'],
      [[1, 2], 'item-array-invalid'],
      [[restaurant(undefined)], 'items-missing-ids'],
      [[restaurant('big', { Name: 'x'.repeat(5001) })], 'items-too-large'],
      [Array.from({ length: 51 }, (_, i) => restaurant(`r_${i}`)), 'request-includes-too-many-items'],
      [
        [restaurant('deep', { Location: JSON.parse(`${'{"a":'.repeat(50)}1${'}'.repeat(50)}`) })],
        'too-deep-nesting-in-value-object',
      ],
      [[restaurant('c1', { Rating: 'five' })], 'unable-to-coerce-value'],
      [[restaurant('c2', { Loyalty_Program: 'maybe' })], 'unable-to-coerce-value'],
      [[restaurant('c3', { Created_At: 'yesterday' })], 'unable-to-coerce-value'],
    ];
    for (const [payload, id] of cases) {
      const res = createItems(kit, payload);
      expect(res.status, id).toBe(400);
      expect(errorIds(res), id).toContain(id);
    }
    kit.clock.advance(CATALOG_CREATE_DELAY_MS);
    expect(items(kit)).toHaveLength(count);
  });

  it('requires every catalog field on create and accepts exactly 50 items', () => {
    const kit = makeKit();
    const { Rating: _dropped, ...missingRating } = restaurant('partial');
    const res = createItems(kit, [missingRating]);
    expect(errorIds(res)).toEqual(['invalid-fields']);
    expect((res.body as CatalogErrorBody).errors[0]?.parameters).toEqual(['Rating']);
    expect(
      createItems(
        kit,
        Array.from({ length: 50 }, (_, i) => restaurant(`ok_${i}`)),
      ).status,
    ).toBe(202);
  });

  it('answers 404 with catalog-not-found for an unknown catalog', () => {
    const kit = makeKit();
    const res = createItems(kit, [restaurant('a')], 'nope');
    expect(res.status).toBe(404);
    expect(errorIds(res)).toEqual(['catalog-not-found']);
  });
});

describe('PATCH /catalogs/:catalog_name/items/:item_id (edit, synchronous)', () => {
  it('changes only the given fields and answers 200 success', () => {
    const kit = makeKit();
    const before = items(kit).find((i) => i.id === 'restaurant1');
    const res = editItem(kit, 'restaurant1', [{ Name: 'NewNameForRestaurant1', Rating: 2 }]);
    expect(res).toEqual({ status: 200, body: { message: 'success' } });
    expect(items(kit).find((i) => i.id === 'restaurant1')).toEqual({
      ...before,
      Name: 'NewNameForRestaurant1',
      Rating: 2,
    });
  });

  it('reports every edit error id of 7.1 under its condition and changes nothing', () => {
    const kit = makeKit();
    const before = structuredClone(items(kit).find((i) => i.id === 'restaurant1'));
    const cases: [string, unknown, string][] = [
      ['x'.repeat(251), [{ Name: 'a' }], 'ids-too-large'],
      ['bad$id', [{ Name: 'a' }], 'invalid-ids'],
      ['restaurant1', [{ Colour: 'red' }], 'invalid-fields'],
      ['restaurant1', [{ Location: { 'a.b': 1 } }], 'invalid-keys-in-value-object'],
      ['restaurant1', { Name: 'a' }, 'item-array-invalid'],
      ['restaurant1', [], 'item-array-invalid'],
      ['restaurant1', [{ Name: 'x'.repeat(5001) }], 'items-too-large'],
      ['restaurant1', [{ Name: 'a' }, { Name: 'b' }], 'request-includes-too-many-items'],
      [
        'restaurant1',
        [{ Location: JSON.parse(`${'{"a":'.repeat(50)}1${'}'.repeat(50)}`) }],
        'too-deep-nesting-in-value-object',
      ],
      ['restaurant1', [{ Rating: { stars: 5 } }], 'unable-to-coerce-value'],
      ['restaurant1', [{ Name: ARBITRARY_ERROR_VALUE }], 'arbitrary-error'],
      ['restaurant1', [{ City: 'c'.repeat(101) }], 'filtered-set-field-too-long'],
      ['restaurant1', [{ id: 'restaurant2', Name: 'a' }], 'id-in-body'],
    ];
    for (const [itemId, payload, id] of cases) {
      const res = editItem(kit, itemId, payload);
      expect(res.status, id).toBe(400);
      expect(errorIds(res), id).toContain(id);
    }
    expect(items(kit).find((i) => i.id === 'restaurant1')).toEqual(before);
  });

  it('answers 404 item-not-found for an unknown item (and for a created item not yet visible), 404 catalog-not-found for an unknown catalog', () => {
    const kit = makeKit();
    const missing = editItem(kit, 'nope', [{ Name: 'a' }]);
    expect(missing.status).toBe(404);
    expect(errorIds(missing)).toEqual(['item-not-found']);
    createItems(kit, [restaurant('fresh')]);
    expect(editItem(kit, 'fresh', [{ Name: 'b' }]).status).toBe(404);
    kit.clock.advance(CATALOG_CREATE_DELAY_MS);
    expect(editItem(kit, 'fresh', [{ Name: 'b' }]).status).toBe(200);
    const noCatalog = editItem(kit, 'restaurant1', [{ Name: 'a' }], 'nope');
    expect(noCatalog.status).toBe(404);
    expect(errorIds(noCatalog)).toEqual(['catalog-not-found']);
  });
});
