-- Canvas data summary, one row per Canvas and day, with its variant, step and per-message breakdowns.
CREATE TABLE IF NOT EXISTS "canvas_summary" (
  "canvas_id" VARCHAR, "day" DATE, "name" VARCHAR, "entries" BIGINT, "conversions" BIGINT,
  "conversions_by_entry_time" BIGINT, "revenue" DOUBLE,
  "_loaded_at" TIMESTAMP, "_run_id" VARCHAR,
  "_month" VARCHAR GENERATED ALWAYS AS (strftime("day", '%Y-%m')) VIRTUAL
);

CREATE TABLE IF NOT EXISTS "canvas_variant_summary" (
  "canvas_id" VARCHAR, "day" DATE, "variant_id" VARCHAR, "name" VARCHAR, "entries" BIGINT, "conversions" BIGINT,
  "revenue" DOUBLE,
  "_loaded_at" TIMESTAMP, "_run_id" VARCHAR,
  "_month" VARCHAR GENERATED ALWAYS AS (strftime("day", '%Y-%m')) VIRTUAL
);

CREATE TABLE IF NOT EXISTS "canvas_step_summary" (
  "canvas_id" VARCHAR, "day" DATE, "step_id" VARCHAR, "name" VARCHAR, "conversions" BIGINT,
  "conversions_by_entry_time" BIGINT, "revenue" DOUBLE,
  "_loaded_at" TIMESTAMP, "_run_id" VARCHAR,
  "_month" VARCHAR GENERATED ALWAYS AS (strftime("day", '%Y-%m')) VIRTUAL
);

CREATE TABLE IF NOT EXISTS "canvas_step_messages" (
  "canvas_id" VARCHAR, "day" DATE, "step_id" VARCHAR, "channel" VARCHAR, "message_index" INTEGER,
  "sent" BIGINT, "opens" BIGINT, "influenced_opens" BIGINT, "bounces" BIGINT,
  "_loaded_at" TIMESTAMP, "_run_id" VARCHAR,
  "_month" VARCHAR GENERATED ALWAYS AS (strftime("day", '%Y-%m')) VIRTUAL
);
