-- Segment sizes with their day-over-day change.
CREATE OR REPLACE VIEW "analytics"."segment_size_daily" AS
WITH "days" AS (
  SELECT "segment_id", CAST("time" AS DATE) AS "day", arg_max("size", "time") AS "size"
  FROM "main"."segment_size" GROUP BY ALL
)
SELECT
  "day", "segment_id", "size",
  "previous_size",
  "size" - "previous_size" AS "growth",
  ("size" - "previous_size") / NULLIF(CAST("previous_size" AS DOUBLE), 0) AS "growth_rate"
FROM (
  SELECT "day", "segment_id", "size",
         CASE WHEN lag("day") OVER "w" = "day" - 1 THEN lag("size") OVER "w" END AS "previous_size"
  FROM "days" WINDOW "w" AS (PARTITION BY "segment_id" ORDER BY "day")
);
COMMENT ON VIEW "analytics"."segment_size_daily" IS 'Size of each segment per day, with the change from the day before. Segments overlap: never SUM sizes across segments.';
COMMENT ON COLUMN "analytics"."segment_size_daily"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."segment_size_daily"."segment_id" IS 'The segment.';
COMMENT ON COLUMN "analytics"."segment_size_daily"."size" IS 'Users in the segment on the day (the last point of the day when the series has several).';
COMMENT ON COLUMN "analytics"."segment_size_daily"."previous_size" IS 'Users in the segment the day before; NULL when that day was not loaded.';
COMMENT ON COLUMN "analytics"."segment_size_daily"."growth" IS 'size - previous_size: users gained (negative: lost) since the day before.';
COMMENT ON COLUMN "analytics"."segment_size_daily"."growth_rate" IS 'growth / previous_size, e.g. 0.02 = +2 %; NULL without a previous day or when it was 0.';
