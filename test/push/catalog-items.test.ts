import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CATALOG_CREATE_DELAY_MS, listCatalogItems } from '../../src/emulator/people/catalogs.js';
import type { PushFixture } from './push-test-helpers.js';
import { countRequests, pushFixture, pushed, recordingFetch, sql } from './push-test-helpers.js';

let fx: PushFixture;
beforeEach(async () => {
  fx = await pushFixture();
});
afterEach(async () => {
  await fx.close();
});

function items(name: string): Map<string, Record<string, unknown>> {
  const catalog = fx.em.state.people.catalogs.get(name)!;
  return new Map(listCatalogItems(catalog, fx.em.clock.nowMs()).map((i) => [i.id, i]));
}

describe('push catalog-items', () => {
  it('creates items in bulk (asynchronous: present once the platform settles them) and sends nothing the second time', async () => {
    await sql(
      fx,
      `CREATE TABLE goods AS SELECT 'sku_' || i AS id, 'Good ' || i AS "Name", i * 1.5 AS "Price", i % 2 = 0 AS "In_Stock" FROM range(1, 61) t(i)`,
    );
    const first = await countRequests(fx, () => pushed(fx, 'catalog-items', { table: 'goods', catalog: 'products' }));
    expect(first.requests).toBe(2);
    expect(first.result).toMatchObject({ status: 'succeeded', rowsAccepted: 60 });
    fx.em.clock.advance(CATALOG_CREATE_DELAY_MS);
    expect(items('products').get('sku_7')).toEqual({ id: 'sku_7', Name: 'Good 7', Price: 10.5, In_Stock: false });
    const second = await countRequests(fx, () => pushed(fx, 'catalog-items', { table: 'goods', catalog: 'products' }));
    expect(second.requests).toBe(0);
  });

  it('a bad item in a batch of 50 is isolated by its 7.1 error while the other 49 are accepted', async () => {
    await sql(
      fx,
      `CREATE TABLE goods AS SELECT 'sku_' || i AS id, 'Good ' || i AS "Name", CASE WHEN i = 17 THEN 'cheap' ELSE (i * 2)::VARCHAR END AS "Price", true AS "In_Stock" FROM range(1, 51) t(i)`,
    );
    const { result, requests } = await countRequests(fx, () =>
      pushed(fx, 'catalog-items', { table: 'goods', catalog: 'products' }),
    );
    expect(result).toMatchObject({ status: 'partial', rowsAccepted: 49, rowsRejected: 1 });
    expect(requests).toBe(2);
    expect(result.failures).toEqual([
      expect.objectContaining({
        index: 16,
        key: 'sku_17',
        status: 'rejected',
        error: expect.stringMatching(/^unable-to-coerce-value/),
      }),
    ]);
    fx.em.clock.advance(CATALOG_CREATE_DELAY_MS);
    const now = items('products');
    expect(now.has('sku_16')).toBe(true);
    expect(now.has('sku_17')).toBe(false);
  });

  it('with --update edits items one by one, sending only the fields that changed', async () => {
    await sql(
      fx,
      `CREATE TABLE menu AS SELECT * FROM (VALUES ('restaurant1', 'Chez One', 4), ('restaurant2', 'Two Spot', 5)) t(id, "Name", "Rating")`,
    );
    await pushed(fx, 'catalog-items', { table: 'menu', catalog: 'restaurants', update: true });
    expect(items('restaurants').get('restaurant1')).toMatchObject({ Name: 'Chez One', Rating: 4 });
    await sql(fx, `UPDATE menu SET "Rating" = 3 WHERE id = 'restaurant2'`);
    const rec = recordingFetch();
    const summary = await pushed(
      fx,
      'catalog-items',
      { table: 'menu', catalog: 'restaurants', update: true },
      { client: { fetch: rec.fetch } },
    );
    expect(summary.rowsAccepted).toBe(1);
    expect(rec.sent.map((r) => [r.method, new URL(r.url).pathname, r.body])).toEqual([
      ['PATCH', '/catalogs/restaurants/items/restaurant2', { items: [{ Rating: 3 }] }],
    ]);
    expect(items('restaurants').get('restaurant2')).toMatchObject({ Name: 'Two Spot', Rating: 3 });
  });

  it('reports item-not-found on its row, and stops the push for an unknown catalog', async () => {
    await sql(
      fx,
      `CREATE TABLE menu AS SELECT * FROM (VALUES ('restaurant3', 'Three'), ('ghost', 'Nobody')) t(id, "Name")`,
    );
    const summary = await pushed(fx, 'catalog-items', { table: 'menu', catalog: 'restaurants', update: true });
    expect(summary.failures).toEqual([
      expect.objectContaining({ key: 'ghost', status: 'rejected', error: expect.stringMatching(/item-not-found/) }),
    ]);
    await expect(pushed(fx, 'catalog-items', { table: 'menu', catalog: 'nope' })).rejects.toThrow(
      /catalog "nope" does not exist/,
    );
  });
});
