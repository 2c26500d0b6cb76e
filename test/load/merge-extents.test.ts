// The merge's extents (bulk-merge.ts): rows outside their object's stored time range are inserted without comparing,
// rows inside it are compared; nothing is doubled or lost, whatever order batches come in, across a reopen, a new
// process, rows written behind the loader's back, and a reset.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { SeriesStateStore } from '../../src/load/series-state-store.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import type { ColumnSpec } from '../../src/load/table-definition.js';
import { tempDir, utc } from './warehouse-helpers.js';

let dir: string;
let cleanup: () => Promise<void>;
let wh: Warehouse;
let path: string;

beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  path = join(dir, 'warehouse.duckdb');
  wh = await Warehouse.open(path, WAREHOUSE_TABLES);
});

afterEach(async () => {
  await wh.close();
  await cleanup();
});

type Row = { campaign_id: string; time: Date; unique_recipients: number };
const day = (n: number): Date => new Date(Date.UTC(2024, 0, 1 + n));
const row = (campaign: string, n: number, value: number): Row => ({
  campaign_id: campaign,
  time: day(n),
  unique_recipients: value,
});
let runs = 0;
const commit = (rows: Row[]) =>
  wh.commit({
    runId: `r${++runs}`,
    loadedAt: utc('2024-06-01'),
    upserts: [{ table: 'campaign_series', rows }],
    state: [],
  });
const stored = async (): Promise<string[]> =>
  (
    await wh.query(
      `SELECT "campaign_id", strftime("time", '%Y-%m-%d') AS d, "unique_recipients" AS v FROM "campaign_series" ORDER BY 1, 2`,
    )
  ).map((r) => `${r.campaign_id} ${r.d} ${r.v}`);
/** Each object's ranges, merged per month (a merge appends one per object and month it inserted into). */
const extents = async (): Promise<string[]> =>
  (
    await wh.query(`SELECT "object_key", strftime(min("first_time"), '%Y-%m-%d') AS a, strftime(max("last_time"), '%Y-%m-%d') AS b
    FROM "_etl_extents"."campaign_series" GROUP BY "object_key", "month" ORDER BY 1, 2`)
  ).map((r) => `${r.object_key} ${r.a}..${r.b}`);
const extentRows = async (): Promise<number> =>
  Number((await wh.query(`SELECT count(*) AS n FROM "_etl_extents"."campaign_series"`))[0]?.n);

