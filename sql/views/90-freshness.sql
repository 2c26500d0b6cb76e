-- How fresh the data is: one row per loaded series, and the log of runs.
CREATE OR REPLACE VIEW "analytics"."runs" AS
SELECT
  "run_id", "pipeline", "started_at", "finished_at", "status",
  "finished_at" - "started_at" AS "duration",
  epoch("finished_at" - "started_at") AS "duration_seconds",
  "requests", "rows_changed", "error"
FROM "main"."_etl_runs";
COMMENT ON VIEW "analytics"."runs" IS 'Every run of engage-etl: when, how long, how many API requests, rows changed, outcome.';
COMMENT ON COLUMN "analytics"."runs"."run_id" IS 'The run (its id appears in _run_id of every row it wrote).';
COMMENT ON COLUMN "analytics"."runs"."pipeline" IS 'Name of the pipeline file the run used.';
COMMENT ON COLUMN "analytics"."runs"."started_at" IS 'Start of the run (UTC).';
COMMENT ON COLUMN "analytics"."runs"."finished_at" IS 'End of the run (UTC); NULL while it runs.';
COMMENT ON COLUMN "analytics"."runs"."status" IS 'running, succeeded or failed.';
COMMENT ON COLUMN "analytics"."runs"."duration" IS 'finished_at - started_at, as an INTERVAL.';
COMMENT ON COLUMN "analytics"."runs"."duration_seconds" IS 'The duration in seconds.';
COMMENT ON COLUMN "analytics"."runs"."requests" IS 'API requests the run sent.';
COMMENT ON COLUMN "analytics"."runs"."rows_changed" IS 'Rows inserted, updated or deleted by the run.';
COMMENT ON COLUMN "analytics"."runs"."error" IS 'Why a failed run failed; NULL otherwise.';

-- "now" is taken as UTC whatever the session's TimeZone (CAST(now() AS TIMESTAMP) would give local wall-clock time).
-- open_holes: the count of open holes per series comes from the table "_etl_holes" once it exists; until then NULL.
CREATE OR REPLACE VIEW "analytics"."freshness" AS
SELECT
  s."stream", s."series_key", s."unit", s."watermark",
  make_timestamp(epoch_us(now())) - s."watermark" AS "age",
  epoch(make_timestamp(epoch_us(now())) - s."watermark") / 3600 AS "age_hours",
  s."rows_loaded",
  CAST(NULL AS BIGINT) AS "open_holes",
  s."last_run_id", r."status" AS "last_run_status",
  (SELECT max("finished_at") FROM "main"."_etl_runs" WHERE "status" = 'succeeded') AS "last_successful_run_at"
FROM "main"."_etl_series_state" s LEFT JOIN "main"."_etl_runs" r ON r."run_id" = s."last_run_id";
COMMENT ON VIEW "analytics"."freshness" IS 'One row per loaded series: how far its data reaches (watermark), how old that is, and the runs that loaded it.';
COMMENT ON COLUMN "analytics"."freshness"."stream" IS 'The stream (revenue, sessions, canvas_summary, …).';
COMMENT ON COLUMN "analytics"."freshness"."series_key" IS 'The series within the stream, e.g. unit=day|app_id=*|product=*.';
COMMENT ON COLUMN "analytics"."freshness"."unit" IS 'day or hour.';
COMMENT ON COLUMN "analytics"."freshness"."watermark" IS 'Start of the first day or hour not yet final (UTC): data before it is complete.';
COMMENT ON COLUMN "analytics"."freshness"."age" IS 'now - watermark, as an INTERVAL.';
COMMENT ON COLUMN "analytics"."freshness"."age_hours" IS 'now - watermark, in hours.';
COMMENT ON COLUMN "analytics"."freshness"."rows_loaded" IS 'Rows loaded for the series over all runs.';
COMMENT ON COLUMN "analytics"."freshness"."open_holes" IS 'Ranges the platform left unanswered and a later run must fetch again; NULL until this version records holes.';
COMMENT ON COLUMN "analytics"."freshness"."last_run_id" IS 'The run that last advanced the series.';
COMMENT ON COLUMN "analytics"."freshness"."last_run_status" IS 'Outcome of that run.';
COMMENT ON COLUMN "analytics"."freshness"."last_successful_run_at" IS 'End of the latest succeeded run of the pipeline (UTC).';
