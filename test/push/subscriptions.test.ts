import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PushFixture } from './push-test-helpers.js';
import { countRequests, pushFixture, pushed, query, sql, user } from './push-test-helpers.js';

let fx: PushFixture;
beforeEach(async () => {
  fx = await pushFixture();
});
afterEach(async () => {
  await fx.close();
});

describe('push subscriptions', () => {
  it('unsubscribes users from a group, and a second push of the same rows sends zero requests', async () => {
    await sql(fx, `CREATE TABLE churned AS SELECT 'user_' || i AS external_id FROM range(1, 61) t(i)`);
    const flags = {
      sql: `SELECT 'sg_email_1' AS subscription_group_id, 'unsubscribed' AS subscription_state, external_id FROM churned ORDER BY external_id`,
    };
    const first = await countRequests(fx, () => pushed(fx, 'subscriptions', flags));
    expect(first.result).toMatchObject({ status: 'succeeded', rowsRead: 60, rowsAccepted: 60 });
    expect(first.requests).toBe(2);
    for (const id of ['user_1', 'user_33', 'user_60'])
      expect(user(fx, id).subscriptionGroups.get('sg_email_1')).toBe('unsubscribed');

    const second = await countRequests(fx, () => pushed(fx, 'subscriptions', flags));
    expect(second.requests).toBe(0);
    expect(second.result).toMatchObject({ status: 'succeeded', rowsUnchanged: 60, rowsAccepted: 0 });
    const state = await query(
      fx,
      `SELECT count(*) AS n, min("status") AS s FROM "_push_state" WHERE "target" = 'subscriptions'`,
    );
    expect(state).toEqual([{ n: 60, s: 'accepted' }]);
  });

  it('1,000 rows make the minimum number of requests (20 of 50)', async () => {
    await sql(
      fx,
      `CREATE TABLE many AS SELECT 'sg_email_2' AS subscription_group_id, 'subscribed' AS subscription_state, 'someone' || i || '@example.org' AS email FROM range(1000) t(i)`,
    );
    const { result, requests } = await countRequests(fx, () => pushed(fx, 'subscriptions', { table: 'many' }));
    expect(result).toMatchObject({ rowsAccepted: 1000, status: 'succeeded' });
    expect(requests).toBe(20);
  });

  it('marks rows invalid before sending (no address, email in an SMS group, bad phone) and sends the valid ones', async () => {
    const summary = await pushed(fx, 'subscriptions', {
      sql: `SELECT * FROM (VALUES ('sg_sms_1', 'unsubscribed', 'user_1', NULL, NULL, NULL), ('sg_sms_1', 'unsubscribed', NULL, NULL, NULL, NULL),
              ('sg_sms_1', 'unsubscribed', NULL, 'a@example.com', NULL, 'sms'), ('sg_sms_2', 'subscribed', NULL, NULL, '555-1234', NULL))
            t(subscription_group_id, subscription_state, external_id, email, phone, channel)`,
    });
    expect(summary).toMatchObject({ status: 'partial', rowsAccepted: 1, rowsInvalid: 3 });
    expect(summary.failures.map((f) => [f.index, f.status])).toEqual([
      [1, 'invalid'],
      [2, 'invalid'],
      [3, 'invalid'],
    ]);
    expect(summary.failures[1]?.error).toMatch(/SMS group/);
    expect(summary.failures[2]?.error).toMatch(/E\.164/);
    expect(user(fx, 'user_1').subscriptionGroups.get('sg_sms_1')).toBe('unsubscribed');
  });

  it("rejects every row of an unknown group in one request, with the platform's reason", async () => {
    const { result, requests } = await countRequests(fx, () =>
      pushed(fx, 'subscriptions', {
        sql: `SELECT 'sg_nope' AS subscription_group_id, 'subscribed' AS subscription_state, 'user_' || i AS external_id FROM range(1, 4) t(i)`,
      }),
    );
    expect(requests).toBe(1);
    expect(result).toMatchObject({ status: 'partial', rowsRejected: 3 });
    expect(result.failures[0]?.error).toMatch(/Invalid subscription group ID/);
  });

  it('with --mirror unsubscribes a pair that left the query', async () => {
    await sql(fx, `CREATE TABLE members AS SELECT 'user_' || i AS external_id FROM range(1, 6) t(i)`);
    const flags = {
      sql: `SELECT 'sg_email_3' AS subscription_group_id, 'subscribed' AS subscription_state, external_id FROM members`,
      mirror: true,
    };
    await pushed(fx, 'subscriptions', flags);
    expect(user(fx, 'user_4').subscriptionGroups.get('sg_email_3')).toBe('subscribed');
    await sql(fx, `DELETE FROM members WHERE external_id = 'user_4'`);
    const { result, requests } = await countRequests(fx, () => pushed(fx, 'subscriptions', flags));
    expect(requests).toBe(1);
    expect(result.rowsAccepted).toBe(1);
    expect(user(fx, 'user_4').subscriptionGroups.get('sg_email_3')).toBe('unsubscribed');
    expect(user(fx, 'user_5').subscriptionGroups.get('sg_email_3')).toBe('subscribed');
    const log = await query(fx, `SELECT "row_key", "operation", "row_index" FROM "_push_log" WHERE "run_id" = $1`, [
      result.runId,
    ]);
    expect(log).toEqual([{ row_key: 'external_id:user_4', operation: 'unsubscribe', row_index: null }]);
  });
});
