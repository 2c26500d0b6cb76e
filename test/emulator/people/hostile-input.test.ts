import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WRITE_ROUTES } from '../../../src/emulator/writes/index.js';
import { catalogItemsCreateRoute } from '../../../src/emulator/writes/catalog-item-routes.js';
import { usersTrackRoute } from '../../../src/emulator/writes/users-track-route.js';
import { makeKit } from './people-test-kit.js';

/** An object nested `levels` deep, built without recursion. */
function nested(levels: number): Record<string, unknown> {
  let v: Record<string, unknown> = { leaf: 1 };
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

describe('write routes facing hostile bodies', () => {
  it('answer every route with a 4xx (never throw) for bodies of the wrong shape', () => {
    const kit = makeKit();
    const bodies: unknown[] = [
      undefined,
      null,
      42,
      'text',
      [],
      [{}],
      {},
      { items: null },
      { attributes: 'x' },
      { email: { a: 1 } },
    ];
    for (const route of WRITE_ROUTES) {
      for (const body of bodies) {
        const params = { catalog_name: 'restaurants', item_id: 'restaurant1', id: 'pc_1' };
        const res = kit.call(route, body, { params });
        // SCIM reads ignore the body; every other route must refuse these bodies.
        if (route.endpoint.method === 'GET' || route.endpoint.method === 'DELETE') continue;
        expect(res.status, `${route.endpoint.name} with ${JSON.stringify(body)}`).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
      }
    }
  });

  it('never throw and never answer 5xx for random JSON bodies and path parameters (property)', () => {
    const kit = makeKit();
    const keys = [
      'attributes',
      'items',
      'email',
      'external_id',
      'external_ids',
      'external_id_renames',
      'subscription_group_id',
      'subscription_state',
      'phone',
      'schedule_id',
      'preference_center_page_html',
      'confirmation_page_html',
      'state',
      'options',
      'subscription_groups',
      'userName',
    ];
    const json = fc.jsonValue({ maxDepth: 4 });
    const body = fc.oneof(json, fc.dictionary(fc.constantFrom(...keys), json));
    const segment = fc.oneof(
      fc.constantFrom('restaurants', 'products', 'restaurant1', 'pc_1', 'sched_1'),
      fc.string({ maxLength: 10 }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...WRITE_ROUTES), body, segment, segment, (route, b, s1, s2) => {
        const res = kit.call(route, b, { params: { catalog_name: s1, item_id: s2, id: s1 } });
        expect(res.status).toBeGreaterThanOrEqual(200);
        expect(res.status).toBeLessThan(500);
      }),
      { numRuns: 1500, seed: 20261121 },
    );
  });

  it('refuse values nested 100,000 levels deep with a clear error instead of exhausting the stack', () => {
    const kit = makeKit();
    const deep = nested(100_000);
    const created = kit.call(
      catalogItemsCreateRoute,
      {
        items: [
          {
            id: 'deep',
            Name: 'n',
            City: 'c',
            Cuisine: 'x',
            Rating: 1,
            Loyalty_Program: true,
            Location: deep,
            Created_At: '2024-01-01',
          },
        ],
      },
      { params: { catalog_name: 'restaurants' } },
    );
    expect(created.status).toBe(400);
    expect(JSON.stringify(created.body)).toContain('too-deep-nesting-in-value-object');
    const tracked = kit.call(usersTrackRoute, { attributes: [{ external_id: 'user_1', blob: deep, list: [deep] }] });
    expect(tracked.status).toBe(201);
    expect((tracked.body as { errors: unknown[] }).errors).toHaveLength(2);
  });

  it('refuse the attribute name __proto__ rather than changing the profile object', () => {
    const kit = makeKit();
    const res = kit.call(
      usersTrackRoute,
      JSON.parse('{"attributes":[{"external_id":"user_1","__proto__":{"polluted":true}}]}'),
    );
    expect((res.body as { errors: { type: string }[] }).errors[0]?.type).toMatch(/__proto__/);
    expect((kit.user('user_1').attributes as { polluted?: boolean }).polluted).toBeUndefined();
  });
});
