import { describe, expect, it } from 'vitest';
import { findUserByAlias, findUserByPushToken } from '../../../src/emulator/people/users.js';
import { usersTrackRoute as track } from '../../../src/emulator/writes/users-track-route.js';
import { START, bodyOf, makeKit } from './people-test-kit.js';

function attributes(...objects: unknown[]) {
  return { attributes: objects };
}

describe('POST /users/track — request and response', () => {
  it('answers 201 with attributes_processed and no errors key when every object applies', () => {
    const kit = makeKit();
    const res = kit.call(
      track,
      attributes({ external_id: 'user_1', foo: 'bar' }, { external_id: 'user_2', foo: 'baz' }),
    );
    expect(res).toEqual({ status: 201, body: { message: 'success', attributes_processed: 2 } });
    expect(kit.user('user_1').attributes['foo']).toBe('bar');
  });

  it('refuses a body without an attributes array, an empty one, more than 75 objects, and events it does not emulate', () => {
    const kit = makeKit();
    expect(kit.call(track, { attributes: { external_id: 'user_1' } }).status).toBe(400);
    expect(kit.call(track, attributes()).status).toBe(400);
    const many = Array.from({ length: 76 }, (_, i) => ({ external_id: `user_${i + 1}`, n: 1 }));
    const res = kit.call(track, { attributes: many });
    expect(res.status).toBe(400);
    expect(bodyOf(res)['message']).toMatch(/76 objects, more than the 75 allowed/);
    expect(kit.user('user_1').attributes['n']).toBeUndefined();
    expect(kit.call(track, { attributes: [{ external_id: 'user_1' }], events: [] }).status).toBe(400);
  });

  it('reports per-object problems as {type, input_array, index} and still applies the other objects', () => {
    const kit = makeKit();
    const res = kit.call(
      track,
      attributes({ first_name: 'Nobody' }, { external_id: 'user_1', gender: 'X', home_city: 'Oslo' }),
    );
    expect(res.status).toBe(201);
    const body = bodyOf(res);
    expect(body['attributes_processed']).toBe(1);
    const errors = body['errors'] as { type: string; input_array: string; index: number }[];
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatchObject({ input_array: 'attributes', index: 0 });
    expect(errors[0]?.type).toMatch(/no identifier/);
    expect(errors[1]).toMatchObject({ input_array: 'attributes', index: 1 });
    expect(errors[1]?.type).toMatch(/gender: must be one of M, F, O, N, P/);
    expect(kit.user('user_1').attributes['home_city']).toBe('Oslo');
  });
});

describe('POST /users/track — identifiers and _update_existing_only', () => {
  it('creates a profile for an unknown external_id when _update_existing_only is omitted', () => {
    const kit = makeKit();
    const before = kit.workspace.people.users.length;
    kit.call(track, attributes({ external_id: 'brand_new', first_name: 'New' }));
    expect(kit.workspace.people.users.length).toBe(before + 1);
    expect(kit.user('brand_new').attributes['first_name']).toBe('New');
  });

  it('does not create a profile for an unknown external_id when _update_existing_only is true', () => {
    const kit = makeKit();
    const before = kit.workspace.people.users.length;
    const res = kit.call(track, attributes({ external_id: 'ghost', _update_existing_only: true, first_name: 'Ghost' }));
    expect(res.status).toBe(201);
    expect(kit.workspace.people.users.length).toBe(before);
  });

  it('defaults _update_existing_only to true with user_alias, and creates the alias profile only when told false', () => {
    const kit = makeKit();
    const alias = { alias_name: 'lead_42', alias_label: 'crm' };
    const before = kit.workspace.people.users.length;
    kit.call(track, attributes({ user_alias: alias, first_name: 'Lead' }));
    expect(kit.workspace.people.users.length).toBe(before);
    kit.call(track, attributes({ user_alias: alias, _update_existing_only: false, first_name: 'Lead' }));
    expect(findUserByAlias(kit.workspace.people.users, alias)?.attributes['first_name']).toBe('Lead');
  });

  it('updates an existing alias profile, and identifies it when an external_id is first assigned to it', () => {
    const kit = makeKit();
    const alias = { alias_name: 'visitor_1', alias_label: 'web_visitor' };
    kit.call(track, attributes({ user_alias: alias, home_city: 'Rome' }));
    const anon = findUserByAlias(kit.workspace.people.users, alias);
    expect(anon?.attributes['home_city']).toBe('Rome');
    const before = kit.workspace.people.users.length;
    kit.call(track, attributes({ user_alias: alias, external_id: 'identified_1', first_name: 'Ida' }));
    expect(kit.workspace.people.users.length).toBe(before);
    expect(kit.user('identified_1')).toBe(anon);
    expect(anon?.attributes).toMatchObject({ home_city: 'Rome', first_name: 'Ida' });
  });

  it('identifies by email (most recently updated profile on a shared address) and by platform_id', () => {
    const kit = makeKit();
    const email = String(kit.user('user_2').attributes['email']);
    kit.clock.advance(1000);
    kit.call(track, attributes({ external_id: 'user_3', last_name: 'Touched' }));
    kit.call(track, attributes({ email, home_city: 'Lyon' }));
    expect(kit.user('user_3').attributes['home_city']).toBe('Lyon');
    expect(kit.user('user_2').attributes['home_city']).toBeUndefined();
    kit.call(track, attributes({ platform_id: 'device_25', home_city: 'Kyoto' }));
    expect(kit.user('user_25').attributes['home_city']).toBe('Kyoto');
    const res = kit.call(track, attributes({ platform_id: 'unknown-device', home_city: 'X' }));
    expect((bodyOf(res)['errors'] as { type: string }[])[0]?.type).toMatch(/platform_id "unknown-device" is unknown/);
  });

  it('keeps identifying a user by a deprecated external id', () => {
    const kit = makeKit();
    kit.call(track, attributes({ external_id: 'legacy_user_40', home_city: 'Porto' }));
    expect(kit.user('user_40').attributes['home_city']).toBe('Porto');
  });
});

