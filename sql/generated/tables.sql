-- Generated from the stream declarations in src/streams/ by `npm run sql`; do not edit by hand.
-- engage-etl applies the same statements when it opens a database; bookkeeping tables are in sql/*.sql.

-- In-app purchases per app, product and unit ("*" = all apps / all products). Key: app_id, product, unit, time.
CREATE TABLE IF NOT EXISTS "purchase_quantity" (
  "app_id" VARCHAR,
  "product" VARCHAR,
  "unit" VARCHAR,
  "time" TIMESTAMP,
  "purchase_quantity" BIGINT,
  "_loaded_at" TIMESTAMP,
  "_run_id" VARCHAR,
  "_month" VARCHAR GENERATED ALWAYS AS (strftime("time", '%Y-%m')) VIRTUAL
);
COMMENT ON TABLE "purchase_quantity" IS 'In-app purchases per app, product and unit ("*" = all apps / all products). Key: app_id, product, unit, time.';

-- Revenue (USD, to the cent) per app, product and unit ("*" = all apps / all products). Key: app_id, product, unit, time.
CREATE TABLE IF NOT EXISTS "revenue" (
  "app_id" VARCHAR,
  "product" VARCHAR,
  "unit" VARCHAR,
  "time" TIMESTAMP,
  "revenue" DECIMAL(18,2),
  "_loaded_at" TIMESTAMP,
  "_run_id" VARCHAR,
  "_month" VARCHAR GENERATED ALWAYS AS (strftime("time", '%Y-%m')) VIRTUAL
);
COMMENT ON TABLE "revenue" IS 'Revenue (USD, to the cent) per app, product and unit ("*" = all apps / all products). Key: app_id, product, unit, time.';

-- Sessions per app, segment and unit ("*" = all apps / no segment filter). Key: app_id, segment_id, unit, time.
CREATE TABLE IF NOT EXISTS "sessions" (
  "app_id" VARCHAR,
  "segment_id" VARCHAR,
  "unit" VARCHAR,
  "time" TIMESTAMP,
  "sessions" BIGINT,
  "_loaded_at" TIMESTAMP,
  "_run_id" VARCHAR,
  "_month" VARCHAR GENERATED ALWAYS AS (strftime("time", '%Y-%m')) VIRTUAL
);
COMMENT ON TABLE "sessions" IS 'Sessions per app, segment and unit ("*" = all apps / no segment filter). Key: app_id, segment_id, unit, time.';

-- Daily active users, monthly active users (30 days ending the day), new users and uninstalls per app and UTC day ("*" = all apps). Key: metric, app_id, time.
CREATE TABLE IF NOT EXISTS "kpi_series" (
  "metric" VARCHAR,
  "app_id" VARCHAR,
  "time" TIMESTAMP,
  "value" BIGINT,
  "_loaded_at" TIMESTAMP,
  "_run_id" VARCHAR,
  "_month" VARCHAR GENERATED ALWAYS AS (strftime("time", '%Y-%m')) VIRTUAL
);
COMMENT ON TABLE "kpi_series" IS 'Daily active users, monthly active users (30 days ending the day), new users and uninstalls per app and UTC day ("*" = all apps). Key: metric, app_id, time.';

-- Estimated size of a segment per day. Key: segment_id, time.
CREATE TABLE IF NOT EXISTS "segment_size" (
  "segment_id" VARCHAR,
  "time" TIMESTAMP,
  "size" BIGINT,
  "_loaded_at" TIMESTAMP,
  "_run_id" VARCHAR,
  "_month" VARCHAR GENERATED ALWAYS AS (strftime("time", '%Y-%m')) VIRTUAL
);
COMMENT ON TABLE "segment_size" IS 'Estimated size of a segment per day. Key: segment_id, time.';

-- Custom event names, with the --until of the first and last run that saw each listed. Key: name.
CREATE TABLE IF NOT EXISTS "custom_events" (
  "name" VARCHAR,
  "first_seen_at" TIMESTAMP,
  "last_seen_at" TIMESTAMP,
  "_loaded_at" TIMESTAMP,
  "_run_id" VARCHAR,
  "_month" VARCHAR GENERATED ALWAYS AS (strftime("first_seen_at", '%Y-%m')) VIRTUAL
);
COMMENT ON TABLE "custom_events" IS 'Custom event names, with the --until of the first and last run that saw each listed. Key: name.';

-- Occurrences of a custom event per app, segment and unit ("*" = all apps / no segment filter). Key: event, app_id, segment_id, unit, time.
CREATE TABLE IF NOT EXISTS "event_counts" (
  "event" VARCHAR,
  "app_id" VARCHAR,
  "segment_id" VARCHAR,
  "unit" VARCHAR,
  "time" TIMESTAMP,
  "count" BIGINT,
  "_loaded_at" TIMESTAMP,
  "_run_id" VARCHAR,
  "_month" VARCHAR GENERATED ALWAYS AS (strftime("time", '%Y-%m')) VIRTUAL
);
COMMENT ON TABLE "event_counts" IS 'Occurrences of a custom event per app, segment and unit ("*" = all apps / no segment filter). Key: event, app_id, segment_id, unit, time.';

-- A campaign's totals per UTC day; the optional ones NULL when the server leaves them out. Key: campaign_id, time.
CREATE TABLE IF NOT EXISTS "campaign_series" (
  "campaign_id" VARCHAR,
  "time" TIMESTAMP,
  "unique_recipients" BIGINT,
  "conversions" BIGINT,
  "conversions1" BIGINT,
  "conversions2" BIGINT,
  "conversions3" BIGINT,
  "revenue" DECIMAL(18,2),
  "conversions_by_send_time" BIGINT,
  "conversions1_by_send_time" BIGINT,
  "conversions2_by_send_time" BIGINT,
  "conversions3_by_send_time" BIGINT,
  "_loaded_at" TIMESTAMP,
  "_run_id" VARCHAR,
  "_month" VARCHAR GENERATED ALWAYS AS (strftime("time", '%Y-%m')) VIRTUAL
);
COMMENT ON TABLE "campaign_series" IS 'A campaign''s totals per UTC day; the optional ones NULL when the server leaves them out. Key: campaign_id, time.';

-- A campaign message variation's statistics per UTC day and channel: one column per field the platform documents for any channel, NULL where this channel does not report it; `extra_stats` holds the fields without a column. `variation_key` is the variation_api_id, or when the server leaves it out `name:<variation_name>`, else `position:<index in the channel's list>`. Key: campaign_id, time, channel, variation_key.
CREATE TABLE IF NOT EXISTS "campaign_message_series" (
  "campaign_id" VARCHAR,
  "time" TIMESTAMP,
  "channel" VARCHAR,
  "variation_key" VARCHAR,
  "variation_api_id" VARCHAR,
  "variation_name" VARCHAR,
  "sent" BIGINT,
  "delivered" BIGINT,
  "undelivered" BIGINT,
  "delivery_failed" BIGINT,
  "bounces" BIGINT,
  "opens" BIGINT,
  "unique_opens" BIGINT,
  "direct_opens" BIGINT,
  "total_opens" BIGINT,
  "clicks" BIGINT,
  "unique_clicks" BIGINT,
  "body_clicks" BIGINT,
  "total_clicks" BIGINT,
  "impressions" BIGINT,
  "total_impressions" BIGINT,
  "unique_impressions" BIGINT,
  "first_button_clicks" BIGINT,
  "second_button_clicks" BIGINT,
  "total_dismissals" BIGINT,
  "unique_dismissals" BIGINT,
  "unsubscribes" BIGINT,
  "reported_spam" BIGINT,
  "opt_out" BIGINT,
  "help" BIGINT,
  "errors" BIGINT,
  "unique_recipients" BIGINT,
  "conversions" BIGINT,
  "conversions_by_send_time" BIGINT,
  "conversions1" BIGINT,
  "conversions1_by_send_time" BIGINT,
  "conversions2" BIGINT,
  "conversions2_by_send_time" BIGINT,
  "conversions3" BIGINT,
  "conversions3_by_send_time" BIGINT,
  "enrolled" BIGINT,
  "revenue" DECIMAL(18,2),
  "extra_stats" JSON,
  "_loaded_at" TIMESTAMP,
  "_run_id" VARCHAR,
  "_month" VARCHAR GENERATED ALWAYS AS (strftime("time", '%Y-%m')) VIRTUAL
);
COMMENT ON TABLE "campaign_message_series" IS 'A campaign message variation''s statistics per UTC day and channel: one column per field the platform documents for any channel, NULL where this channel does not report it; `extra_stats` holds the fields without a column. `variation_key` is the variation_api_id, or when the server leaves it out `name:<variation_name>`, else `position:<index in the channel''s list>`. Key: campaign_id, time, channel, variation_key.';

-- A Canvas's totals per UTC day. Key: canvas_id, day.
CREATE TABLE IF NOT EXISTS "canvas_summary" (
  "canvas_id" VARCHAR,
  "day" DATE,
  "name" VARCHAR,
  "entries" BIGINT,
  "conversions" BIGINT,
  "conversions_by_entry_time" BIGINT,
  "revenue" DECIMAL(18,2),
  "_loaded_at" TIMESTAMP,
  "_run_id" VARCHAR,
  "_month" VARCHAR GENERATED ALWAYS AS (strftime("day", '%Y-%m')) VIRTUAL
);
COMMENT ON TABLE "canvas_summary" IS 'A Canvas''s totals per UTC day. Key: canvas_id, day.';

-- A Canvas variant's totals per UTC day; a field the server leaves out is NULL, fields without a column are in `extra_stats`. Key: canvas_id, day, variant_id.
CREATE TABLE IF NOT EXISTS "canvas_variant_summary" (
  "canvas_id" VARCHAR,
  "day" DATE,
  "variant_id" VARCHAR,
  "name" VARCHAR,
  "entries" BIGINT,
  "conversions" BIGINT,
  "revenue" DECIMAL(18,2),
  "conversions_by_entry_time" BIGINT,
  "extra_stats" JSON,
  "_loaded_at" TIMESTAMP,
  "_run_id" VARCHAR,
  "_month" VARCHAR GENERATED ALWAYS AS (strftime("day", '%Y-%m')) VIRTUAL
);
COMMENT ON TABLE "canvas_variant_summary" IS 'A Canvas variant''s totals per UTC day; a field the server leaves out is NULL, fields without a column are in `extra_stats`. Key: canvas_id, day, variant_id.';

-- A Canvas step's totals per UTC day. Key: canvas_id, day, step_id.
CREATE TABLE IF NOT EXISTS "canvas_step_summary" (
  "canvas_id" VARCHAR,
  "day" DATE,
  "step_id" VARCHAR,
  "name" VARCHAR,
  "conversions" BIGINT,
  "conversions_by_entry_time" BIGINT,
  "revenue" DECIMAL(18,2),
  "_loaded_at" TIMESTAMP,
  "_run_id" VARCHAR,
  "_month" VARCHAR GENERATED ALWAYS AS (strftime("day", '%Y-%m')) VIRTUAL
);
COMMENT ON TABLE "canvas_step_summary" IS 'A Canvas step''s totals per UTC day. Key: canvas_id, day, step_id.';

-- Message statistics of a Canvas step per UTC day, channel and message (its position in the channel's list): the four fields of the spec and every count documented for some channel, NULL where the message does not report it; fields without a column are in `extra_stats`. Key: canvas_id, day, step_id, channel, message_index.
CREATE TABLE IF NOT EXISTS "canvas_step_messages" (
  "canvas_id" VARCHAR,
  "day" DATE,
  "step_id" VARCHAR,
  "channel" VARCHAR,
  "message_index" INTEGER,
  "sent" BIGINT,
  "opens" BIGINT,
  "influenced_opens" BIGINT,
  "bounces" BIGINT,
  "delivered" BIGINT,
  "undelivered" BIGINT,
  "delivery_failed" BIGINT,
  "unique_opens" BIGINT,
  "direct_opens" BIGINT,
  "total_opens" BIGINT,
  "clicks" BIGINT,
  "unique_clicks" BIGINT,
  "body_clicks" BIGINT,
  "total_clicks" BIGINT,
  "impressions" BIGINT,
  "total_impressions" BIGINT,
  "unique_impressions" BIGINT,
  "first_button_clicks" BIGINT,
  "second_button_clicks" BIGINT,
  "total_dismissals" BIGINT,
  "unique_dismissals" BIGINT,
  "unsubscribes" BIGINT,
  "reported_spam" BIGINT,
  "opt_out" BIGINT,
  "help" BIGINT,
  "errors" BIGINT,
  "extra_stats" JSON,
  "_loaded_at" TIMESTAMP,
  "_run_id" VARCHAR,
  "_month" VARCHAR GENERATED ALWAYS AS (strftime("day", '%Y-%m')) VIRTUAL
);
COMMENT ON TABLE "canvas_step_messages" IS 'Message statistics of a Canvas step per UTC day, channel and message (its position in the channel''s list): the four fields of the spec and every count documented for some channel, NULL where the message does not report it; fields without a column are in `extra_stats`. Key: canvas_id, day, step_id, channel, message_index.';

-- Canvases: name, flags, schedule, entry times, channels, tags and teams. Key: canvas_id.
CREATE TABLE IF NOT EXISTS "canvases" (
  "canvas_id" VARCHAR,
  "name" VARCHAR,
  "description" VARCHAR,
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "archived" BOOLEAN,
  "draft" BOOLEAN,
  "schedule_type" VARCHAR,
  "first_entry" TIMESTAMP,
  "last_entry" TIMESTAMP,
  "channels" VARCHAR[],
  "tags" VARCHAR[],
  "teams" VARCHAR[],
  "last_edited" TIMESTAMP,
  "_list_version" VARCHAR,
  "_removed_at" TIMESTAMP,
  "_loaded_at" TIMESTAMP,
  "_run_id" VARCHAR
);
COMMENT ON TABLE "canvases" IS 'Canvases: name, flags, schedule, entry times, channels, tags and teams. Key: canvas_id.';

-- Every version of the rows of canvases, current from _valid_from until _valid_to (NULL while current; a removed object has none current). Key: canvas_id, _valid_from.
CREATE TABLE IF NOT EXISTS "canvases_history" (
  "canvas_id" VARCHAR,
  "name" VARCHAR,
  "description" VARCHAR,
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "archived" BOOLEAN,
  "draft" BOOLEAN,
  "schedule_type" VARCHAR,
  "first_entry" TIMESTAMP,
  "last_entry" TIMESTAMP,
  "channels" VARCHAR[],
  "tags" VARCHAR[],
  "teams" VARCHAR[],
  "last_edited" TIMESTAMP,
  "_list_version" VARCHAR,
  "_removed_at" TIMESTAMP,
  "_valid_from" TIMESTAMP,
  "_valid_to" TIMESTAMP,
  "_loaded_at" TIMESTAMP,
  "_run_id" VARCHAR
);
COMMENT ON TABLE "canvases_history" IS 'Every version of the rows of canvases, current from _valid_from until _valid_to (NULL while current; a removed object has none current). Key: canvas_id, _valid_from.';

-- Variants of each Canvas and their first steps. Key: canvas_id, variant_id.
CREATE TABLE IF NOT EXISTS "canvas_variants" (
  "canvas_id" VARCHAR,
  "variant_id" VARCHAR,
  "name" VARCHAR,
  "first_step_ids" VARCHAR[],
  "first_step_id" VARCHAR,
  "_loaded_at" TIMESTAMP,
  "_run_id" VARCHAR
);
COMMENT ON TABLE "canvas_variants" IS 'Variants of each Canvas and their first steps. Key: canvas_id, variant_id.';

-- Every version of the rows of canvas_variants, current from _valid_from until _valid_to (NULL while current; a removed object has none current). Key: canvas_id, variant_id, _valid_from.
CREATE TABLE IF NOT EXISTS "canvas_variants_history" (
  "canvas_id" VARCHAR,
  "variant_id" VARCHAR,
  "name" VARCHAR,
  "first_step_ids" VARCHAR[],
  "first_step_id" VARCHAR,
  "_valid_from" TIMESTAMP,
  "_valid_to" TIMESTAMP,
  "_loaded_at" TIMESTAMP,
  "_run_id" VARCHAR
);
COMMENT ON TABLE "canvas_variants_history" IS 'Every version of the rows of canvas_variants, current from _valid_from until _valid_to (NULL while current; a removed object has none current). Key: canvas_id, variant_id, _valid_from.';

-- Steps of each Canvas: type, next steps and paths, channels and messages. Key: canvas_id, step_id.
CREATE TABLE IF NOT EXISTS "canvas_steps" (
  "canvas_id" VARCHAR,
  "step_id" VARCHAR,
  "name" VARCHAR,
  "type" VARCHAR,
  "next_step_ids" VARCHAR[],
  "next_paths" JSON,
  "channels" VARCHAR[],
  "messages" JSON,
  "_loaded_at" TIMESTAMP,
  "_run_id" VARCHAR
);
COMMENT ON TABLE "canvas_steps" IS 'Steps of each Canvas: type, next steps and paths, channels and messages. Key: canvas_id, step_id.';

-- Every version of the rows of canvas_steps, current from _valid_from until _valid_to (NULL while current; a removed object has none current). Key: canvas_id, step_id, _valid_from.
CREATE TABLE IF NOT EXISTS "canvas_steps_history" (
  "canvas_id" VARCHAR,
  "step_id" VARCHAR,
  "name" VARCHAR,
  "type" VARCHAR,
  "next_step_ids" VARCHAR[],
  "next_paths" JSON,
  "channels" VARCHAR[],
  "messages" JSON,
  "_valid_from" TIMESTAMP,
  "_valid_to" TIMESTAMP,
  "_loaded_at" TIMESTAMP,
  "_run_id" VARCHAR
);
COMMENT ON TABLE "canvas_steps_history" IS 'Every version of the rows of canvas_steps, current from _valid_from until _valid_to (NULL while current; a removed object has none current). Key: canvas_id, step_id, _valid_from.';

-- Email templates: names, subject, bodies and edit times. Key: email_template_id.
CREATE TABLE IF NOT EXISTS "email_templates" (
  "email_template_id" VARCHAR,
  "template_name" VARCHAR,
  "description" VARCHAR,
  "subject" VARCHAR,
  "preheader" VARCHAR,
  "body" VARCHAR,
  "plaintext_body" VARCHAR,
  "should_inline_css" BOOLEAN,
  "tags" VARCHAR,
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "_list_version" VARCHAR,
  "_removed_at" TIMESTAMP,
  "_loaded_at" TIMESTAMP,
  "_run_id" VARCHAR
);
COMMENT ON TABLE "email_templates" IS 'Email templates: names, subject, bodies and edit times. Key: email_template_id.';

-- Content blocks: content, type, tags, edit times and where they are included. Key: content_block_id.
CREATE TABLE IF NOT EXISTS "content_blocks" (
  "content_block_id" VARCHAR,
  "name" VARCHAR,
  "content" VARCHAR,
  "description" VARCHAR,
  "content_type" VARCHAR,
  "tags" VARCHAR[],
  "created_at" TIMESTAMP,
  "last_edited" TIMESTAMP,
  "inclusion_count" BIGINT,
  "inclusion_data" JSON,
  "_list_version" VARCHAR,
  "_removed_at" TIMESTAMP,
  "_loaded_at" TIMESTAMP,
  "_run_id" VARCHAR
);
COMMENT ON TABLE "content_blocks" IS 'Content blocks: content, type, tags, edit times and where they are included. Key: content_block_id.';

-- Campaigns: name, flags, schedule, channels, first and last send, tags, teams and conversion behaviors. Key: campaign_id.
CREATE TABLE IF NOT EXISTS "campaigns" (
  "campaign_id" VARCHAR,
  "name" VARCHAR,
  "description" VARCHAR,
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "last_edited" TIMESTAMP,
  "archived" BOOLEAN,
  "draft" BOOLEAN,
  "enabled" BOOLEAN,
  "is_api_campaign" BOOLEAN,
  "schedule_type" VARCHAR,
  "channels" VARCHAR[],
  "first_sent" TIMESTAMP,
  "last_sent" TIMESTAMP,
  "tags" VARCHAR[],
  "teams" VARCHAR[],
  "conversion_behaviors" JSON,
  "_list_version" VARCHAR,
  "_removed_at" TIMESTAMP,
  "_loaded_at" TIMESTAMP,
  "_run_id" VARCHAR
);
COMMENT ON TABLE "campaigns" IS 'Campaigns: name, flags, schedule, channels, first and last send, tags, teams and conversion behaviors. Key: campaign_id.';

-- Every version of the rows of campaigns, current from _valid_from until _valid_to (NULL while current; a removed object has none current). Key: campaign_id, _valid_from.
CREATE TABLE IF NOT EXISTS "campaigns_history" (
  "campaign_id" VARCHAR,
  "name" VARCHAR,
  "description" VARCHAR,
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "last_edited" TIMESTAMP,
  "archived" BOOLEAN,
  "draft" BOOLEAN,
  "enabled" BOOLEAN,
  "is_api_campaign" BOOLEAN,
  "schedule_type" VARCHAR,
  "channels" VARCHAR[],
  "first_sent" TIMESTAMP,
  "last_sent" TIMESTAMP,
  "tags" VARCHAR[],
  "teams" VARCHAR[],
  "conversion_behaviors" JSON,
  "_list_version" VARCHAR,
  "_removed_at" TIMESTAMP,
  "_valid_from" TIMESTAMP,
  "_valid_to" TIMESTAMP,
  "_loaded_at" TIMESTAMP,
  "_run_id" VARCHAR
);
COMMENT ON TABLE "campaigns_history" IS 'Every version of the rows of campaigns, current from _valid_from until _valid_to (NULL while current; a removed object has none current). Key: campaign_id, _valid_from.';

-- Message variations of each campaign: channel, name and the channel's own fields (subject, alert, body, url…). Key: campaign_id, variation_id.
CREATE TABLE IF NOT EXISTS "campaign_messages" (
  "campaign_id" VARCHAR,
  "variation_id" VARCHAR,
  "channel" VARCHAR,
  "name" VARCHAR,
  "message" JSON,
  "_loaded_at" TIMESTAMP,
  "_run_id" VARCHAR
);
COMMENT ON TABLE "campaign_messages" IS 'Message variations of each campaign: channel, name and the channel''s own fields (subject, alert, body, url…). Key: campaign_id, variation_id.';

-- Every version of the rows of campaign_messages, current from _valid_from until _valid_to (NULL while current; a removed object has none current). Key: campaign_id, variation_id, _valid_from.
CREATE TABLE IF NOT EXISTS "campaign_messages_history" (
  "campaign_id" VARCHAR,
  "variation_id" VARCHAR,
  "channel" VARCHAR,
  "name" VARCHAR,
  "message" JSON,
  "_valid_from" TIMESTAMP,
  "_valid_to" TIMESTAMP,
  "_loaded_at" TIMESTAMP,
  "_run_id" VARCHAR
);
COMMENT ON TABLE "campaign_messages_history" IS 'Every version of the rows of campaign_messages, current from _valid_from until _valid_to (NULL while current; a removed object has none current). Key: campaign_id, variation_id, _valid_from.';

-- Segments: name, descriptions, whether analytics tracking is on, tags, teams and edit times. Key: segment_id.
CREATE TABLE IF NOT EXISTS "segments" (
  "segment_id" VARCHAR,
  "name" VARCHAR,
  "description" VARCHAR,
  "text_description" VARCHAR,
  "analytics_tracking_enabled" BOOLEAN,
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "tags" VARCHAR[],
  "teams" VARCHAR[],
  "_list_version" VARCHAR,
  "_removed_at" TIMESTAMP,
  "_loaded_at" TIMESTAMP,
  "_run_id" VARCHAR
);
COMMENT ON TABLE "segments" IS 'Segments: name, descriptions, whether analytics tracking is on, tags, teams and edit times. Key: segment_id.';

-- Every version of the rows of segments, current from _valid_from until _valid_to (NULL while current; a removed object has none current). Key: segment_id, _valid_from.
CREATE TABLE IF NOT EXISTS "segments_history" (
  "segment_id" VARCHAR,
  "name" VARCHAR,
  "description" VARCHAR,
  "text_description" VARCHAR,
  "analytics_tracking_enabled" BOOLEAN,
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "tags" VARCHAR[],
  "teams" VARCHAR[],
  "_list_version" VARCHAR,
  "_removed_at" TIMESTAMP,
  "_valid_from" TIMESTAMP,
  "_valid_to" TIMESTAMP,
  "_loaded_at" TIMESTAMP,
  "_run_id" VARCHAR
);
COMMENT ON TABLE "segments_history" IS 'Every version of the rows of segments, current from _valid_from until _valid_to (NULL while current; a removed object has none current). Key: segment_id, _valid_from.';

-- Products the workspace lists, with the --until of the run that first saw each. Key: product_id.
CREATE TABLE IF NOT EXISTS "products" (
  "product_id" VARCHAR,
  "first_seen_at" TIMESTAMP,
  "_list_version" VARCHAR,
  "_removed_at" TIMESTAMP,
  "_loaded_at" TIMESTAMP,
  "_run_id" VARCHAR
);
COMMENT ON TABLE "products" IS 'Products the workspace lists, with the --until of the run that first saw each. Key: product_id.';

-- Data (cloud data ingestion) integrations of the workspace and their last sync. Key: integration_id.
CREATE TABLE IF NOT EXISTS "data_integrations" (
  "integration_id" VARCHAR,
  "app_group_id" VARCHAR,
  "integration_name" VARCHAR,
  "integration_type" VARCHAR,
  "integration_status" VARCHAR,
  "contact_emails" VARCHAR,
  "last_updated_at" TIMESTAMP,
  "warehouse_type" VARCHAR,
  "last_job_start_time" TIMESTAMP,
  "last_job_status" VARCHAR,
  "next_scheduled_run" TIMESTAMP,
  "_loaded_at" TIMESTAMP,
  "_run_id" VARCHAR
);
COMMENT ON TABLE "data_integrations" IS 'Data (cloud data ingestion) integrations of the workspace and their last sync. Key: integration_id.';

-- Every object the workspace's lists showed (listing: canvases, canvases+archived, campaigns, segments, products, custom_events, email_templates, content_blocks), with when it was first seen and, once a list stopped showing it, _removed_at. Key: listing, id.
CREATE TABLE IF NOT EXISTS "listed_objects" (
  "listing" VARCHAR,
  "id" VARCHAR,
  "name" VARCHAR,
  "version" VARCHAR,
  "tags" VARCHAR[],
  "attributes" JSON,
  "first_seen_at" TIMESTAMP,
  "_removed_at" TIMESTAMP,
  "_loaded_at" TIMESTAMP,
  "_run_id" VARCHAR
);
COMMENT ON TABLE "listed_objects" IS 'Every object the workspace''s lists showed (listing: canvases, canvases+archived, campaigns, segments, products, custom_events, email_templates, content_blocks), with when it was first seen and, once a list stopped showing it, _removed_at. Key: listing, id.';