describe('merge extents', () => {
  it('inserts rows past their object extent without comparing, compares those inside it, and widens the extent', async () => {
    const first = await commit([row('a', 10, 1), row('a', 11, 1), row('b', 0, 1)]);
    expect(first.rowsCompared).toBe(0); // an empty table: no extents, nothing compared
    expect(first.appended).toEqual(['campaign_series']); // nothing to meet: appended without a merge
    expect(await extents()).toEqual(['a 2024-01-11..2024-01-12', 'b 2024-01-01..2024-01-01']);

    // Later and earlier windows of a (and a new object c): outside every extent.
    const outside = await commit([row('a', 12, 2), row('a', 9, 2), row('c', 11, 2)]);
    expect(outside.rowsCompared).toBe(0);
    expect(outside.appended).toEqual(['campaign_series']);
    expect(outside.tables.campaign_series).toEqual({ inserted: 3, updated: 0, unchanged: 0, deleted: 0 });
    expect(await extents()).toEqual([
      'a 2024-01-10..2024-01-13',
      'b 2024-01-01..2024-01-01',
      'c 2024-01-12..2024-01-12',
    ]);

    // A re-read of a's stored days, one changed, and a day b never had inside no extent of b (b's is one day).
    const reread = await commit([row('a', 10, 1), row('a', 11, 5), row('b', 0, 1), row('b', 1, 7)]);
    expect(reread.rowsCompared).toBe(3);
    expect(reread.appended).toEqual([]); // rows inside an extent take the comparing merge
    expect(reread.tables.campaign_series).toEqual({ inserted: 1, updated: 1, unchanged: 2, deleted: 0 });
    expect(await stored()).toEqual([
      'a 2024-01-10 2',
      'a 2024-01-11 1',
      'a 2024-01-12 5',
      'a 2024-01-13 2',
      'b 2024-01-01 1',
      'b 2024-01-02 7',
      'c 2024-01-12 2',
    ]);
  });

  it('keeps an extent per month: windows committed out of order compare only inside a month they share', async () => {
    // Three windows of one object, the middle one last (requests in flight finish in any order).
    await commit([row('a', 0, 1), row('a', 20, 1)]); // Jan 1 .. Jan 21
    await commit([row('a', 60, 1), row('a', 80, 1)]); // Mar 1 .. Mar 21
    const middle = await commit([row('a', 25, 2), row('a', 40, 2), row('a', 55, 2)]); // Jan 26, Feb 10, Feb 25
    expect(middle.rowsCompared).toBe(0);
    expect(await extents()).toEqual([
      'a 2024-01-01..2024-01-26',
      'a 2024-02-10..2024-02-25',
      'a 2024-03-01..2024-03-21',
    ]);
    const gap = await commit([row('a', 10, 3), row('a', 50, 3)]); // Jan 11 and Feb 20: inside their months' extents
    expect(gap.rowsCompared).toBe(2);
    expect(gap.tables.campaign_series?.inserted).toBe(2);
  });

  it('compares a new key inside an extent (a gap filled later) and inserts it once', async () => {
    await commit([row('a', 0, 1), row('a', 5, 1)]);
    const gap = await commit([row('a', 2, 3), row('a', 2, 4)]); // a duplicate key in one batch: the last wins
    expect(gap.rowsCompared).toBe(1);
    expect(gap.tables.campaign_series?.inserted).toBe(1);
    await commit([row('a', 2, 4)]);
    expect(await stored()).toEqual(['a 2024-01-01 1', 'a 2024-01-03 4', 'a 2024-01-06 1']);
  });

  it('merges, not appends, new rows that repeat a key within one batch: the last fetched is stored once', async () => {
    const twice = await commit([row('a', 0, 1), row('a', 1, 1), row('a', 0, 2)]);
    expect(twice.appended).toEqual([]);
    expect(twice.tables.campaign_series).toEqual({ inserted: 2, updated: 0, unchanged: 0, deleted: 0 });
    expect(await stored()).toEqual(['a 2024-01-01 2', 'a 2024-01-02 1']);
  });

  it('rebuilds the extents in a new process: rows written behind the loader, and extents another program emptied, are still found', async () => {
    await commit([row('a', 0, 1)]);
    await wh.close();
    // Another program (or an older engage-etl) adds rows and leaves the extents as they were, then empties them.
    const other = await DuckDBInstance.create(path);
    const conn = await other.connect();
    await conn.run(
      `INSERT INTO "campaign_series" ("campaign_id", "time", "unique_recipients") VALUES ('a', '2024-01-05', 9), ('z', '2024-01-05', 9)`,
    );
    await conn.run(`DELETE FROM "_etl_extents"."campaign_series"`);
    conn.closeSync();
    other.closeSync();

    wh = await Warehouse.open(path, WAREHOUSE_TABLES);
    const again = await commit([row('a', 4, 9), row('z', 4, 9), row('a', 0, 1)]);
    expect(await extentRows()).toBe(2); // rebuilt: one range per object and month
    expect(again.tables.campaign_series).toEqual({ inserted: 0, updated: 0, unchanged: 3, deleted: 0 });
    expect(await stored()).toEqual(['a 2024-01-01 1', 'a 2024-01-05 9', 'z 2024-01-05 9']);
    expect(await extents()).toEqual(['a 2024-01-01..2024-01-05', 'z 2024-01-05..2024-01-05']);
  });

  it('keeps the stamped extents of a table nothing else wrote in a new process, and rebuilds those another program emptied', async () => {
    await commit([row('a', 0, 1)]);
    await commit([row('a', 1, 1)]); // a second range of the same object and month: a rebuild would make them one
    expect(await extentRows()).toBe(2);
    const reopen = async (edit?: string) => {
      await wh.close();
      if (edit) {
        const other = await DuckDBInstance.create(path);
        const conn = await other.connect();
        await conn.run(edit);
        conn.closeSync();
        other.closeSync();
      }
      wh = await Warehouse.open(path, WAREHOUSE_TABLES);
    };
    await reopen();
    const kept = await commit([row('a', 40, 1)]);
    expect(kept.tables.campaign_series?.inserted).toBe(1);
    expect(await extentRows()).toBe(3); // trusted: the two ranges of January stay as they were, February's is added
    // The ranges emptied behind the loader, the rows left alone: the stamp no longer holds, and they are rebuilt.
    await reopen(`DELETE FROM "_etl_extents"."campaign_series"`);
    const again = await commit([row('a', 0, 1), row('a', 1, 2)]);
    expect(again.tables.campaign_series).toEqual({ inserted: 0, updated: 1, unchanged: 1, deleted: 0 });
    expect(await extentRows()).toBe(2); // rebuilt: one range per object and month
    expect(await stored()).toEqual(['a 2024-01-01 1', 'a 2024-01-02 2', 'a 2024-02-10 1']);
    // A database from before the stamps (or of another format) has its ranges rebuilt once.
    await commit([row('a', 2, 1)]);
    expect(await extentRows()).toBe(3);
    await reopen(`UPDATE "_etl_extents_stamps" SET "format" = 0`);
    const restamped = await commit([row('a', 40, 2)]); // inside a range: compared, and no range added
    expect(restamped.tables.campaign_series?.updated).toBe(1);
    expect(await extentRows()).toBe(2);
  });

  it('keeps the extents from one commit to the next (no rebuild) and clears them with a reset', async () => {
    await commit([row('a', 0, 1)]);
    const after = await commit([row('a', 1, 1)]);
    expect(after.rowsCompared).toBe(0);
    await new SeriesStateStore(wh).resetStreams(['campaign_series'], ['campaign_series']);
    expect(
      await wh.query(
        `SELECT count(*) AS n FROM duckdb_tables() WHERE "schema_name" = '_etl_extents' AND "table_name" = 'campaign_series'`,
      ),
    ).toEqual([{ n: 0 }]);
    const refill = await commit([row('a', 0, 2)]);
    expect(refill.tables.campaign_series?.inserted).toBe(1);
    expect(await stored()).toEqual(['a 2024-01-01 2']);
    expect(await extents()).toEqual(['a 2024-01-01..2024-01-01']);
  });

  it('searches the stored rows only for replace scopes inside an extent of their object, and deletes exactly what they no longer hold', async () => {
    const message = (campaign: string, n: number, variation: string) => ({
      campaign_id: campaign,
      time: day(n),
      channel: 'email',
      variation_key: variation,
      sent: 1,
    });
    const replace = (days: [string, number][]) =>
      wh.commit({
        runId: `r${++runs}`,
        loadedAt: utc('2024-06-01'),
        upserts: [{ table: 'campaign_message_series', rows: days.map(([c, n]) => message(c, n, 'v1')) }],
        replaces: [
          {
            table: 'campaign_message_series',
            columns: ['campaign_id', 'time'],
            values: days.map(([c, n]) => [c, day(n)]),
          },
        ],
        state: [],
      });
    await wh.commit({
      runId: `r${++runs}`,
      loadedAt: utc('2024-06-01'),
      upserts: [
        {
          table: 'campaign_message_series',
          rows: [message('a', 10, 'v1'), message('a', 10, 'v2'), message('a', 12, 'v1')],
        },
      ],
      state: [],
    });
    // Days of another window and another object: outside every extent, so the stored table is not searched.
    const outside = await replace([
      ['a', 40],
      ['a', 41],
      ['b', 10],
    ]);
    expect(outside.scopesSearched).toBe(0);
    expect(outside.appended).toEqual(['campaign_message_series']);
    expect(outside.tables.campaign_message_series).toEqual({ inserted: 3, updated: 0, unchanged: 0, deleted: 0 });
    // a's day 10 again with v2 gone, and day 11 (inside a's extent, never stored): both searched, v2 deleted.
    const inside = await replace([
      ['a', 10],
      ['a', 11],
    ]);
    expect(inside.scopesSearched).toBe(2);
    expect(inside.appended).toEqual([]);
    expect(inside.tables.campaign_message_series).toEqual({ inserted: 1, updated: 0, unchanged: 1, deleted: 1 });
    const rows = await wh.query(
      `SELECT "campaign_id" || ' ' || strftime("time", '%Y-%m-%d') || ' ' || "variation_key" AS r FROM "campaign_message_series" ORDER BY 1`,
    );
    expect(rows.map((r) => r.r)).toEqual([
      'a 2024-01-11 v1',
      'a 2024-01-12 v1',
      'a 2024-01-13 v1',
      'a 2024-02-10 v1',
      'a 2024-02-11 v1',
      'b 2024-01-11 v1',
    ]);
  });

  it('ends with exactly the last value of every key, over random batches in random order with the database closed and opened again (a model check)', async () => {
    let seed = 27;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const model = new Map<string, number>();
    for (let b = 0; b < 40; b++) {
      const rows: Row[] = [];
      const campaign = ['a', 'b', 'c', 'd'][rand(4)]!;
      const start = rand(60);
      const length = 1 + rand(15);
      for (let n = start; n < start + length; n++) {
        if (rand(5) === 0) continue; // holes inside a window, filled by later batches
        rows.push(row(rand(3) === 0 ? ['a', 'b', 'c', 'd'][rand(4)]! : campaign, n, rand(4)));
      }
      if (rows.length === 0) continue;
      await commit(rows);
      for (const r of rows) model.set(`${r.campaign_id} ${r.time.toISOString().slice(0, 10)}`, r.unique_recipients);
      if (b % 17 === 16) {
        await wh.close();
        wh = await Warehouse.open(path, WAREHOUSE_TABLES);
      }
    }
    const expected = [...model].map(([k, v]) => `${k} ${v}`).sort();
    expect(await stored()).toEqual(expected);
  });
});

