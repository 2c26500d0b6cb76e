-- Segment sizes with their day-over-day change.
CREATE OR REPLACE VIEW "analytics"."segment_size_daily" AS
WITH "days" AS (
  SELECT s."segment_id", CAST(s."time" AS DATE) AS "day", arg_max(s."size", s."time") AS "size", max(w."watermark") AS "wm"
  FROM "main"."segment_size" s
  LEFT JOIN "analytics"."series_watermarks"('segment_size') w ON w."series_key" = 'unit=day|segment_id=' || s."segment_id"
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
COMMENT ON VIEW "analytics"."segment_size_daily" IS 'Size of each segment per day, with the change from the day before. Segments overlap: never SUM sizes across segments. To fill: add the segment_size stream to the pipeline, e.g. segment_size: { segments: all }.';
COMMENT ON COLUMN "analytics"."segment_size_daily"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."segment_size_daily"."segment_id" IS 'The segment.';
COMMENT ON COLUMN "analytics"."segment_size_daily"."segment_name" IS 'The segment''s current name: from the segments stream, else from the last segment list a run read (any stream with segments: all reads it); NULL when neither has named it. Two segments may share a name: group by segment_id.';
COMMENT ON COLUMN "analytics"."segment_size_daily"."size" IS 'Users in the segment on the day (the last point of the day when the series has several).';
COMMENT ON COLUMN "analytics"."segment_size_daily"."previous_size" IS 'Users in the segment the day before; NULL when that day was not loaded.';
COMMENT ON COLUMN "analytics"."segment_size_daily"."growth" IS 'size - previous_size: users gained (negative: lost) since the day before.';
COMMENT ON COLUMN "analytics"."segment_size_daily"."growth_rate" IS 'growth / previous_size, e.g. 0.02 = +2 %; NULL without a previous day or when it was 0.';
COMMENT ON COLUMN "analytics"."segment_size_daily"."complete" IS 'True when the day had ended when its size was loaded (the series'' watermark passed it): today''s size is the estimate so far, false. False also for days a backfill has not reached.';
