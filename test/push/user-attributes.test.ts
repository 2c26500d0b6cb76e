import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PushFixture } from './push-test-helpers.js';
import { countRequests, pushFixture, pushed, query, recordingFetch, sql, user } from './push-test-helpers.js';

let fx: PushFixture;
beforeEach(async () => {
  fx = await pushFixture();
  await sql(
    fx,
    `CREATE TABLE crm AS SELECT 'user_' || i AS external_id, 'Name' || i AS first_name, 'gold' AS tier, i * 10 AS loyalty_points,
       ['italian', 'thai'] AS favorite_cuisines FROM range(1, 4) t(i)`,
  );
});
afterEach(async () => {
  await fx.close();
});

const FLAGS = { table: 'crm', inc: 'loyalty_points' };

describe('push user-attributes', () => {
  it('sets attributes, then a second push of the same rows sends zero requests', async () => {
    const first = await countRequests(fx, () => pushed(fx, 'user-attributes', FLAGS));
    expect(first.result).toMatchObject({ status: 'succeeded', rowsAccepted: 3 });
    expect(first.requests).toBe(1);
    const u2 = user(fx, 'user_2').attributes;
    expect(u2).toMatchObject({ first_name: 'Name2', tier: 'gold', favorite_cuisines: ['italian', 'thai'] });
    const second = await countRequests(fx, () => pushed(fx, 'user-attributes', FLAGS));
    expect(second.requests).toBe(0);
    expect(second.result.rowsUnchanged).toBe(3);
  });

  it('changing one attribute of one user sends exactly that attribute', async () => {
    await pushed(fx, 'user-attributes', FLAGS);
    await sql(fx, `UPDATE crm SET tier = 'platinum' WHERE external_id = 'user_2'`);
    const rec = recordingFetch();
    const summary = await pushed(fx, 'user-attributes', FLAGS, { client: { fetch: rec.fetch } });
    expect(summary).toMatchObject({ rowsAccepted: 1, rowsUnchanged: 2 });
    expect(rec.sent.map((r) => r.body)).toEqual([{ attributes: [{ external_id: 'user_2', tier: 'platinum' }] }]);
    expect(user(fx, 'user_2').attributes['tier']).toBe('platinum');
  });

  it('sends null for a column that became NULL, add/remove for a changed list, and the increase of an --inc total', async () => {
    const before = user(fx, 'user_1').attributes['loyalty_points'];
    await pushed(fx, 'user-attributes', FLAGS);
    await sql(
      fx,
      `UPDATE crm SET tier = NULL, favorite_cuisines = ['thai', 'vegan'], loyalty_points = loyalty_points + 5 WHERE external_id = 'user_1'`,
    );
    const rec = recordingFetch();
    await pushed(fx, 'user-attributes', FLAGS, { client: { fetch: rec.fetch } });
    expect(rec.sent[0]?.body).toEqual({
      attributes: [
        {
          external_id: 'user_1',
          tier: null,
          favorite_cuisines: { add: ['vegan'], remove: ['italian'] },
          loyalty_points: { inc: 5 },
        },
      ],
    });
    const attrs = user(fx, 'user_1').attributes;
    expect(attrs['tier']).toBeUndefined();
    expect(attrs['favorite_cuisines']).toEqual(['thai', 'vegan']);
    // The first push added the whole total (10) to what the user had; the second only the increase.
    expect(attrs['loyalty_points']).toBe((before as number) + 15);
  });

  it('maps per-index errors of the answer to the right rows', async () => {
    await sql(
      fx,
      `CREATE TABLE people AS SELECT * FROM (VALUES ('user_5', 'F'), ('user_6', 'Z'), ('user_7', 'M'), ('user_8', 'banana')) t(external_id, gender)`,
    );
    const summary = await pushed(fx, 'user-attributes', { table: 'people' });
    expect(summary).toMatchObject({ status: 'partial', rowsAccepted: 2, rowsRejected: 2 });
    expect(summary.failures.map((f) => [f.index, f.key, f.status])).toEqual([
      [1, 'external_id:user_6', 'rejected'],
      [3, 'external_id:user_8', 'rejected'],
    ]);
    expect(summary.failures[0]?.error).toMatch(/gender/);
    expect(user(fx, 'user_5').attributes['gender']).toBe('F');
    // Rejected rows are retried only after their data changes.
    const again = await countRequests(fx, () => pushed(fx, 'user-attributes', { table: 'people' }));
    expect(again.requests).toBe(0);
    expect(again.result).toMatchObject({ status: 'partial', rowsStillRefused: 2 });
    await sql(fx, `UPDATE people SET gender = 'O' WHERE external_id = 'user_6'`);
    const fixed = await countRequests(fx, () => pushed(fx, 'user-attributes', { table: 'people' }));
    expect(fixed.requests).toBe(1);
    expect(fixed.result).toMatchObject({ rowsAccepted: 1, rowsStillRefused: 1 });
    expect(user(fx, 'user_6').attributes['gender']).toBe('O');
    const state = await query(
      fx,
      `SELECT "row_key", "status", "attempts" FROM "_push_state" WHERE "target" = 'user-attributes' ORDER BY 1`,
    );
    expect(state).toEqual([
      { row_key: 'external_id:user_5', status: 'accepted', attempts: 1 },
      { row_key: 'external_id:user_6', status: 'accepted', attempts: 2 },
      { row_key: 'external_id:user_7', status: 'accepted', attempts: 1 },
      { row_key: 'external_id:user_8', status: 'rejected', attempts: 1 },
    ]);
  });

  it('1,000 rows make the minimum number of requests (14 of 75), with X-Braze-Bulk: true', async () => {
    await sql(fx, `CREATE TABLE bulk AS SELECT 'new_user_' || i AS external_id, i AS score FROM range(1000) t(i)`);
    const rec = recordingFetch();
    const summary = await pushed(fx, 'user-attributes', { table: 'bulk' }, { client: { fetch: rec.fetch } });
    expect(summary).toMatchObject({ rowsAccepted: 1000, requests: 14 });
    expect(rec.sent.every((r) => r.headers['X-Braze-Bulk'] === 'true')).toBe(true);
    expect(rec.sent.map((r) => r.body.attributes.length)).toEqual([...Array(13).fill(75), 25]);
    const fifty = await countRequests(fx, async () => {
      await sql(fx, `UPDATE bulk SET score = score + 1`);
      return pushed(fx, 'user-attributes', { table: 'bulk', batchSize: '50' });
    });
    expect(fifty.requests).toBe(20);
  });

  it('a change of mapping resets the ledger: every row is sent again', async () => {
    await pushed(fx, 'user-attributes', FLAGS);
    const { requests, result } = await countRequests(fx, () =>
      pushed(fx, 'user-attributes', { sql: 'SELECT external_id, first_name, tier FROM crm' }),
    );
    expect(requests).toBe(1);
    expect(result.rowsAccepted).toBe(3);
  });
});
