// End-to-end: the people routes behind the real emulator server (auth, JSON parsing, limits) on an ephemeral port.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../../src/emulator/server.js';
import { createEmulator } from '../../../src/emulator/server.js';
import { CATALOG_CREATE_DELAY_MS } from '../../../src/emulator/people/catalogs.js';
import { findUserByExternalId } from '../../../src/emulator/people/users.js';

let emulator: Emulator;

beforeAll(async () => {
  emulator = await createEmulator({ seed: 1, now: '2025-06-15T12:00:00Z', port: 0 });
});

afterAll(async () => {
  await emulator.close();
});

async function call(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${emulator.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${emulator.demoApiKey}`, 'Content-Type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

function user(externalId: string) {
  const u = findUserByExternalId(emulator.state.people.users, externalId);
  if (!u) throw new Error(`test setup: no user ${externalId}`);
  return u;
}

describe('people routes over real HTTP', () => {
  it('POST /subscription/status/set answers 201 and the workspace shows the new state', async () => {
    user('user_11').subscriptionGroups.set('sg_email_1', 'subscribed');
    const res = await call('POST', '/subscription/status/set', {
      subscription_group_id: 'sg_email_1',
      subscription_state: 'unsubscribed',
      external_id: ['user_11'],
    });
    expect(res).toEqual({ status: 201, body: { message: 'success' } });
    expect(user('user_11').subscriptionGroups.get('sg_email_1')).toBe('unsubscribed');
  });

  it('an unknown group gets the recorded 400 over v2', async () => {
    const res = await call('POST', '/v2/subscription/status/set', {
      subscription_groups: [{ subscription_group_id: 'nope', subscription_state: 'subscribed', external_id: 'user_1' }],
    });
    expect(res).toEqual({ status: 400, body: { message: 'Invalid subscription group ID' } });
  });

  it('POST /users/track applies attributes and reports attributes_processed', async () => {
    const res = await call('POST', '/users/track', {
      attributes: [{ external_id: 'user_12', country: 'Deutschland', tags: ['a', 'a'] }],
    });
    expect(res).toEqual({ status: 201, body: { message: 'success', attributes_processed: 1 } });
    expect(user('user_12').attributes).toMatchObject({ country: 'DE', tags: ['a'] });
  });

  it('a created catalog item can be edited once the create delay has passed on the emulator clock', async () => {
    const item = {
      id: 'http_item',
      Name: 'N',
      City: 'Paris',
      Cuisine: 'French',
      Rating: 3,
      Loyalty_Program: true,
      Location: {},
      Created_At: '2024-01-01T00:00:00Z',
    };
    expect((await call('POST', '/catalogs/restaurants/items', { items: [item] })).status).toBe(202);
    expect((await call('PATCH', '/catalogs/restaurants/items/http_item', { items: [{ Rating: 5 }] })).status).toBe(404);
    emulator.clock.advance(CATALOG_CREATE_DELAY_MS);
    expect(await call('PATCH', '/catalogs/restaurants/items/http_item', { items: [{ Rating: 5 }] })).toEqual({
      status: 200,
      body: { message: 'success' },
    });
    expect(emulator.state.people.catalogs.get('restaurants')?.items.get('http_item')?.['Rating']).toBe(5);
  });

  it('SCIM: search by userName gives a ListResponse, and deleting an unknown id gets 404 with the SCIM error body', async () => {
    const scim = { Authorization: `Bearer ${emulator.scimToken}`, 'X-Request-Origin': 'engage-etl-test' };
    const found = await call(
      'GET',
      `/scim/v2/Users?filter=${encodeURIComponent('userName eq "intern@example.com"')}`,
      undefined,
      scim,
    );
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ totalResults: 1, Resources: [{ userName: 'intern@example.com' }] });
    const missing = await call('DELETE', '/scim/v2/Users/no-such-user', undefined, scim);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
      detail: expect.stringContaining('no-such-user'),
      status: 404,
    });
  });

  it('SCIM: deleting a found user answers 204 with no body, and the user is gone', async () => {
    const scim = { Authorization: `Bearer ${emulator.scimToken}`, 'X-Request-Origin': 'engage-etl-test' };
    const found = await call(
      'GET',
      `/scim/v2/Users?filter=${encodeURIComponent('userName eq "intern@example.com"')}`,
      undefined,
      scim,
    );
    const id = (found.body as { Resources: { id: string }[] }).Resources[0]!.id;
    const res = await fetch(`${emulator.url}/scim/v2/Users/${id}`, { method: 'DELETE', headers: scim });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    const again = await call(
      'GET',
      `/scim/v2/Users?filter=${encodeURIComponent('userName eq "intern@example.com"')}`,
      undefined,
      scim,
    );
    expect(again.body).toMatchObject({ totalResults: 0 });
  });
});
