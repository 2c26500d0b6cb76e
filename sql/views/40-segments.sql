-- Segment sizes with their day-over-day change.

-- Internal: the rows of segment_size_daily. `since` (a day) leaves out the loaded sizes before it: the report's chart of
-- the last days reads only those, where the window over every day of every segment cost most of the report's queries;
-- the first day then lacks its previous_size.
CREATE OR REPLACE MACRO "analytics"."segment_size_per_day"("since" := NULL) AS TABLE
WITH "days" AS (
  SELECT s."segment_id", CAST(s."time" AS DATE) AS "day", arg_max(s."size", s."time") AS "size", max(w."watermark") AS "wm"
  FROM "main"."segment_size" s
  LEFT JOIN "analytics"."series_watermarks"('segment_size') w ON w."series_key" = 'unit=day|segment_id=' || s."segment_id"
  WHERE "since" IS NULL OR s."time" >= CAST("since" AS TIMESTAMP)
  GROUP BY ALL
)
SELECT
  d."day", d."segment_id", n."name" AS "segment_name", d."size",
  d."previous_size",
  d."size" - d."previous_size" AS "growth",
  (d."size" - d."previous_size") / NULLIF(CAST(d."previous_size" AS DOUBLE), 0) AS "growth_rate",
  "analytics"."day_complete"(d."day", d."wm") AS "complete"
FROM (
  SELECT "day", "segment_id", "size", "wm",
         CASE WHEN lag("day") OVER "w" = "day" - 1 THEN lag("size") OVER "w" END AS "previous_size"
  FROM "days" WINDOW "w" AS (PARTITION BY "segment_id" ORDER BY "day")
) d LEFT JOIN "analytics"."object_names"('segments') n ON n."id" = d."segment_id";

CREATE OR REPLACE VIEW "analytics"."segment_size_daily" AS
SELECT "day", "segment_id", "segment_name", "size", "previous_size", "growth", "growth_rate", "complete"
FROM "analytics"."segment_size_per_day"();
COMMENT ON VIEW "analytics"."segment_size_daily" IS 'Size of each segment per day, with the change from the day before. Segments overlap: never SUM sizes across segments. To fill: add the segment_size stream to the pipeline, e.g. segment_size: { segments: all }.';
COMMENT ON COLUMN "analytics"."segment_size_daily"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."segment_size_daily"."segment_id" IS 'The segment.';
COMMENT ON COLUMN "analytics"."segment_size_daily"."segment_name" IS 'The segment''s current name: from the segments stream, else from the last segment list a run read (any stream with segments: all reads it); NULL when neither has named it. Two segments may share a name: group by segment_id.';
COMMENT ON COLUMN "analytics"."segment_size_daily"."size" IS 'Users in the segment on the day (the last point of the day when the series has several).';
COMMENT ON COLUMN "analytics"."segment_size_daily"."previous_size" IS 'Users in the segment the day before; NULL when that day was not loaded.';
COMMENT ON COLUMN "analytics"."segment_size_daily"."growth" IS 'size - previous_size: users gained (negative: lost) since the day before.';
COMMENT ON COLUMN "analytics"."segment_size_daily"."growth_rate" IS 'growth / previous_size, e.g. 0.02 = +2 %; NULL without a previous day or when it was 0.';
COMMENT ON COLUMN "analytics"."segment_size_daily"."complete" IS 'True when the day had ended when its size was loaded (the series'' watermark passed it): today''s size is the estimate so far, false. False also for days a backfill has not reached.';

-- A segment's name as it was on each day of its sizes, from segments_history, as canvas_names_by_day takes a Canvas's:
-- the version current at the end of the day; before the first version seen, the first name.
CREATE OR REPLACE VIEW "analytics"."segment_names_by_day" AS
WITH "days" AS (SELECT DISTINCT "segment_id", CAST("time" AS DATE) AS "day" FROM "main"."segment_size"),
"first" AS (SELECT "segment_id", arg_min("name", "_valid_from") AS "name" FROM "main"."segments_history" GROUP BY "segment_id")
SELECT d."day", d."segment_id", COALESCE(h."name", f."name") AS "segment_name",
  "analytics"."day_complete"(d."day", w."watermark") AS "complete"
FROM "days" d
ASOF LEFT JOIN "main"."segments_history" h ON h."segment_id" = d."segment_id" AND d."day" + INTERVAL 1 DAY > h."_valid_from"
LEFT JOIN "first" f ON f."segment_id" = d."segment_id"
LEFT JOIN "analytics"."series_watermarks"('segment_size') w ON w."series_key" = 'unit=day|segment_id=' || d."segment_id";
COMMENT ON VIEW "analytics"."segment_names_by_day" IS 'The name each segment had on each day of its sizes: join it to segment_size_daily on segment_id and day to show a day''s size under that day''s name. One row per segment and day. To fill: segment_size and segments in the pipeline.';
COMMENT ON COLUMN "analytics"."segment_names_by_day"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."segment_names_by_day"."segment_id" IS 'The segment.';
COMMENT ON COLUMN "analytics"."segment_names_by_day"."segment_name" IS 'The segment''s name at the end of the day (segments_history); before the first version loaded, the first name; NULL when the segments stream never read the segment.';
COMMENT ON COLUMN "analytics"."segment_names_by_day"."complete" IS 'True when the day had ended and was loaded whole; a day still in progress may yet take a name edited later in the day.';

-- Internal: for each view above that a pipeline option fills, whether it has a row (and each hinted column a value),
-- read from the base tables with the view's own filter, since the view's window reads every day of every segment
-- even for its first row. The run's summary and the report ask these (src/views/unfilled-views.ts); each answers as its
-- view does (test/views/view-probes.test.ts).
CREATE OR REPLACE MACRO "analytics"."segment_size_daily_filled"() AS TABLE
SELECT EXISTS (FROM "main"."segment_size") AS "rows";
CREATE OR REPLACE MACRO "analytics"."segment_names_by_day_filled"() AS TABLE
SELECT EXISTS (FROM "main"."segment_size") AS "rows";
