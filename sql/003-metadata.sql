-- Metadata objects (spec 2.3, 2.6, 2.8, 2.9), one row per object; arrays are lists, nested objects JSON.
CREATE TABLE IF NOT EXISTS "canvases" (
  "canvas_id" VARCHAR, "name" VARCHAR, "description" VARCHAR, "created_at" TIMESTAMP, "updated_at" TIMESTAMP,
  "archived" BOOLEAN, "draft" BOOLEAN, "schedule_type" VARCHAR, "first_entry" TIMESTAMP, "last_entry" TIMESTAMP,
  "channels" VARCHAR[], "tags" VARCHAR[], "teams" VARCHAR[],
  "_loaded_at" TIMESTAMP, "_run_id" VARCHAR
);

CREATE TABLE IF NOT EXISTS "canvas_variants" (
  "canvas_id" VARCHAR, "variant_id" VARCHAR, "name" VARCHAR, "first_step_ids" VARCHAR[], "first_step_id" VARCHAR,
  "_loaded_at" TIMESTAMP, "_run_id" VARCHAR
);

CREATE TABLE IF NOT EXISTS "canvas_steps" (
  "canvas_id" VARCHAR, "step_id" VARCHAR, "name" VARCHAR, "type" VARCHAR, "next_step_ids" VARCHAR[],
  "next_paths" JSON, "channels" VARCHAR[], "messages" JSON,
  "_loaded_at" TIMESTAMP, "_run_id" VARCHAR
);

CREATE TABLE IF NOT EXISTS "email_templates" (
  "email_template_id" VARCHAR, "template_name" VARCHAR, "description" VARCHAR, "subject" VARCHAR, "preheader" VARCHAR,
  "body" VARCHAR, "plaintext_body" VARCHAR, "should_inline_css" BOOLEAN, "tags" VARCHAR,
  "created_at" TIMESTAMP, "updated_at" TIMESTAMP,
  "_loaded_at" TIMESTAMP, "_run_id" VARCHAR
);

CREATE TABLE IF NOT EXISTS "content_blocks" (
  "content_block_id" VARCHAR, "name" VARCHAR, "content" VARCHAR, "description" VARCHAR, "content_type" VARCHAR,
  "tags" VARCHAR[], "created_at" TIMESTAMP, "last_edited" TIMESTAMP, "inclusion_count" BIGINT, "inclusion_data" JSON,
  "_loaded_at" TIMESTAMP, "_run_id" VARCHAR
);

CREATE TABLE IF NOT EXISTS "data_integrations" (
  "integration_id" VARCHAR, "app_group_id" VARCHAR, "integration_name" VARCHAR, "integration_type" VARCHAR,
  "integration_status" VARCHAR, "contact_emails" VARCHAR, "last_updated_at" TIMESTAMP, "warehouse_type" VARCHAR,
  "last_job_start_time" TIMESTAMP, "last_job_status" VARCHAR, "next_scheduled_run" TIMESTAMP,
  "_loaded_at" TIMESTAMP, "_run_id" VARCHAR
);
