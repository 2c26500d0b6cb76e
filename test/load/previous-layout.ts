// A database as the version before per-channel columns left it: the four tables whose layout changed, with a few rows, beside
// this version's other tables. Shared by the upgrade test of the warehouse and the one of a whole run.
import { DuckDBInstance } from '@duckdb/node-api';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';

/** The previous version's DDL of the four tables this version changed (sql/generated/tables.sql of that version). */
const PREVIOUS_DDL = `
CREATE TABLE "campaign_series" ("campaign_id" VARCHAR, "time" TIMESTAMP, "unique_recipients" BIGINT, "conversions" BIGINT,
  "conversions1" BIGINT, "conversions2" BIGINT, "conversions3" BIGINT, "revenue" DOUBLE, "_loaded_at" TIMESTAMP, "_run_id" VARCHAR,
  "_month" VARCHAR GENERATED ALWAYS AS (strftime("time", '%Y-%m')) VIRTUAL);
CREATE TABLE "campaign_message_series" ("campaign_id" VARCHAR, "time" TIMESTAMP, "channel" VARCHAR, "variation_api_id" VARCHAR,
  "sent" BIGINT, "opens" BIGINT, "unique_opens" BIGINT, "clicks" BIGINT, "unique_clicks" BIGINT, "bounces" BIGINT, "unsubscribes" BIGINT,
  "delivered" BIGINT, "channel_stats" JSON, "_loaded_at" TIMESTAMP, "_run_id" VARCHAR,
  "_month" VARCHAR GENERATED ALWAYS AS (strftime("time", '%Y-%m')) VIRTUAL);
CREATE TABLE "canvas_variant_summary" ("canvas_id" VARCHAR, "day" DATE, "variant_id" VARCHAR, "name" VARCHAR, "entries" BIGINT,
  "conversions" BIGINT, "revenue" DOUBLE, "_loaded_at" TIMESTAMP, "_run_id" VARCHAR,
  "_month" VARCHAR GENERATED ALWAYS AS (strftime("day", '%Y-%m')) VIRTUAL);
CREATE TABLE "canvas_step_messages" ("canvas_id" VARCHAR, "day" DATE, "step_id" VARCHAR, "channel" VARCHAR, "message_index" INTEGER,
  "sent" BIGINT, "opens" BIGINT, "influenced_opens" BIGINT, "bounces" BIGINT, "_loaded_at" TIMESTAMP, "_run_id" VARCHAR,
  "_month" VARCHAR GENERATED ALWAYS AS (strftime("day", '%Y-%m')) VIRTUAL);
INSERT INTO "campaign_series" VALUES ('cmp_1', '2024-05-01', 100, 7, 3, 2, 1, 12.5, '2024-05-03', 'run_a');
INSERT INTO "campaign_message_series" VALUES
  ('cmp_1', '2024-05-01', 'email', 'v_email', 50, 20, 15, 6, 4, 2, 1, 48, '{"reported_spam":3}', '2024-05-03', 'run_a'),
  ('cmp_1', '2024-05-01', 'ios_push', 'v_push', 30, 9, 7, 5, 3, 1, 0, 29,
    '{"direct_opens":4,"body_clicks":5,"notif_button_1_Play_click":2}', '2024-05-03', 'run_a'),
  ('cmp_1', '2024-05-01', 'sms', 'v_sms', 20, 0, 0, 0, 0, 1, 2, 19, '{"delivery_failed":1,"variation_name":"Promo"}', '2024-05-03', 'run_a'),
  ('cmp_1', '2024-06-02', 'in_app_message', 'v_iam', 10, 8, 6, 2, 1, 0, 0, 10, '{"impressions":8,"revenue":1.25}', '2024-06-03', 'run_a'),
  ('cmp_1', '2024-06-02', 'webhook', 'v_hook', 5, 0, 0, 0, 0, 1, 0, 4, '{"errors":"n/a"}', '2024-06-03', 'run_a'),
  ('cmp_1', '2024-06-02', 'whatsapp', 'v_wa', 3, 1, 1, 0, 0, 0, 0, 3, NULL, '2024-06-03', 'run_a');
INSERT INTO "canvas_variant_summary" VALUES ('cv_1', '2024-05-01', 'cv_1_variant_1', 'A', 40, 4, 9.5, '2024-05-03', 'run_a');
INSERT INTO "canvas_step_messages" VALUES ('cv_1', '2024-05-01', 'cv_1_step_1', 'email', 0, 40, 10, 2, 1, '2024-05-03', 'run_a');
`;

/** A database of this version whose four changed tables are put back in the previous layout, with rows. */
export async function writePreviousLayout(path: string): Promise<void> {
  await (await Warehouse.open(path, WAREHOUSE_TABLES)).close();
  const instance = await DuckDBInstance.create(path);
  const conn = await instance.connect();
  for (const table of ['campaign_series', 'campaign_message_series', 'canvas_variant_summary', 'canvas_step_messages'])
    await conn.run(`DROP TABLE "${table}"`);
  await conn.run(PREVIOUS_DDL);
  conn.closeSync();
  instance.closeSync();
}
