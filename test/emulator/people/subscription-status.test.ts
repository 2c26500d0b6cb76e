import { describe, expect, it } from 'vitest';
import {
  subscriptionStatusSetRoute as v1,
  subscriptionStatusSetV2Route as v2,
} from '../../../src/emulator/writes/subscription-status-routes.js';
import { SHARED_EMAIL_PAIRS } from '../../../src/emulator/people/users.js';
import { bodyOf, makeKit } from './people-test-kit.js';

describe('POST /subscription/status/set', () => {
  it('subscribes users addressed by external id and answers 201 success', () => {
    const kit = makeKit();
    kit.user('user_1').subscriptionGroups.delete('sg_email_1');
    const res = kit.call(v1, {
      subscription_group_id: 'sg_email_1',
      subscription_state: 'subscribed',
      external_id: ['user_1', 'user_2'],
    });
    expect(res).toEqual({ status: 201, body: { message: 'success' } });
    expect(kit.user('user_1').subscriptionGroups.get('sg_email_1')).toBe('subscribed');
    expect(kit.user('user_2').subscriptionGroups.get('sg_email_1')).toBe('subscribed');
  });

  it('accepts a lone external id string as the recorded client sends it, and finds users by a deprecated id', () => {
    const kit = makeKit();
    expect(
      kit.call(v1, {
        subscription_group_id: 'sg_email_2',
        subscription_state: 'unsubscribed',
        external_id: 'legacy_user_20',
      }).status,
    ).toBe(201);
    expect(kit.user('user_20').subscriptionGroups.get('sg_email_2')).toBe('unsubscribed');
  });

  it('updates every user sharing an addressed email address', () => {
    const kit = makeKit();
    const [a, b] = SHARED_EMAIL_PAIRS[0] ?? [0, 0];
    const email = String(kit.user(`user_${a}`).attributes['email']);
    for (const n of [a, b]) kit.user(`user_${n}`).subscriptionGroups.set('sg_email_3', 'subscribed');
    expect(
      kit.call(v1, {
        subscription_group_id: 'sg_email_3',
        subscription_state: 'unsubscribed',
        email: email.toUpperCase(),
      }).status,
    ).toBe(201);
    expect(kit.user(`user_${a}`).subscriptionGroups.get('sg_email_3')).toBe('unsubscribed');
    expect(kit.user(`user_${b}`).subscriptionGroups.get('sg_email_3')).toBe('unsubscribed');
  });

  it('addresses SMS groups by phone, and refuses an email for an SMS group with 400', () => {
    const kit = makeKit();
    const phone = String(kit.user('user_1').attributes['phone']);
    expect(
      kit.call(v1, { subscription_group_id: 'sg_sms_1', subscription_state: 'unsubscribed', phone: [phone] }).status,
    ).toBe(201);
    expect(kit.user('user_1').subscriptionGroups.get('sg_sms_1')).toBe('unsubscribed');
    const res = kit.call(v1, {
      subscription_group_id: 'sg_sms_1',
      subscription_state: 'subscribed',
      email: ['a@example.com'],
    });
    expect(res.status).toBe(400);
    expect(bodyOf(res)['message']).toMatch(/cannot address SMS subscription group sg_sms_1/);
  });

  it('refuses a phone for an email group and a phone that is not E.164', () => {
    const kit = makeKit();
    expect(
      kit.call(v1, { subscription_group_id: 'sg_email_1', subscription_state: 'subscribed', phone: ['+15550000000'] })
        .status,
    ).toBe(400);
    const res = kit.call(v1, {
      subscription_group_id: 'sg_sms_1',
      subscription_state: 'subscribed',
      phone: ['555-1234'],
    });
    expect(bodyOf(res)['message']).toMatch(/"555-1234" is not an E.164 phone number/);
  });

  it('answers the recorded 400 "Invalid subscription group ID" for an unknown group', () => {
    const kit = makeKit();
    const res = kit.call(v1, {
      subscription_group_id: 'non-existing-subscription-group',
      subscription_state: 'subscribed',
      external_id: 'user_1',
    });
    expect(res).toEqual({ status: 400, body: { message: 'Invalid subscription group ID' } });
  });

  it('refuses more than 50 ids, a bad state, a missing group and a request addressing nobody, changing nothing', () => {
    const kit = makeKit();
    const before = kit.user('user_1').subscriptionGroups.get('sg_email_1');
    const ids = Array.from({ length: 51 }, (_, i) => `user_${i + 1}`);
    const tooMany = kit.call(v1, {
      subscription_group_id: 'sg_email_1',
      subscription_state: before === 'subscribed' ? 'unsubscribed' : 'subscribed',
      external_id: ids,
    });
    expect(tooMany.status).toBe(400);
    expect(bodyOf(tooMany)['message']).toMatch(/51 values, more than the 50 allowed/);
    expect(kit.user('user_1').subscriptionGroups.get('sg_email_1')).toBe(before);
    expect(
      kit.call(v1, { subscription_group_id: 'sg_email_1', subscription_state: 'opted_in', external_id: ['user_1'] })
        .status,
    ).toBe(400);
    expect(kit.call(v1, { subscription_state: 'subscribed', external_id: ['user_1'] }).status).toBe(400);
    expect(
      bodyOf(kit.call(v1, { subscription_group_id: 'sg_email_1', subscription_state: 'subscribed' }))['message'],
    ).toMatch(/no user addressed/);
    expect(kit.call(v1, [1, 2]).status).toBe(400);
  });

  it('ignores unknown external ids while applying the known ones', () => {
    const kit = makeKit();
    const count = kit.workspace.people.users.length;
    expect(
      kit.call(v1, {
        subscription_group_id: 'sg_email_1',
        subscription_state: 'unsubscribed',
        external_id: ['nobody', 'user_5'],
      }).status,
    ).toBe(201);
    expect(kit.user('user_5').subscriptionGroups.get('sg_email_1')).toBe('unsubscribed');
    expect(kit.workspace.people.users.length).toBe(count);
  });
});

