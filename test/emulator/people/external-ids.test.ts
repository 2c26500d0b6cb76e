import { describe, expect, it } from 'vitest';
import { findUserByExternalId } from '../../../src/emulator/people/users.js';
import {
  externalIdsRemoveRoute as remove,
  externalIdsRenameRoute as rename,
} from '../../../src/emulator/writes/external-id-routes.js';
import { bodyOf, makeKit } from './people-test-kit.js';

describe('POST /users/external_ids/rename', () => {
  it('makes the new id primary, deprecates the old one (both identify the user) and answers 201 with objects', () => {
    const kit = makeKit();
    const user = kit.user('user_1');
    const res = kit.call(rename, {
      external_id_renames: [{ current_external_id: 'user_1', new_external_id: 'customer_1' }],
    });
    expect(res).toEqual({
      status: 201,
      body: {
        message: 'success',
        external_ids: [{ current_external_id: 'user_1', new_external_id: 'customer_1' }],
        rename_errors: [],
      },
    });
    expect(user.externalId).toBe('customer_1');
    expect(findUserByExternalId(kit.workspace.people.users, 'user_1')).toBe(user);
    expect(findUserByExternalId(kit.workspace.people.users, 'customer_1')).toBe(user);
  });

  it('puts each per-object problem in rename_errors as [index, message] and applies the valid objects', () => {
    const kit = makeKit();
    const res = kit.call(rename, {
      external_id_renames: [
        { current_external_id: 'legacy_user_20', new_external_id: 'x1' },
        { current_external_id: 'user_2', new_external_id: 'user_3' },
        { current_external_id: 'user_2', new_external_id: 'legacy_user_40' },
        { current_external_id: 'user_4', new_external_id: 'user_4' },
        { current_external_id: 'nobody', new_external_id: 'x2' },
        { current_external_id: 'user_5' },
        { current_external_id: 'user_6', new_external_id: 'six' },
      ],
    });
    const body = bodyOf(res);
    expect(res.status).toBe(201);
    expect(body['message']).toBe('success');
    expect(body['external_ids']).toEqual([{ current_external_id: 'user_6', new_external_id: 'six' }]);
    const errors = body['rename_errors'] as [number, string][];
    expect(errors.map(([i]) => i)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(errors[0]?.[1]).toMatch(/is a deprecated id; rename the primary id "user_20"/);
    expect(errors[1]?.[1]).toMatch(/already used as a primary or deprecated/);
    expect(errors[2]?.[1]).toMatch(/already used as a primary or deprecated/);
    expect(errors[3]?.[1]).toMatch(/must differ/);
    expect(errors[4]?.[1]).toMatch(/identifies no user/);
    expect(kit.user('user_2').externalId).toBe('user_2');
  });

  it('answers 400 with a message for an empty list, more than 50 objects, or a missing list', () => {
    const kit = makeKit();
    expect(bodyOf(kit.call(rename, { external_id_renames: [] }))['message']).toMatch(/empty/);
    const many = Array.from({ length: 51 }, (_, i) => ({
      current_external_id: `user_${i + 1}`,
      new_external_id: `n_${i}`,
    }));
    const res = kit.call(rename, { external_id_renames: many });
    expect(res.status).toBe(400);
    expect(bodyOf(res)['message']).toMatch(/51 entries, more than the 50/);
    expect(kit.user('user_1').externalId).toBe('user_1');
    expect(kit.call(rename, {}).status).toBe(400);
  });
});

describe('POST /users/external_ids/remove', () => {
  it('removes deprecated ids, after which they identify nobody, and answers 201', () => {
    const kit = makeKit();
    const res = kit.call(remove, { external_ids: ['legacy_user_20'] });
    expect(res).toEqual({
      status: 201,
      body: { message: 'success', removed_ids: ['legacy_user_20'], removal_errors: [] },
    });
    expect(findUserByExternalId(kit.workspace.people.users, 'legacy_user_20')).toBeUndefined();
    expect(kit.user('user_20').deprecatedExternalIds).toEqual([]);
  });

  it('refuses primary and unknown ids per index, and removes an id deprecated by a rename', () => {
    const kit = makeKit();
    kit.call(rename, { external_id_renames: [{ current_external_id: 'user_8', new_external_id: 'eight' }] });
    const res = kit.call(remove, { external_ids: ['user_1', 'unknown', 42, 'user_8'] });
    const body = bodyOf(res);
    expect(body['removed_ids']).toEqual(['user_8']);
    const errors = body['removal_errors'] as [number, string][];
    expect(errors.map(([i]) => i)).toEqual([0, 1, 2]);
    expect(errors[0]?.[1]).toMatch(/is a primary external id/);
    expect(kit.user('user_1').externalId).toBe('user_1');
  });

  it('answers 400 with a message for an empty list or more than 50 ids', () => {
    const kit = makeKit();
    expect(kit.call(remove, { external_ids: [] }).status).toBe(400);
    expect(
      bodyOf(kit.call(remove, { external_ids: Array.from({ length: 51 }, (_, i) => `legacy_${i}`) }))['message'],
    ).toMatch(/more than the 50/);
  });
});
