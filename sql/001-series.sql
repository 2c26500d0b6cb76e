-- Analytics series, one row per series point. "*" in a filter column means "all" (the request left the filter out).
-- "_month" is virtual: it names the Parquet partition and costs no storage.
CREATE TABLE IF NOT EXISTS "purchase_quantity" (
  "app_id" VARCHAR, "product" VARCHAR, "unit" VARCHAR, "time" TIMESTAMP, "purchase_quantity" BIGINT,
  "_loaded_at" TIMESTAMP, "_run_id" VARCHAR,
  "_month" VARCHAR GENERATED ALWAYS AS (strftime("time", '%Y-%m')) VIRTUAL
);

CREATE TABLE IF NOT EXISTS "revenue" (
  "app_id" VARCHAR, "product" VARCHAR, "unit" VARCHAR, "time" TIMESTAMP, "revenue" DOUBLE,
  "_loaded_at" TIMESTAMP, "_run_id" VARCHAR,
  "_month" VARCHAR GENERATED ALWAYS AS (strftime("time", '%Y-%m')) VIRTUAL
);

CREATE TABLE IF NOT EXISTS "sessions" (
  "app_id" VARCHAR, "segment_id" VARCHAR, "unit" VARCHAR, "time" TIMESTAMP, "sessions" BIGINT,
  "_loaded_at" TIMESTAMP, "_run_id" VARCHAR,
  "_month" VARCHAR GENERATED ALWAYS AS (strftime("time", '%Y-%m')) VIRTUAL
);

CREATE TABLE IF NOT EXISTS "segment_size" (
  "segment_id" VARCHAR, "time" TIMESTAMP, "size" BIGINT,
  "_loaded_at" TIMESTAMP, "_run_id" VARCHAR,
  "_month" VARCHAR GENERATED ALWAYS AS (strftime("time", '%Y-%m')) VIRTUAL
);

-- first_seen_at is kept when a later run sees the event again, so the partition month never moves.
CREATE TABLE IF NOT EXISTS "custom_events" (
  "name" VARCHAR, "first_seen_at" TIMESTAMP, "last_seen_at" TIMESTAMP,
  "_loaded_at" TIMESTAMP, "_run_id" VARCHAR,
  "_month" VARCHAR GENERATED ALWAYS AS (strftime("first_seen_at", '%Y-%m')) VIRTUAL
);
