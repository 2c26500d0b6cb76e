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
COMMENT ON COLUMN "analytics"."runs"."status" IS 'running, succeeded, completed_with_holes (finished, some units still missing: see analytics.freshness.open_holes), incomplete (published, some series failed after every retry: asked again next run), failed (published, some series failed for good: see engage-etl status) or abandoned.';
COMMENT ON COLUMN "analytics"."runs"."duration" IS 'finished_at - started_at, as an INTERVAL.';
COMMENT ON COLUMN "analytics"."runs"."duration_seconds" IS 'The duration in seconds.';
COMMENT ON COLUMN "analytics"."runs"."requests" IS 'API requests the run sent.';
COMMENT ON COLUMN "analytics"."runs"."rows_changed" IS 'Rows inserted, updated or deleted by the run.';
COMMENT ON COLUMN "analytics"."runs"."error" IS 'Why a failed run failed; NULL otherwise.';

-- "now" is taken as UTC whatever the session's TimeZone (CAST(now() AS TIMESTAMP) would give local wall-clock time).
-- The age is measured against the last unit that could be complete (src/load/series-freshness.ts): a daily series
-- whose watermark is today's 00:00 UTC holds every complete day and has age 0; a snapshot is as old as its instant.
-- A run that completed with holes, or with series that failed after every retry, published its data like a succeeded
-- one: they count as the last successful run.
CREATE OR REPLACE VIEW "analytics"."freshness" AS
SELECT
  s."stream", s."series_key", s."unit", s."watermark",
  greatest(INTERVAL 0 SECOND, date_trunc(CASE s."unit" WHEN 'day' THEN 'day' WHEN 'hour' THEN 'hour' ELSE 'microseconds' END, make_timestamp(epoch_us(now()))) - s."watermark") AS "age",
  epoch(greatest(INTERVAL 0 SECOND, date_trunc(CASE s."unit" WHEN 'day' THEN 'day' WHEN 'hour' THEN 'hour' ELSE 'microseconds' END, make_timestamp(epoch_us(now()))) - s."watermark")) / 3600 AS "age_hours",
  s."rows_loaded",
  (SELECT count(*) FROM "main"."_etl_holes" h WHERE h."stream" = s."stream" AND h."series_key" = s."series_key" AND h."status" = 'open') AS "open_holes",
  s."last_run_id", r."status" AS "last_run_status",
  (SELECT max("finished_at") FROM "main"."_etl_runs" WHERE "status" IN ('succeeded', 'completed_with_holes', 'incomplete')) AS "last_successful_run_at"
FROM "main"."_etl_series_state" s LEFT JOIN "main"."_etl_runs" r ON r."run_id" = s."last_run_id";
COMMENT ON VIEW "analytics"."freshness" IS 'One row per loaded series: how far its data reaches (watermark), how old that is, and the runs that loaded it.';
COMMENT ON COLUMN "analytics"."freshness"."stream" IS 'The stream (revenue, sessions, canvas_summary, …).';
COMMENT ON COLUMN "analytics"."freshness"."series_key" IS 'The series within the stream, e.g. unit=day|app_id=*|product=*.';
COMMENT ON COLUMN "analytics"."freshness"."unit" IS 'day or hour.';
COMMENT ON COLUMN "analytics"."freshness"."watermark" IS 'Start of the first day or hour not yet final (UTC): data before it is complete.';
COMMENT ON COLUMN "analytics"."freshness"."age" IS 'How far behind the series is: the start of the unit in progress now (today 00:00 UTC for days, this hour for hours; now for a snapshot) minus the watermark, as an INTERVAL; 0 when current.';
COMMENT ON COLUMN "analytics"."freshness"."age_hours" IS 'The age, in hours (0 when current).';
COMMENT ON COLUMN "analytics"."freshness"."rows_loaded" IS 'Rows loaded for the series over all runs.';
COMMENT ON COLUMN "analytics"."freshness"."open_holes" IS 'Units (days or hours) the platform left out of its answers that later runs still ask for (status open in _etl_holes).';
COMMENT ON COLUMN "analytics"."freshness"."last_run_id" IS 'The last run that fetched the series (advanced its watermark, or re-fetched its look-back).';
COMMENT ON COLUMN "analytics"."freshness"."last_run_status" IS 'Outcome of that run.';
COMMENT ON COLUMN "analytics"."freshness"."last_successful_run_at" IS 'End of the latest run of the pipeline that succeeded or completed with holes (UTC).';