describe('POST /users/track — null deletes, identifiers cannot be deleted', () => {
  it('deletes an attribute set to null', () => {
    const kit = makeKit();
    expect(kit.user('user_1').attributes['loyalty_points']).toBeDefined();
    kit.call(track, attributes({ external_id: 'user_1', loyalty_points: null, first_name: null }));
    expect(kit.user('user_1').attributes).not.toHaveProperty('loyalty_points');
    expect(kit.user('user_1').attributes).not.toHaveProperty('first_name');
  });

  it('refuses to delete external_id or user_alias', () => {
    const kit = makeKit();
    const res = kit.call(
      track,
      attributes(
        { user_alias: { alias_name: 'crm_10', alias_label: 'crm_id' }, external_id: null },
        { external_id: 'user_10', user_alias: null },
      ),
    );
    const errors = bodyOf(res)['errors'] as { type: string; index: number }[];
    expect(errors.map((e) => e.index)).toEqual([0, 1]);
    expect(errors[0]?.type).toMatch(/external_id cannot be set to null/);
    expect(errors[1]?.type).toMatch(/user_alias cannot be set to null/);
    expect(kit.user('user_10').aliases).toHaveLength(1);
  });
});

describe('POST /users/track — custom attribute types', () => {
  it('increments integers with {"inc": n}, starting from 0 when absent, and refuses inc on a non-integer', () => {
    const kit = makeKit();
    const points = kit.user('user_1').attributes['loyalty_points'] as number;
    kit.call(track, attributes({ external_id: 'user_1', loyalty_points: { inc: 5 }, visits: { inc: -2 } }));
    expect(kit.user('user_1').attributes['loyalty_points']).toBe(points + 5);
    expect(kit.user('user_1').attributes['visits']).toBe(-2);
    const res = kit.call(
      track,
      attributes(
        { external_id: 'user_1', first_name: 'Ann' },
        { external_id: 'user_1', first_name: { inc: 1 } },
        { external_id: 'user_1', loyalty_points: { inc: 1.5 } },
      ),
    );
    expect((bodyOf(res)['errors'] as unknown[]).length).toBe(2);
  });

  it('sets arrays deduplicated, adds at the end (moving an existing element), and removes', () => {
    const kit = makeKit();
    kit.call(track, attributes({ external_id: 'user_1', tags: ['a', 'b', 'a', 'c'] }));
    expect(kit.user('user_1').attributes['tags']).toEqual(['a', 'b', 'c']);
    kit.call(track, attributes({ external_id: 'user_1', tags: { add: ['a', 'd'] } }));
    expect(kit.user('user_1').attributes['tags']).toEqual(['b', 'c', 'a', 'd']);
    kit.call(track, attributes({ external_id: 'user_1', tags: { remove: ['c', 'zz'] } }));
    expect(kit.user('user_1').attributes['tags']).toEqual(['b', 'a', 'd']);
  });

  it('keeps only the most recent 25 elements by default, and 100 for an attribute whose cap was raised', () => {
    const kit = makeKit();
    const thirty = Array.from({ length: 30 }, (_, i) => `v${i}`);
    kit.call(track, attributes({ external_id: 'user_1', tags: thirty }));
    expect(kit.user('user_1').attributes['tags']).toEqual(thirty.slice(5));
    kit.call(track, attributes({ external_id: 'user_1', tags: { add: ['new'] } }));
    expect((kit.user('user_1').attributes['tags'] as string[]).at(-1)).toBe('new');
    expect(kit.user('user_1').attributes['tags']).toHaveLength(25);
    const many = Array.from({ length: 120 }, (_, i) => `r${i}`);
    kit.call(track, attributes({ external_id: 'user_1', visited_restaurants: many }));
    expect(kit.user('user_1').attributes['visited_restaurants']).toEqual(many.slice(20));
  });

  it('refuses multi-dimensional arrays and unsupported objects', () => {
    const kit = makeKit();
    const res = kit.call(track, attributes({ external_id: 'user_1', grid: [[1, 2]], obj: { a: 1 } }));
    const errors = bodyOf(res)['errors'] as { type: string }[];
    expect(errors[0]?.type).toMatch(/multi-dimensional arrays are unsupported/);
    expect(errors[1]?.type).toMatch(/object values are not a custom attribute type/);
    expect(kit.user('user_1').attributes).not.toHaveProperty('grid');
  });

  it('stores dates from every accepted format as UTC instants, clamps the future to now, and keeps years over 3000 as strings', () => {
    const kit = makeKit();
    const cases: [string, string][] = [
      ['2024-03-01T10:00:00+02:00', '2024-03-01T08:00:00.000Z'],
      ['2024-03-01T10:00:00:250Z', '2024-03-01T10:00:00.250Z'],
      ['2024-03-01T10:00:00', '2024-03-01T10:00:00.000Z'],
      ['2024-03-01 10:00:00', '2024-03-01T10:00:00.000Z'],
      ['2024-03-01', '2024-03-01T00:00:00.000Z'],
      ['03/01/2024', '2024-03-01T00:00:00.000Z'],
      ['Fri 03 01 10:00:00.-05:00 2024', '2024-03-01T15:00:00.000Z'],
      ['2999-01-01T00:00:00Z', new Date(START).toISOString()],
      ['3001-01-01', '3001-01-01'],
    ];
    const obj: Record<string, unknown> = { external_id: 'user_1' };
    cases.forEach(([input], i) => (obj[`d${i}`] = input));
    kit.call(track, attributes(obj));
    cases.forEach(([, stored], i) => expect(kit.user('user_1').attributes[`d${i}`], cases[i]?.[0]).toBe(stored));
  });

  it('stores strings, floats and booleans as given', () => {
    const kit = makeKit();
    kit.call(track, attributes({ external_id: 'user_1', plan: 'gold', score: 4.5, beta: true }));
    expect(kit.user('user_1').attributes).toMatchObject({ plan: 'gold', score: 4.5, beta: true });
  });
});

