-- Sessions per day. Like purchases, the '*' rows ("all apps", "all segments") get views of their own so no SUM counts a
-- session twice. A day is the series' day point when one was loaded, else the sum of its hour points.

-- Internal: one row per loaded (day, app_id, segment_id); '*' rows included.
CREATE OR REPLACE MACRO "analytics"."sessions_per_series"() AS TABLE
SELECT "app_id", "segment_id", "day", CAST(arg_min("value", "unit" <> 'day') AS BIGINT) AS "sessions" FROM (
  SELECT "app_id", "segment_id", CAST("time" AS DATE) AS "day", "unit", sum("sessions") AS "value"
  FROM "main"."sessions" GROUP BY ALL
) GROUP BY ALL;

CREATE OR REPLACE VIEW "analytics"."sessions_daily" AS
SELECT "day", "sessions" FROM "analytics"."sessions_per_series"() WHERE "app_id" = '*' AND "segment_id" = '*';
COMMENT ON VIEW "analytics"."sessions_daily" IS 'Sessions per day over all apps and all users (the platform''s own totals). SUM over days is the true total.';
COMMENT ON COLUMN "analytics"."sessions_daily"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."sessions_daily"."sessions" IS 'Sessions started on the day, all apps, all users.';

CREATE OR REPLACE VIEW "analytics"."sessions_daily_by_app" AS
SELECT "day", "app_id", "sessions" FROM "analytics"."sessions_per_series"() WHERE "app_id" <> '*' AND "segment_id" = '*';
COMMENT ON VIEW "analytics"."sessions_daily_by_app" IS 'Sessions per day and app, all users. Holds only the apps the pipeline loads; the all-apps total is sessions_daily.';
COMMENT ON COLUMN "analytics"."sessions_daily_by_app"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."sessions_daily_by_app"."app_id" IS 'The app.';
COMMENT ON COLUMN "analytics"."sessions_daily_by_app"."sessions" IS 'Sessions started in the app on the day, all users.';

CREATE OR REPLACE VIEW "analytics"."sessions_daily_by_segment" AS
SELECT "day", "segment_id", "sessions" FROM "analytics"."sessions_per_series"() WHERE "app_id" = '*' AND "segment_id" <> '*';
COMMENT ON VIEW "analytics"."sessions_daily_by_segment" IS 'Sessions per day by users of a segment, all apps. Segments overlap: never SUM across segments.';
COMMENT ON COLUMN "analytics"."sessions_daily_by_segment"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."sessions_daily_by_segment"."segment_id" IS 'The segment whose users'' sessions are counted.';
COMMENT ON COLUMN "analytics"."sessions_daily_by_segment"."sessions" IS 'Sessions started on the day by users of the segment, all apps.';

CREATE OR REPLACE VIEW "analytics"."sessions_daily_by_app_segment" AS
SELECT "day", "app_id", "segment_id", "sessions" FROM "analytics"."sessions_per_series"() WHERE "app_id" <> '*' AND "segment_id" <> '*';
COMMENT ON VIEW "analytics"."sessions_daily_by_app_segment" IS 'Sessions per day, app and segment: only the loaded (app, segment) pairs, no totals. Segments overlap: never SUM across segments.';
COMMENT ON COLUMN "analytics"."sessions_daily_by_app_segment"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."sessions_daily_by_app_segment"."app_id" IS 'The app.';
COMMENT ON COLUMN "analytics"."sessions_daily_by_app_segment"."segment_id" IS 'The segment whose users'' sessions are counted.';
COMMENT ON COLUMN "analytics"."sessions_daily_by_app_segment"."sessions" IS 'Sessions started in the app on the day by users of the segment.';