describe('a commit of every table at once', () => {
  it('appends every table of a first commit, and merges them all when the same rows come again', async () => {
    // Rows for every table of the warehouse in one package, as a run's first commit gathers them; the value of a
    // column follows its type, the key columns differ per row.
    const value = (col: ColumnSpec, i: number, key: boolean): unknown => {
      if (col.allowed) return col.allowed[i % col.allowed.length];
      switch (col.type) {
        case 'VARCHAR':
          return key ? `k${i}` : 'x';
        case 'BIGINT':
        case 'INTEGER':
          return key ? i : 1;
        case 'DOUBLE':
        case 'DECIMAL(18,2)':
          return 1.5;
        case 'BOOLEAN':
          return true;
        case 'TIMESTAMP':
          return new Date(Date.UTC(2024, 0, 1, 0, key ? i : 0));
        case 'DATE':
          return new Date(Date.UTC(2024, 0, 1 + (key ? i : 0)));
        case 'JSON':
          return null;
        case 'VARCHAR[]':
          return [];
      }
    };
    const upserts = WAREHOUSE_TABLES.all
      .filter((spec) => !spec.name.endsWith('_history'))
      .map((spec) => ({
        table: spec.name,
        rows: Array.from({ length: 400 }, (_, i) =>
          Object.fromEntries(spec.columns.map((col) => [col.name, value(col, i, spec.key.includes(col.name))])),
        ),
      }));
    const batch = () => wh.commit({ runId: `r${++runs}`, loadedAt: utc('2024-06-01'), upserts, state: [] });
    const first = await batch();
    expect(first.appended.length).toBeGreaterThan(10);
    const again = await batch();
    expect(again.appended).toEqual([]);
    expect(Object.values(again.tables).every((t) => t.inserted === 0 && t.updated === 0)).toBe(true);
  });
});