describe('POST /users/track — standard fields', () => {
  it('maps countries to ISO alpha-2 best-effort and stores null for no match', () => {
    const kit = makeKit();
    const inputs: [string, string | null][] = [
      ['United States', 'US'],
      ['usa', 'US'],
      ['Deutschland', 'DE'],
      ['fr', 'FR'],
      ['Narnia', null],
    ];
    inputs.forEach(([input, code], i) => {
      kit.call(track, attributes({ external_id: `user_${i + 1}`, country: input }));
      expect(kit.user(`user_${i + 1}`).attributes['country'], input).toBe(code);
    });
  });

  it('maps languages to ISO-639-1 and stores null for no match', () => {
    const kit = makeKit();
    const inputs: [string, string | null][] = [
      ['English', 'en'],
      ['Deutsch', 'de'],
      ['pt', 'pt'],
      ['en-GB', 'en'],
      ['Klingon', null],
    ];
    inputs.forEach(([input, code], i) => {
      kit.call(track, attributes({ external_id: `user_${i + 1}`, language: input }));
      expect(kit.user(`user_${i + 1}`).attributes['language'], input).toBe(code);
    });
  });

  it('accepts only the allowed values of gender, email_subscribe, push_subscribe and dob', () => {
    const kit = makeKit();
    kit.call(
      track,
      attributes({
        external_id: 'user_1',
        gender: 'f',
        email_subscribe: 'opted_in',
        push_subscribe: 'unsubscribed',
        dob: '1990-02-28',
      }),
    );
    expect(kit.user('user_1').attributes).toMatchObject({
      gender: 'F',
      email_subscribe: 'opted_in',
      push_subscribe: 'unsubscribed',
      dob: '1990-02-28',
    });
    const res = kit.call(
      track,
      attributes({
        external_id: 'user_1',
        gender: 'male',
        email_subscribe: 'yes',
        push_subscribe: 1,
        dob: '28/02/1990',
      }),
    );
    expect(bodyOf(res)['errors']).toHaveLength(4);
    expect(kit.user('user_1').attributes).toMatchObject({
      gender: 'F',
      email_subscribe: 'opted_in',
      dob: '1990-02-28',
    });
  });

  it('stores only valid IANA time zones, silently dropping others', () => {
    const kit = makeKit();
    kit.call(track, attributes({ external_id: 'user_1', time_zone: 'Europe/Berlin' }));
    const res = kit.call(track, attributes({ external_id: 'user_1', time_zone: 'Mars/Olympus' }));
    expect(bodyOf(res)['errors']).toBeUndefined();
    expect(kit.user('user_1').attributes['time_zone']).toBe('Europe/Berlin');
  });

  it('checks object fields: current_location, facebook, twitter', () => {
    const kit = makeKit();
    kit.call(
      track,
      attributes({
        external_id: 'user_1',
        current_location: { longitude: 2.35, latitude: 48.85 },
        facebook: { id: 'fb1', likes: ['x'], num_friends: 3 },
        twitter: { id: 7, screen_name: 'u' },
      }),
    );
    expect(kit.user('user_1').attributes['current_location']).toEqual({ longitude: 2.35, latitude: 48.85 });
    const res = kit.call(
      track,
      attributes({ external_id: 'user_1', current_location: { lon: 1 }, twitter: { id: 'seven' } }),
    );
    expect(bodyOf(res)['errors']).toHaveLength(2);
  });

  it('moves subscription groups by entries and email/push channel state by value (spec 3)', () => {
    const kit = makeKit();
    kit.call(
      track,
      attributes({
        external_id: 'user_1',
        email_subscribe: 'unsubscribed',
        subscription_groups: [
          { subscription_group_id: 'sg_email_2', subscription_state: 'unsubscribed' },
          { subscription_group_id: 'sg_sms_1', subscription_state: 'subscribed' },
        ],
      }),
    );
    expect(kit.user('user_1').subscriptionGroups.get('sg_email_2')).toBe('unsubscribed');
    expect(kit.user('user_1').subscriptionGroups.get('sg_sms_1')).toBe('subscribed');
    expect(kit.user('user_1').attributes['email_subscribe']).toBe('unsubscribed');
    const res = kit.call(
      track,
      attributes({
        external_id: 'user_1',
        subscription_groups: [{ subscription_group_id: 'nope', subscription_state: 'subscribed' }],
      }),
    );
    expect((bodyOf(res)['errors'] as { type: string }[])[0]?.type).toMatch(/unknown subscription group "nope"/);
  });
});

