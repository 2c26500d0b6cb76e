// A database written by the previous version (campaign variations with 8 counts on every channel and the rest in
// `channel_stats`; Canvas step messages with the spec's four fields) opens, keeps its rows and is rebuilt in this
// version's layout: every field documented for the row's channel moves to its column, anything else stays in
// `extra_stats`, new columns start NULL, and the Parquet partitions are marked for rewriting.
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import { writePreviousLayout } from './previous-layout.js';
import { tempDirPerTest } from './warehouse-helpers.js';

const t = tempDirPerTest();

/** Rows without their NULL columns, JSON parsed (its key order is DuckDB's). */
async function rows(wh: Warehouse, sql: string): Promise<Record<string, unknown>[]> {
  const value = (k: string, v: unknown) =>
    typeof v === 'bigint' ? Number(v) : k === 'extra_stats' ? JSON.parse(String(v)) : v;
  return (await wh.query(sql)).map((r) =>
    Object.fromEntries(
      Object.entries(r)
        .filter(([, v]) => v !== null)
        .map(([k, v]) => [k, value(k, v)]),
    ),
  );
}

describe('a database written by the previous version', () => {
  it('is refused read-only with the fix, then upgraded by a writer keeping every row, each field where this version puts it', async () => {
    const path = join(t.dir, 'old.duckdb');
    await writePreviousLayout(path);
    // Readers never write: they name the run that upgrades the file.
    await expect(Warehouse.open(path, WAREHOUSE_TABLES, { readOnly: true })).rejects.toThrow(
      /written by an earlier version of engage-etl; the next `engage-etl run` on it upgrades it/,
    );

    // As if the earlier version had stamped this table's extents: the upgrade forgets the stamp.
    const earlier = await DuckDBInstance.create(path);
    const earlierConn = await earlier.connect();
    await earlierConn.run(
      `CREATE TABLE IF NOT EXISTS "_etl_extents_stamps" ("table_name" VARCHAR, "format" INTEGER, "table_rows" BIGINT, "extent_rows" BIGINT);
       INSERT INTO "_etl_extents_stamps" VALUES ('campaign_message_series', 1, 6, 2)`,
    );
    earlierConn.closeSync();
    earlier.closeSync();

    const wh = await Warehouse.open(path, WAREHOUSE_TABLES);
    try {
      expect(await rows(wh, `SELECT "table_name" FROM "_etl_extents_stamps"`)).toEqual([]);
      const messages = await rows(
        wh,
        `SELECT * EXCLUDE ("time", "_loaded_at", "_month") FROM campaign_message_series ORDER BY channel`,
      );
      const common = { campaign_id: 'cmp_1', _run_id: 'run_a' };
      expect(messages).toEqual([
        {
          ...common,
          channel: 'email',
          variation_key: 'v_email',
          variation_api_id: 'v_email',
          sent: 50,
          opens: 20,
          unique_opens: 15,
          clicks: 6,
          unique_clicks: 4,
          bounces: 2,
          unsubscribes: 1,
          delivered: 48,
          reported_spam: 3,
        },
        // An in-app message has impressions and clicks, not opens or deliveries: those old values stay aside.
        {
          ...common,
          channel: 'in_app_message',
          variation_key: 'v_iam',
          variation_api_id: 'v_iam',
          impressions: 8,
          clicks: 2,
          revenue: 1.25,
          extra_stats: {
            sent: 10,
            opens: 8,
            unique_opens: 6,
            unique_clicks: 1,
            bounces: 0,
            unsubscribes: 0,
            delivered: 10,
          },
        },
        // A push has direct and total opens: its old `opens` was never a documented push field, so it is not moved to one.
        {
          ...common,
          channel: 'ios_push',
          variation_key: 'v_push',
          variation_api_id: 'v_push',
          sent: 30,
          bounces: 1,
          direct_opens: 4,
          body_clicks: 5,
          extra_stats: {
            notif_button_1_Play_click: 2,
            opens: 9,
            unique_opens: 7,
            clicks: 5,
            unique_clicks: 3,
            unsubscribes: 0,
            delivered: 29,
          },
        },
        {
          ...common,
          channel: 'sms',
          variation_key: 'v_sms',
          variation_api_id: 'v_sms',
          variation_name: 'Promo',
          sent: 20,
          delivered: 19,
          delivery_failed: 1,
          extra_stats: { opens: 0, unique_opens: 0, clicks: 0, unique_clicks: 0, bounces: 1, unsubscribes: 2 },
        },
        // A value that is not a number is not guessed at: it stays as it was stored, its column NULL.
        {
          ...common,
          channel: 'webhook',
          variation_key: 'v_hook',
          variation_api_id: 'v_hook',
          sent: 5,
          extra_stats: {
            errors: 'n/a',
            opens: 0,
            unique_opens: 0,
            clicks: 0,
            unique_clicks: 0,
            bounces: 1,
            unsubscribes: 0,
            delivered: 4,
          },
        },
        // A channel this version does not know keeps every documented count in its column, as a fetch of it does now.
        {
          ...common,
          channel: 'whatsapp',
          variation_key: 'v_wa',
          variation_api_id: 'v_wa',
          sent: 3,
          opens: 1,
          unique_opens: 1,
          clicks: 0,
          unique_clicks: 0,
          bounces: 0,
          unsubscribes: 0,
          delivered: 3,
        },
      ]);
      expect(await rows(wh, `SELECT * EXCLUDE ("time", "_loaded_at", "_month") FROM campaign_series`)).toEqual([
        {
          campaign_id: 'cmp_1',
          unique_recipients: 100,
          conversions: 7,
          conversions1: 3,
          conversions2: 2,
          conversions3: 1,
          revenue: 12.5,
          _run_id: 'run_a',
        },
      ]);
      expect(await rows(wh, `SELECT * EXCLUDE ("day", "_loaded_at", "_month") FROM canvas_step_messages`)).toEqual([
        {
          canvas_id: 'cv_1',
          step_id: 'cv_1_step_1',
          channel: 'email',
          message_index: 0,
          sent: 40,
          opens: 10,
          influenced_opens: 2,
          bounces: 1,
          _run_id: 'run_a',
        },
      ]);
      expect(await rows(wh, `SELECT * EXCLUDE ("day", "_loaded_at", "_month") FROM canvas_variant_summary`)).toEqual([
        {
          canvas_id: 'cv_1',
          variant_id: 'cv_1_variant_1',
          name: 'A',
          entries: 40,
          conversions: 4,
          revenue: 9.5,
          _run_id: 'run_a',
        },
      ]);
      // Every month of the rebuilt tables is rewritten by the next export.
      expect(await rows(wh, `SELECT * FROM _etl_dirty_partitions ORDER BY ALL`)).toEqual([
        { table_name: 'campaign_message_series', partition: '2024-05' },
        { table_name: 'campaign_message_series', partition: '2024-06' },
        { table_name: 'campaign_series', partition: '2024-05' },
        { table_name: 'canvas_step_messages', partition: '2024-05' },
        { table_name: 'canvas_variant_summary', partition: '2024-05' },
      ]);
    } finally {
      await wh.close();
    }
    // Once upgraded, it opens as any database of this version, read-only included, and a second open changes nothing.
    const again = await Warehouse.open(path, WAREHOUSE_TABLES);
    expect(await rows(again, 'SELECT count(*) AS n FROM campaign_message_series')).toEqual([{ n: 6 }]);
    await again.close();
    const reader = await Warehouse.open(path, WAREHOUSE_TABLES, { readOnly: true });
    await reader.close();
  });
});