describe('POST /v2/subscription/status/set', () => {
  it('applies every entry of subscription_groups, with singular or plural id keys', () => {
    const kit = makeKit();
    const phone = String(kit.user('user_3').attributes['phone']);
    const res = kit.call(v2, {
      subscription_groups: [
        { subscription_group_id: 'sg_email_1', subscription_state: 'unsubscribed', external_id: 'user_1' },
        { subscription_group_id: 'sg_sms_2', subscription_state: 'subscribed', phones: [phone] },
      ],
    });
    expect(res).toEqual({ status: 201, body: { message: 'success' } });
    expect(kit.user('user_1').subscriptionGroups.get('sg_email_1')).toBe('unsubscribed');
    expect(kit.user('user_3').subscriptionGroups.get('sg_sms_2')).toBe('subscribed');
  });

  it('changes nothing when one entry is invalid, and names the entry', () => {
    const kit = makeKit();
    kit.user('user_1').subscriptionGroups.set('sg_email_1', 'subscribed');
    const res = kit.call(v2, {
      subscription_groups: [
        { subscription_group_id: 'sg_email_1', subscription_state: 'unsubscribed', external_ids: ['user_1'] },
        { subscription_group_id: 'sg_sms_1', subscription_state: 'subscribed', emails: ['x@example.com'] },
      ],
    });
    expect(res.status).toBe(400);
    expect(bodyOf(res)['message']).toMatch(/^subscription_groups\[1\]\.emails cannot address SMS/);
    expect(kit.user('user_1').subscriptionGroups.get('sg_email_1')).toBe('subscribed');
  });

  it('answers "Invalid subscription group ID" for an unknown group and accepts a v1-shaped body', () => {
    const kit = makeKit();
    expect(
      kit.call(v2, {
        subscription_groups: [
          { subscription_group_id: 'nope', subscription_state: 'subscribed', external_id: 'user_1' },
        ],
      }),
    ).toEqual({ status: 400, body: { message: 'Invalid subscription group ID' } });
    expect(
      kit.call(v2, { subscription_group_id: 'sg_email_2', subscription_state: 'subscribed', external_id: ['user_9'] })
        .status,
    ).toBe(201);
    expect(kit.user('user_9').subscriptionGroups.get('sg_email_2')).toBe('subscribed');
  });
});