describe('POST /users/track — push_token_import', () => {
  it('creates one temporary anonymous profile per new token, ignoring tokens that already exist', () => {
    const kit = makeKit();
    const before = kit.workspace.people.users.length;
    const res = kit.call(
      track,
      attributes({
        push_token_import: true,
        push_tokens: [
          { app_id: 'app_ios', token: 'tok_a' },
          { app_id: 'app_ios', token: 'tok_b', device_id: 'd_b' },
          { app_id: 'app_ios', token: 'seed_token_25' },
        ],
        push_subscribe: 'opted_in',
      }),
    );
    expect(res.status).toBe(201);
    expect(kit.workspace.people.users.length).toBe(before + 2);
    const a = findUserByPushToken(kit.workspace.people.users, 'tok_a');
    expect(a).toMatchObject({ externalId: null, pushTokenImport: true });
    expect(a?.pushTokens[0]?.device_id).toMatch(/^generated_device_/);
    expect(a?.attributes['push_subscribe']).toBe('opted_in');
    expect(findUserByPushToken(kit.workspace.people.users, 'seed_token_25')?.externalId).toBe('user_25');
  });

  it('refuses external_id or platform_id and an object without push tokens', () => {
    const kit = makeKit();
    const before = kit.workspace.people.users.length;
    const res = kit.call(
      track,
      attributes(
        { push_token_import: true, external_id: 'user_1', push_tokens: [{ app_id: 'a', token: 't1' }] },
        { push_token_import: true, platform_id: 'p', push_tokens: [{ app_id: 'a', token: 't2' }] },
        { push_token_import: true, first_name: 'NoTokens' },
      ),
    );
    expect(bodyOf(res)['attributes_processed']).toBe(0);
    expect((bodyOf(res)['errors'] as unknown[]).length).toBe(3);
    expect(kit.workspace.people.users.length).toBe(before);
  });
});
