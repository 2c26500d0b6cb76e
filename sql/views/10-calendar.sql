-- The date spine: every day from the first to the last day of any series, so a chart shows a day without data as zero.
CREATE OR REPLACE VIEW "analytics"."calendar" AS
WITH "bounds" AS (
  SELECT min("day") AS "first_day", max("day") AS "last_day" FROM (
    SELECT CAST("time" AS DATE) AS "day" FROM "main"."revenue"
    UNION ALL SELECT CAST("time" AS DATE) FROM "main"."purchase_quantity"
    UNION ALL SELECT CAST("time" AS DATE) FROM "main"."sessions"
    UNION ALL SELECT CAST("time" AS DATE) FROM "main"."segment_size"
    UNION ALL SELECT "day" FROM "main"."canvas_summary"
    UNION ALL SELECT CAST("time" AS DATE) FROM "main"."kpi_series"
    UNION ALL SELECT CAST("time" AS DATE) FROM "main"."event_counts"
    UNION ALL SELECT CAST("time" AS DATE) FROM "main"."campaign_series"
  )
)
SELECT
  CAST("d" AS DATE) AS "day",
  CAST(date_trunc('week', "d") AS DATE) AS "week_start",
  CAST(date_trunc('month', "d") AS DATE) AS "month_start",
  CAST(year("d") AS INTEGER) AS "year",
  CAST(isodow("d") AS INTEGER) AS "iso_weekday",
  isodow("d") >= 6 AS "is_weekend"
FROM "bounds", generate_series(CAST("first_day" AS TIMESTAMP), CAST("last_day" AS TIMESTAMP), INTERVAL 1 DAY) AS "s"("d")
WHERE "first_day" IS NOT NULL;
COMMENT ON VIEW "analytics"."calendar" IS 'One row per day from the first to the last day of data (UTC). LEFT JOIN a daily view to it and COALESCE the measure to 0 so a day without data shows as zero, not as a gap.';
COMMENT ON COLUMN "analytics"."calendar"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."calendar"."week_start" IS 'Monday of the ISO week holding the day.';
COMMENT ON COLUMN "analytics"."calendar"."month_start" IS 'First day of the month holding the day.';
COMMENT ON COLUMN "analytics"."calendar"."year" IS 'Calendar year of the day.';
COMMENT ON COLUMN "analytics"."calendar"."iso_weekday" IS 'ISO day of the week: 1 = Monday … 7 = Sunday.';
COMMENT ON COLUMN "analytics"."calendar"."is_weekend" IS 'True on Saturday and Sunday.';
