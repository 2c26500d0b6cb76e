-- The loader's own state: per-series watermarks, the run log, and the Parquet partitions awaiting export.
-- Keys are kept by the loader's merge (de-duplicated staging, delete then insert), not by PRIMARY KEY constraints:
-- measured on 1M rows into 1M, a PRIMARY KEY makes the merge 2-4 times slower (figures in the load report).

-- watermark: start of the first unit not yet final; the next run fetches from there.
CREATE TABLE IF NOT EXISTS "_etl_series_state" (
  "stream" VARCHAR, "series_key" VARCHAR, "unit" VARCHAR, "watermark" TIMESTAMP, "rows_loaded" BIGINT,
  "last_run_id" VARCHAR, "updated_at" TIMESTAMP
);
-- utc_offset: the offset a daily series' points were last written with (`+02:00`); NULL for hours and bare dates. Its
-- days are the dates the platform wrote; a run warns when the offset moves. Added after the first release: ALTER.
ALTER TABLE "_etl_series_state" ADD COLUMN IF NOT EXISTS "utc_offset" VARCHAR;
-- low_watermark: start of the first unit loaded; every unit in [low_watermark, watermark) is loaded or a recorded hole.
-- A backfill newest first lowers it night after night; a widened start_date extends the series backwards from it. NULL
-- for snapshots and for series loaded before the column existed: those hold everything from the start_date. ALTER.
ALTER TABLE "_etl_series_state" ADD COLUMN IF NOT EXISTS "low_watermark" TIMESTAMP;

CREATE TABLE IF NOT EXISTS "_etl_runs" (
  "run_id" VARCHAR, "pipeline" VARCHAR, "started_at" TIMESTAMP, "finished_at" TIMESTAMP, "until" TIMESTAMP,
  "status" VARCHAR, "requests" BIGINT, "rows_changed" BIGINT, "error" VARCHAR, "pid" INTEGER
);

-- partition is 'YYYY-MM' for month-partitioned tables and '' for tables exported as one file.
CREATE TABLE IF NOT EXISTS "_etl_dirty_partitions" (
  "table_name" VARCHAR, "partition" VARCHAR
);

-- Units a server left out of its answers, per series: re-requested by later runs inside the windows they send, until
-- returned (the row is then removed) or until `hole_retries` later runs could not fill them ('confirmed_absent').
-- attempts: runs that asked for the unit and did not get it.
CREATE TABLE IF NOT EXISTS "_etl_holes" (
  "stream" VARCHAR, "series_key" VARCHAR, "unit" VARCHAR, "unit_start" TIMESTAMP, "status" VARCHAR, "attempts" INTEGER,
  "reason" VARCHAR, "first_run_id" VARCHAR, "last_run_id" VARCHAR, "updated_at" TIMESTAMP
);

-- The last outcome of each stream: 'succeeded' or 'failed' (with its one-line reason). A failed stream kept the rows
-- and state of the last run that completed it (streams fail alone); `engage-etl status` shows this table.
CREATE TABLE IF NOT EXISTS "_etl_stream_outcomes" (
  "stream" VARCHAR, "status" VARCHAR, "error" VARCHAR, "run_id" VARCHAR, "finished_at" TIMESTAMP,
  "last_success_run_id" VARCHAR, "last_success_at" TIMESTAMP
);

-- Settings a database keeps between runs: key 'workspace' = the pipeline's `workspace:` (which workspace of a shared
-- lake this database exports; absent when the pipeline names none). The analyst views read it. Key 'database_id' = this
-- database's identity, written into every manifest it publishes (src/export/lake-owner.ts).
CREATE TABLE IF NOT EXISTS "_etl_settings" (
  "key" VARCHAR, "value" VARCHAR
);

-- Schema "_etl_extents": per series table (a table of the same name), time ranges per object (the first key column that
-- is not the time, as text) and month ('YYYY-MM') that hold every stored row. A fetched row outside its object's ranges
-- in its month cannot match a stored key and is inserted without comparing (src/load/bulk-merge.ts). Merges append the
-- ranges they insert. Before its first merge into a table, a process keeps its ranges if their stamp still holds and
-- otherwise replaces them with those of the table's rows.
CREATE SCHEMA IF NOT EXISTS "_etl_extents";

-- The stamp of each table's ranges, written by every merge into it: the ranges' format and the row counts of the table
-- and of its ranges when the merge committed. Counts that no longer match mean another program wrote the table or its
-- ranges, and the ranges are rebuilt.
CREATE TABLE IF NOT EXISTS "_etl_extents_stamps" (
  "table_name" VARCHAR, "format" INTEGER, "table_rows" BIGINT, "extent_rows" BIGINT
);

-- The series the last run of each stream could not complete (one row per series; a stream's rows are replaced by each
-- run of it): object_id is the one object or id the failure concerns; retriable says whether running again can help
-- (retries exhausted on 429/5xx) or something must change first (a 4xx, an unknown id, a body that does not match).
-- `engage-etl status` shows them.
CREATE TABLE IF NOT EXISTS "_etl_series_failures" (
  "stream" VARCHAR, "series_key" VARCHAR, "object_id" VARCHAR, "error" VARCHAR, "retriable" BOOLEAN, "run_id" VARCHAR,
  "failed_at" TIMESTAMP
);

-- How far each series stream's backfill has come, as of its last run: the days its series loaded from the first day
-- asked (days_covered, averaged over the stream's series) of the days asked (to the last complete day).
CREATE TABLE IF NOT EXISTS "_etl_backfill" (
  "stream" VARCHAR, "series" INTEGER, "series_complete" INTEGER, "days_asked" INTEGER, "days_covered" INTEGER,
  "run_id" VARCHAR, "updated_at" TIMESTAMP
);
-- series_started: series with a loaded range; loaded_from .. loaded_to: the range every started series holds (the latest
-- low watermark, the earliest high one); backfill_order: the pipeline's order, which end the range grows from. ALTER.
ALTER TABLE "_etl_backfill" ADD COLUMN IF NOT EXISTS "series_started" INTEGER;
ALTER TABLE "_etl_backfill" ADD COLUMN IF NOT EXISTS "loaded_from" TIMESTAMP;
ALTER TABLE "_etl_backfill" ADD COLUMN IF NOT EXISTS "loaded_to" TIMESTAMP;
ALTER TABLE "_etl_backfill" ADD COLUMN IF NOT EXISTS "backfill_order" VARCHAR;
