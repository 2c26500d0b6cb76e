import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PushFixture } from './push-test-helpers.js';
import { push, pushFixture, pushed, sql, user } from './push-test-helpers.js';

let fx: PushFixture;
beforeEach(async () => {
  fx = await pushFixture();
});
afterEach(async () => {
  await fx.close();
});

describe('push sources', () => {
  it("reads rows from CSV, JSON and Parquet files with DuckDB's readers", async () => {
    const csv = join(fx.dir, 'rows.csv');
    await writeFile(csv, 'external_id,nickname\nuser_21,Zed\nuser_22,Yves\n');
    const json = join(fx.dir, 'rows.json');
    await writeFile(json, JSON.stringify([{ external_id: 'user_23', nickname: 'Xia' }]));
    const parquet = join(fx.dir, 'rows.parquet');
    await sql(fx, `COPY (SELECT 'user_24' AS external_id, 'Wim' AS nickname) TO '${parquet}' (FORMAT parquet)`);
    for (const file of [csv, json, parquet])
      expect((await pushed(fx, 'user-attributes', { file })).status).toBe('succeeded');
    expect(['user_21', 'user_22', 'user_23', 'user_24'].map((id) => user(fx, id).attributes['nickname'])).toEqual([
      'Zed',
      'Yves',
      'Xia',
      'Wim',
    ]);
  });

  it('refuses a missing table, a missing file, an unknown column and a query that does not parse, naming the flag', async () => {
    await expect(push(fx, 'user-attributes', { table: 'nope' })).rejects.toThrow(/--table: no table "nope"/);
    await expect(push(fx, 'user-attributes', { file: join(fx.dir, 'none.csv') })).rejects.toThrow(
      /--file: .*none\.csv does not exist/,
    );
    await expect(
      push(fx, 'email-suppressions', { sql: `SELECT 'a@b.co' AS email, 1 AS extra`, confirm: true }),
    ).rejects.toThrow(/--sql: email-suppressions does not know the column "extra"/);
    await expect(push(fx, 'subscriptions', { sql: 'SELEC nonsense' })).rejects.toThrow(
      /--sql: cannot be read: Parser Error/,
    );
  });

  it('refuses duplicate keys in the source on the later rows', async () => {
    const summary = await pushed(fx, 'email-suppressions', {
      sql: `SELECT * FROM (VALUES ('x@example.com'), ('X@example.com')) t(email)`,
      confirm: true,
    });
    expect(summary.failures).toEqual([
      expect.objectContaining({
        index: 1,
        status: 'invalid',
        error: expect.stringMatching(/duplicate of source row 0/),
      }),
    ]);
  });
});
