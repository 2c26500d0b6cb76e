-- Sessions per day. Like purchases, the '*' rows ("all apps", "all segments") get views of their own so no SUM counts a
-- session twice. A day is the series' day point when one was loaded, else the sum of its hour points.

-- Internal: one row per loaded (day, app_id, segment_id); '*' rows included.
CREATE OR REPLACE MACRO "analytics"."sessions_per_series"() AS TABLE
SELECT "app_id", "segment_id", "day", CAST(arg_min("value", "unit" <> 'day') AS BIGINT) AS "sessions",
       "analytics"."day_complete"("day", arg_min_null("wm", "unit" <> 'day')) AS "complete" FROM (
  SELECT s."app_id", s."segment_id", CAST(s."time" AS DATE) AS "day", s."unit", sum(s."sessions") AS "value", max(w."watermark") AS "wm"
  FROM "main"."sessions" s
  LEFT JOIN "analytics"."series_watermarks"('sessions') w ON w."series_key" = 'unit=' || s."unit" || '|app_id=' || s."app_id" || '|segment_id=' || s."segment_id"
  GROUP BY ALL
) GROUP BY "app_id", "segment_id", "day";

CREATE OR REPLACE VIEW "analytics"."sessions_daily" AS
SELECT "day", "sessions", "complete" FROM "analytics"."sessions_per_series"() WHERE "app_id" = '*' AND "segment_id" = '*';
COMMENT ON VIEW "analytics"."sessions_daily" IS 'Sessions per day over all apps and all users (the platform''s own totals). SUM over days is the true total.';
COMMENT ON COLUMN "analytics"."sessions_daily"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."sessions_daily"."sessions" IS 'Sessions started on the day, all apps, all users.';
COMMENT ON COLUMN "analytics"."sessions_daily"."complete" IS 'True when the day had ended and was loaded whole (the watermark of its series passed it); false for today and for days a backfill has not reached. Keep to complete days for totals and charts.';

CREATE OR REPLACE VIEW "analytics"."sessions_daily_by_app" AS
SELECT "day", "app_id", "sessions", "complete" FROM "analytics"."sessions_per_series"() WHERE "app_id" <> '*' AND "segment_id" = '*';
COMMENT ON VIEW "analytics"."sessions_daily_by_app" IS 'Sessions per day and app, all users. Holds only the apps the pipeline loads; the all-apps total is sessions_daily. To fill: list apps in the sessions stream of the pipeline, e.g. sessions: { apps: ["*", app_1] }.';
COMMENT ON COLUMN "analytics"."sessions_daily_by_app"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."sessions_daily_by_app"."app_id" IS 'The app.';
COMMENT ON COLUMN "analytics"."sessions_daily_by_app"."sessions" IS 'Sessions started in the app on the day, all users.';
COMMENT ON COLUMN "analytics"."sessions_daily_by_app"."complete" IS 'True when the day had ended and was loaded whole (the watermark of its series passed it); false for today and for days a backfill has not reached. Keep to complete days for totals and charts.';

CREATE OR REPLACE VIEW "analytics"."sessions_daily_by_segment" AS
SELECT s."day", s."segment_id", n."name" AS "segment_name", s."sessions", s."complete" FROM "analytics"."sessions_per_series"() s
LEFT JOIN "analytics"."object_names"('segments') n ON n."id" = s."segment_id" WHERE s."app_id" = '*' AND s."segment_id" <> '*';
COMMENT ON VIEW "analytics"."sessions_daily_by_segment" IS 'Sessions per day by users of a segment, all apps. Segments overlap: never SUM across segments. To fill: list segments in the sessions stream of the pipeline, e.g. sessions: { segments: ["*", seg_1] }.';
COMMENT ON COLUMN "analytics"."sessions_daily_by_segment"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."sessions_daily_by_segment"."segment_id" IS 'The segment whose users'' sessions are counted.';
COMMENT ON COLUMN "analytics"."sessions_daily_by_segment"."segment_name" IS 'The segment''s current name: from the segments stream, else from the last segment list a run read (any stream with segments: all reads it); NULL when neither has named it. Two segments may share a name: group by segment_id.';
COMMENT ON COLUMN "analytics"."sessions_daily_by_segment"."sessions" IS 'Sessions started on the day by users of the segment, all apps.';
COMMENT ON COLUMN "analytics"."sessions_daily_by_segment"."complete" IS 'True when the day had ended and was loaded whole (the watermark of its series passed it); false for today and for days a backfill has not reached. Keep to complete days for totals and charts.';

CREATE OR REPLACE VIEW "analytics"."sessions_daily_by_app_segment" AS
SELECT s."day", s."app_id", s."segment_id", n."name" AS "segment_name", s."sessions", s."complete" FROM "analytics"."sessions_per_series"() s
LEFT JOIN "analytics"."object_names"('segments') n ON n."id" = s."segment_id" WHERE s."app_id" <> '*' AND s."segment_id" <> '*';
COMMENT ON VIEW "analytics"."sessions_daily_by_app_segment" IS 'Sessions per day, app and segment: only the loaded (app, segment) pairs, no totals. Segments overlap: never SUM across segments. To fill: list apps and segments together in the sessions stream, e.g. sessions: { apps: ["*", app_1], segments: ["*", seg_1] }.';
COMMENT ON COLUMN "analytics"."sessions_daily_by_app_segment"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."sessions_daily_by_app_segment"."app_id" IS 'The app.';
COMMENT ON COLUMN "analytics"."sessions_daily_by_app_segment"."segment_id" IS 'The segment whose users'' sessions are counted.';
COMMENT ON COLUMN "analytics"."sessions_daily_by_app_segment"."segment_name" IS 'The segment''s current name: from the segments stream, else from the last segment list a run read (any stream with segments: all reads it); NULL when neither has named it. Two segments may share a name: group by segment_id.';
COMMENT ON COLUMN "analytics"."sessions_daily_by_app_segment"."sessions" IS 'Sessions started in the app on the day by users of the segment.';
COMMENT ON COLUMN "analytics"."sessions_daily_by_app_segment"."complete" IS 'True when the day had ended and was loaded whole (the watermark of its series passed it); false for today and for days a backfill has not reached. Keep to complete days for totals and charts.';

-- Internal: for each view above that a pipeline option fills, whether it has a row (and each hinted column a value),
-- read from the base tables with the view's own filter, since the view's groups read every series
-- even for its first row. The run's summary and the report ask these (src/views/unfilled-views.ts); each answers as its
-- view does (test/views/view-probes.test.ts).
CREATE OR REPLACE MACRO "analytics"."sessions_daily_by_app_filled"() AS TABLE
SELECT EXISTS (FROM "main"."sessions" WHERE "app_id" <> '*' AND "segment_id" = '*') AS "rows";
CREATE OR REPLACE MACRO "analytics"."sessions_daily_by_segment_filled"() AS TABLE
SELECT EXISTS (FROM "main"."sessions" WHERE "app_id" = '*' AND "segment_id" <> '*') AS "rows";
CREATE OR REPLACE MACRO "analytics"."sessions_daily_by_app_segment_filled"() AS TABLE
SELECT EXISTS (FROM "main"."sessions" WHERE "app_id" <> '*' AND "segment_id" <> '*') AS "rows";
