import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PushFixture } from './push-test-helpers.js';
import { countRequests, push, pushFixture, pushed, query, sql } from './push-test-helpers.js';

let fx: PushFixture;
beforeEach(async () => {
  fx = await pushFixture();
});
afterEach(async () => {
  await fx.close();
});

describe('push --dry-run', () => {
  it('counts rows per endpoint and operation, shows a sample body, request count and ETA, and sends and writes nothing', async () => {
    await sql(
      fx,
      `CREATE TABLE subs AS SELECT 'sg_email_1' AS subscription_group_id, CASE WHEN i < 60 THEN 'subscribed' ELSE 'unsubscribed' END AS subscription_state,
                     'user_' || i AS external_id FROM range(1, 101) t(i)`,
    );
    const { result, requests } = await countRequests(fx, () =>
      push(fx, 'subscriptions', { table: 'subs', dryRun: true }),
    );
    expect(requests).toBe(0);
    if (result.kind !== 'dry-run') throw new Error('expected a dry run');
    const report = result.report;
    expect(report).toMatchObject({ rowsRead: 100, rowsToSend: 100, requests: 3, rowsUnchanged: 0 });
    expect(report.endpoints).toEqual([
      expect.objectContaining({
        endpoint: 'POST /subscription/status/set',
        pool: 'subscription',
        rows: 100,
        requests: 3,
        operations: { set: 59, unsubscribe: 41 },
      }),
    ]);
    expect(report.endpoints[0]?.sample.body).toEqual({
      subscription_group_id: 'sg_email_1',
      subscription_state: 'subscribed',
      external_id: ['user_1', 'user_2', 'user_3', '… 47 more'],
    });
    expect(report.etaSeconds).toBe(0.3);
    expect(await query(fx, `SELECT count(*) AS n FROM "_push_state"`)).toEqual([{ n: 0 }]);
    expect(await query(fx, `SELECT count(*) AS n FROM "_push_runs"`)).toEqual([{ n: 0 }]);
  });

  it('refuses --sql holding a second statement, or a statement that is not a SELECT, before running anything: the table survives', async () => {
    await sql(fx, `CREATE TABLE crm_users AS SELECT 'user_' || i AS external_id, 'gold' AS tier FROM range(5) t(i)`);
    const attempts: [string, RegExp][] = [
      [
        `SELECT external_id, tier FROM crm_users; DROP TABLE crm_users`,
        /--sql: holds 2 statements; give exactly one SELECT .* nothing was run/,
      ],
      [
        `SELECT external_id, tier FROM crm_users) ; DROP TABLE crm_users; SELECT * FROM (SELECT external_id, tier FROM crm_users`,
        /--sql: cannot be read: Parser Error/,
      ],
      [`DROP TABLE crm_users`, /--sql: is a DROP statement; only a read-only SELECT .* nothing was run/],
      [`INSERT INTO crm_users VALUES ('intruder', 'none')`, /--sql: is a INSERT statement/],
    ];
    for (const [text, refusal] of attempts) {
      for (const dryRun of [true, false]) {
        const { result, requests } = await countRequests(fx, () =>
          push(fx, 'user-attributes', { sql: text, dryRun }).catch((err: Error) => err),
        );
        expect(result).toBeInstanceOf(Error);
        expect((result as Error).message).toMatch(refusal);
        expect(requests).toBe(0);
      }
    }
    expect(await query(fx, `SELECT count(*) AS n FROM crm_users`)).toEqual([{ n: 5 }]);
    expect(await query(fx, `SELECT count(*) AS n FROM "_push_runs"`)).toEqual([{ n: 0 }]);
  });

  it('runs the --sql query once: a query that advances a sequence per row read advances it once per row', async () => {
    await sql(
      fx,
      `CREATE SEQUENCE reads START 1`,
      `CREATE TABLE crm_users AS SELECT 'user_' || i AS external_id, 'gold' AS tier FROM range(1, 4) t(i)`,
    );
    const summary = await pushed(fx, 'user-attributes', {
      sql: `SELECT external_id, tier FROM crm_users WHERE nextval('reads') > 0`,
    });
    expect(summary.rowsAccepted).toBe(3);
    // Three rows read once leave the sequence below 6 in the database the push published; read twice, at 6 or more.
    const [row] = await query(fx, `SELECT currval('reads') AS n`);
    expect(Number(row?.['n'])).toBeGreaterThanOrEqual(3);
    expect(Number(row?.['n'])).toBeLessThan(6);
  });

  it('shows only what changed since the last push, and says when --max-rows would refuse it; no --confirm needed', async () => {
    await sql(fx, `CREATE TABLE gone AS SELECT 'bounce' || i || '@example.net' AS email FROM range(30) t(i)`);
    await pushed(fx, 'email-suppressions', { table: 'gone', confirm: true });
    await sql(fx, `INSERT INTO gone SELECT 'late' || i || '@example.net' FROM range(12) t(i)`);
    const result = await push(fx, 'email-suppressions', { table: 'gone', dryRun: true, maxRows: '10' });
    if (result.kind !== 'dry-run') throw new Error('expected a dry run');
    expect(result.report).toMatchObject({
      rowsToSend: 12,
      rowsUnchanged: 30,
      requests: 1,
      refusal: expect.stringMatching(/12 rows would be sent, more than --max-rows 10/),
    });
    expect(result.report.endpoints[0]?.operations).toEqual({ delete: 12 });
  });

  it('estimates the wait the limit pools impose: 120 preference-center updates at 10/min take 11 minutes', async () => {
    await sql(
      fx,
      `CREATE TABLE pcs AS SELECT 'pc_' || i AS preference_center_id, '<p>x</p>' AS preference_center_page_html, '<p>y</p>' AS confirmation_page_html FROM range(120) t(i)`,
    );
    const result = await push(fx, 'preference-center', { table: 'pcs', dryRun: true });
    if (result.kind !== 'dry-run') throw new Error('expected a dry run');
    expect(result.report.requests).toBe(120);
    // As `plan` estimates it: 120 requests need 12 budgets of 10, so they are spread at the pool's rate, one every 6 s.
    expect(result.report.etaSeconds).toBe(714.1); // 119 × 6 + one round trip of 0.1
  });
});
