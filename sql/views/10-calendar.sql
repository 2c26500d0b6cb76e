-- Internal: the watermark of each series of a stream, by its key (unit=day|app_id=*|product=*, as the loader writes it):
-- the start of its first unit not yet final. A unit the watermark has not passed was still in progress when it was
-- loaded (today, the current hour) or lies beyond where a backfill has reached: the views mark it `complete = false`.
CREATE OR REPLACE MACRO "analytics"."series_watermarks"("stream_name") AS TABLE
SELECT "series_key", "watermark" FROM "main"."_etl_series_state" WHERE "stream" = "stream_name";

-- Internal: whether the day `d` has ended before the watermark `wm` (false without a watermark). A view that reads a
-- day from its day point, else from its hours, takes the watermark of the same unit with arg_min_null: a day point no
-- series of the pipeline loads has none and is not complete, where arg_min would skip to the hours' watermark.
CREATE OR REPLACE MACRO "analytics"."day_complete"("d", "wm") AS COALESCE(CAST("d" AS TIMESTAMP) + INTERVAL 1 DAY <= "wm", false);

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
  isodow("d") >= 6 AS "is_weekend",
  "analytics"."day_complete"("d", "all_watermark") AND "d" >= COALESCE("all_low", "d") AS "complete"
FROM "bounds", (SELECT min("watermark") AS "all_watermark", max("low_watermark") AS "all_low" FROM "main"."_etl_series_state" WHERE "unit" IN ('day', 'hour')), generate_series(CAST("first_day" AS TIMESTAMP), CAST("last_day" AS TIMESTAMP), INTERVAL 1 DAY) AS "s"("d")
WHERE "first_day" IS NOT NULL;
COMMENT ON VIEW "analytics"."calendar" IS 'One row per day from the first to the last day of data (UTC). LEFT JOIN a daily view to it and COALESCE the measure to 0 so a day without data shows as zero, not as a gap; keep to complete days (WHERE complete), where a day without a row really had none.';
COMMENT ON COLUMN "analytics"."calendar"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."calendar"."week_start" IS 'Monday of the ISO week holding the day.';
COMMENT ON COLUMN "analytics"."calendar"."month_start" IS 'First day of the month holding the day.';
COMMENT ON COLUMN "analytics"."calendar"."year" IS 'Calendar year of the day.';
COMMENT ON COLUMN "analytics"."calendar"."iso_weekday" IS 'ISO day of the week: 1 = Monday … 7 = Sunday.';
COMMENT ON COLUMN "analytics"."calendar"."is_weekend" IS 'True on Saturday and Sunday.';
COMMENT ON COLUMN "analytics"."calendar"."complete" IS 'True when every daily and hourly series loaded has passed the day (analytics.freshness.watermark) and reaches back to it (a backfill newest first loads the older days on later nights): a day a series has not reached yet, or today, is false, so a missing value there is not loaded yet rather than zero. A series dropped from the pipeline keeps its watermark and holds this back; each daily view has its own complete column per row.';
