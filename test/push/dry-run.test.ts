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
    await sql(fx, `CREATE TABLE subs AS SELECT 'sg_email_1' AS subscription_group_id, CASE WHEN i < 60 THEN 'subscribed' ELSE 'unsubscribed' END AS subscription_state,
                     'user_' || i AS external_id FROM range(1, 101) t(i)`);
    const { result, requests } = await countRequests(fx, () => push(fx, 'subscriptions', { table: 'subs', dryRun: true }));
    expect(requests).toBe(0);
    if (result.kind !== 'dry-run') throw new Error('expected a dry run');
    const report = result.report;
    expect(report).toMatchObject({ rowsRead: 100, rowsToSend: 100, requests: 3, rowsUnchanged: 0 });
    expect(report.endpoints).toEqual([
      expect.objectContaining({ endpoint: 'POST /subscription/status/set', pool: 'subscription', rows: 100, requests: 3, operations: { set: 59, unsubscribe: 41 } }),
    ]);
    expect(report.endpoints[0]?.sample.body).toEqual({ subscription_group_id: 'sg_email_1', subscription_state: 'subscribed', external_id: ['user_1', 'user_2', 'user_3', '… 47 more'] });
    expect(report.etaSeconds).toBe(0.3);
    expect(await query(fx, `SELECT count(*) AS n FROM "_push_state"`)).toEqual([{ n: 0 }]);
    expect(await query(fx, `SELECT count(*) AS n FROM "_push_runs"`)).toEqual([{ n: 0 }]);
  });

  it('shows only what changed since the last push, and says when --max-rows would refuse it; no --confirm needed', async () => {
    await sql(fx, `CREATE TABLE gone AS SELECT 'bounce' || i || '@example.net' AS email FROM range(30) t(i)`);
    await pushed(fx, 'email-suppressions', { table: 'gone', confirm: true });
    await sql(fx, `INSERT INTO gone SELECT 'late' || i || '@example.net' FROM range(12) t(i)`);
    const result = await push(fx, 'email-suppressions', { table: 'gone', dryRun: true, maxRows: '10' });
    if (result.kind !== 'dry-run') throw new Error('expected a dry run');
    expect(result.report).toMatchObject({ rowsToSend: 12, rowsUnchanged: 30, requests: 1, refusal: expect.stringMatching(/12 rows would be sent, more than --max-rows 10/) });
    expect(result.report.endpoints[0]?.operations).toEqual({ delete: 12 });
  });

  it('estimates the wait the limit pools impose: 120 preference-center updates at 10/min take 11 minutes', async () => {
    await sql(fx, `CREATE TABLE pcs AS SELECT 'pc_' || i AS preference_center_id, '<p>x</p>' AS preference_center_page_html, '<p>y</p>' AS confirmation_page_html FROM range(120) t(i)`);
    const result = await push(fx, 'preference-center', { table: 'pcs', dryRun: true });
    if (result.kind !== 'dry-run') throw new Error('expected a dry run');
    expect(result.report.requests).toBe(120);
    expect(result.report.etaSeconds).toBe(11 * 60 + 12);
  });
});
