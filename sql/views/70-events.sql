-- Custom event counts per day, with a 7-day average and the week-over-week change. Like sessions, the '*' rows ("all
-- apps", "all users") get views of their own so no SUM counts an event twice. A day is the series' day point when one
-- was loaded, else the sum of its hour points.

-- Internal: one row per loaded (event, app_id, segment_id, day); '*' rows included. The 7-day average needs all 7 days
-- of its window loaded (a partial window would read as a drop); the week before is the same weekday 7 days earlier.
-- Both are window frames over one sort: a self-join ran out of the writer's 64 MB (a run writes the report) at 440k rows.
-- `since` (a day) leaves out the loaded rows before it: the report's chart of the last weeks reads only those, where the
-- windows over every day of every event took half a second a run; the days of its first week then lack their averages.
CREATE OR REPLACE MACRO "analytics"."event_counts_per_series"("since" := NULL) AS TABLE
WITH "days" AS (
  SELECT "event", "app_id", "segment_id", "day", CAST(arg_min("value", "unit" <> 'day') AS BIGINT) AS "count",
         "analytics"."day_complete"("day", arg_min_null("wm", "unit" <> 'day')) AS "complete" FROM (
    SELECT e."event", e."app_id", e."segment_id", CAST(e."time" AS DATE) AS "day", e."unit", sum(e."count") AS "value", max(w."watermark") AS "wm"
    FROM "main"."event_counts" e
    LEFT JOIN "analytics"."series_watermarks"('event_counts') w
      ON w."series_key" = 'unit=' || e."unit" || '|event=' || e."event" || '|app_id=' || e."app_id" || '|segment_id=' || e."segment_id"
    WHERE "since" IS NULL OR e."time" >= CAST("since" AS TIMESTAMP) GROUP BY ALL
  ) GROUP BY "event", "app_id", "segment_id", "day"
)
SELECT
  "event", "app_id", "segment_id", "day", "count", "count_7d_avg", "count_week_before",
  "count" - "count_week_before" AS "wow_change",
  ("count" - "count_week_before") / NULLIF(CAST("count_week_before" AS DOUBLE), 0) AS "wow_change_rate",
  "complete"
FROM (
  SELECT
    "event", "app_id", "segment_id", "day", "count", "complete",
    CASE WHEN count(*) OVER "w7" = 7 THEN CAST(sum("count") OVER "w7" AS DOUBLE) / 7 END AS "count_7d_avg",
    max("count") OVER "week_before" AS "count_week_before"
  FROM "days"
  WINDOW
    "w7" AS (PARTITION BY "event", "app_id", "segment_id" ORDER BY "day" RANGE BETWEEN INTERVAL 6 DAYS PRECEDING AND CURRENT ROW),
    "week_before" AS (PARTITION BY "event", "app_id", "segment_id" ORDER BY "day" RANGE BETWEEN INTERVAL 7 DAYS PRECEDING AND INTERVAL 7 DAYS PRECEDING)
);

CREATE OR REPLACE VIEW "analytics"."event_counts_daily" AS
SELECT "day", "event", "count", "count_7d_avg", "count_week_before", "wow_change", "wow_change_rate", "complete"
FROM "analytics"."event_counts_per_series"() WHERE "app_id" = '*' AND "segment_id" = '*';
COMMENT ON VIEW "analytics"."event_counts_daily" IS 'Occurrences of each custom event per day over all apps and all users (the platform''s own totals), with the 7-day average and the change from the same weekday a week before. SUM over days or events counts each occurrence once. To fill: add the event_counts stream to the pipeline, e.g. event_counts: { events: all }.';
COMMENT ON COLUMN "analytics"."event_counts_daily"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."event_counts_daily"."event" IS 'The custom event name.';
COMMENT ON COLUMN "analytics"."event_counts_daily"."count" IS 'Occurrences of the event on the day, all apps, all users.';
COMMENT ON COLUMN "analytics"."event_counts_daily"."count_7d_avg" IS 'Average daily count over the 7 days ending on the day; NULL unless all 7 days are loaded.';
COMMENT ON COLUMN "analytics"."event_counts_daily"."count_week_before" IS 'count on the same weekday 7 days before; NULL when that day was not loaded.';
COMMENT ON COLUMN "analytics"."event_counts_daily"."wow_change" IS 'count - count_week_before: occurrences gained (negative: lost) against the same weekday a week before.';
COMMENT ON COLUMN "analytics"."event_counts_daily"."wow_change_rate" IS 'wow_change / count_week_before, e.g. 0.1 = +10 %; NULL without a week before or when it was 0.';
COMMENT ON COLUMN "analytics"."event_counts_daily"."complete" IS 'True when the day had ended and was loaded whole (the watermark of its series passed it); false for today and for days a backfill has not reached. Keep to complete days for totals and charts.';

CREATE OR REPLACE VIEW "analytics"."event_counts_daily_by_app" AS
SELECT "day", "event", "app_id", "count", "count_7d_avg", "count_week_before", "wow_change", "wow_change_rate", "complete"
FROM "analytics"."event_counts_per_series"() WHERE "app_id" <> '*' AND "segment_id" = '*';
COMMENT ON VIEW "analytics"."event_counts_daily_by_app" IS 'Occurrences of each custom event per day and app, all users, with the 7-day average and the week-over-week change. Holds only the apps the pipeline loads; the all-apps total is event_counts_daily. To fill: list apps in the event_counts stream of the pipeline, e.g. event_counts: { events: all, apps: ["*", app_1] }.';
COMMENT ON COLUMN "analytics"."event_counts_daily_by_app"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."event_counts_daily_by_app"."event" IS 'The custom event name.';
COMMENT ON COLUMN "analytics"."event_counts_daily_by_app"."app_id" IS 'The app.';
COMMENT ON COLUMN "analytics"."event_counts_daily_by_app"."count" IS 'Occurrences of the event on the day, in the app, all users.';
COMMENT ON COLUMN "analytics"."event_counts_daily_by_app"."count_7d_avg" IS 'Average daily count over the 7 days ending on the day; NULL unless all 7 days are loaded.';
COMMENT ON COLUMN "analytics"."event_counts_daily_by_app"."count_week_before" IS 'count on the same weekday 7 days before; NULL when that day was not loaded.';
COMMENT ON COLUMN "analytics"."event_counts_daily_by_app"."wow_change" IS 'count - count_week_before: occurrences gained (negative: lost) against the same weekday a week before.';
COMMENT ON COLUMN "analytics"."event_counts_daily_by_app"."wow_change_rate" IS 'wow_change / count_week_before, e.g. 0.1 = +10 %; NULL without a week before or when it was 0.';
COMMENT ON COLUMN "analytics"."event_counts_daily_by_app"."complete" IS 'True when the day had ended and was loaded whole (the watermark of its series passed it); false for today and for days a backfill has not reached. Keep to complete days for totals and charts.';

CREATE OR REPLACE VIEW "analytics"."event_counts_daily_by_segment" AS
SELECT e."day", e."event", e."segment_id", n."name" AS "segment_name", e."count", e."count_7d_avg", e."count_week_before", e."wow_change", e."wow_change_rate", e."complete"
FROM "analytics"."event_counts_per_series"() e LEFT JOIN "analytics"."object_names"('segments') n ON n."id" = e."segment_id"
WHERE e."app_id" = '*' AND e."segment_id" <> '*';
COMMENT ON VIEW "analytics"."event_counts_daily_by_segment" IS 'Occurrences of each custom event per day by users of a segment, all apps, with the 7-day average and the week-over-week change. Segments overlap: never SUM across segments. To fill: list segments in the event_counts stream of the pipeline, e.g. event_counts: { events: all, segments: ["*", seg_1] }.';
COMMENT ON COLUMN "analytics"."event_counts_daily_by_segment"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."event_counts_daily_by_segment"."event" IS 'The custom event name.';
COMMENT ON COLUMN "analytics"."event_counts_daily_by_segment"."segment_id" IS 'The segment whose users'' events are counted.';
COMMENT ON COLUMN "analytics"."event_counts_daily_by_segment"."segment_name" IS 'The segment''s current name: from the segments stream, else from the last segment list a run read (any stream with segments: all reads it); NULL when neither has named it. Two segments may share a name: group by segment_id.';
COMMENT ON COLUMN "analytics"."event_counts_daily_by_segment"."count" IS 'Occurrences of the event on the day, by users of the segment, all apps.';
COMMENT ON COLUMN "analytics"."event_counts_daily_by_segment"."count_7d_avg" IS 'Average daily count over the 7 days ending on the day; NULL unless all 7 days are loaded.';
COMMENT ON COLUMN "analytics"."event_counts_daily_by_segment"."count_week_before" IS 'count on the same weekday 7 days before; NULL when that day was not loaded.';
COMMENT ON COLUMN "analytics"."event_counts_daily_by_segment"."wow_change" IS 'count - count_week_before: occurrences gained (negative: lost) against the same weekday a week before.';
COMMENT ON COLUMN "analytics"."event_counts_daily_by_segment"."wow_change_rate" IS 'wow_change / count_week_before, e.g. 0.1 = +10 %; NULL without a week before or when it was 0.';
COMMENT ON COLUMN "analytics"."event_counts_daily_by_segment"."complete" IS 'True when the day had ended and was loaded whole (the watermark of its series passed it); false for today and for days a backfill has not reached. Keep to complete days for totals and charts.';

CREATE OR REPLACE VIEW "analytics"."event_counts_daily_by_app_segment" AS
SELECT e."day", e."event", e."app_id", e."segment_id", n."name" AS "segment_name", e."count", e."count_7d_avg", e."count_week_before", e."wow_change", e."wow_change_rate", e."complete"
FROM "analytics"."event_counts_per_series"() e LEFT JOIN "analytics"."object_names"('segments') n ON n."id" = e."segment_id"
WHERE e."app_id" <> '*' AND e."segment_id" <> '*';
COMMENT ON VIEW "analytics"."event_counts_daily_by_app_segment" IS 'Occurrences of each custom event per day, app and segment: only the loaded (app, segment) pairs, no totals, with the 7-day average and the week-over-week change. Segments overlap: never SUM across segments. To fill: list apps and segments together in the event_counts stream, e.g. event_counts: { events: all, apps: ["*", app_1], segments: ["*", seg_1] }.';
COMMENT ON COLUMN "analytics"."event_counts_daily_by_app_segment"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."event_counts_daily_by_app_segment"."event" IS 'The custom event name.';
COMMENT ON COLUMN "analytics"."event_counts_daily_by_app_segment"."app_id" IS 'The app.';
COMMENT ON COLUMN "analytics"."event_counts_daily_by_app_segment"."segment_id" IS 'The segment whose users'' events are counted.';
COMMENT ON COLUMN "analytics"."event_counts_daily_by_app_segment"."segment_name" IS 'The segment''s current name: from the segments stream, else from the last segment list a run read (any stream with segments: all reads it); NULL when neither has named it. Two segments may share a name: group by segment_id.';
COMMENT ON COLUMN "analytics"."event_counts_daily_by_app_segment"."count" IS 'Occurrences of the event on the day, in the app by users of the segment.';
COMMENT ON COLUMN "analytics"."event_counts_daily_by_app_segment"."count_7d_avg" IS 'Average daily count over the 7 days ending on the day; NULL unless all 7 days are loaded.';
COMMENT ON COLUMN "analytics"."event_counts_daily_by_app_segment"."count_week_before" IS 'count on the same weekday 7 days before; NULL when that day was not loaded.';
COMMENT ON COLUMN "analytics"."event_counts_daily_by_app_segment"."wow_change" IS 'count - count_week_before: occurrences gained (negative: lost) against the same weekday a week before.';
COMMENT ON COLUMN "analytics"."event_counts_daily_by_app_segment"."wow_change_rate" IS 'wow_change / count_week_before, e.g. 0.1 = +10 %; NULL without a week before or when it was 0.';
COMMENT ON COLUMN "analytics"."event_counts_daily_by_app_segment"."complete" IS 'True when the day had ended and was loaded whole (the watermark of its series passed it); false for today and for days a backfill has not reached. Keep to complete days for totals and charts.';

-- Internal: for each view above that a pipeline option fills, whether it has a row (and each hinted column a value),
-- read from the base tables with the view's own filter, since the view's windows read every day of every series
-- even for its first row. The run's summary and the report ask these (src/views/unfilled-views.ts); each answers as its
-- view does (test/views/view-probes.test.ts).
CREATE OR REPLACE MACRO "analytics"."event_counts_daily_filled"() AS TABLE
SELECT EXISTS (FROM "main"."event_counts" WHERE "app_id" = '*' AND "segment_id" = '*') AS "rows";
CREATE OR REPLACE MACRO "analytics"."event_counts_daily_by_app_filled"() AS TABLE
SELECT EXISTS (FROM "main"."event_counts" WHERE "app_id" <> '*' AND "segment_id" = '*') AS "rows";
CREATE OR REPLACE MACRO "analytics"."event_counts_daily_by_segment_filled"() AS TABLE
SELECT EXISTS (FROM "main"."event_counts" WHERE "app_id" = '*' AND "segment_id" <> '*') AS "rows";
CREATE OR REPLACE MACRO "analytics"."event_counts_daily_by_app_segment_filled"() AS TABLE
SELECT EXISTS (FROM "main"."event_counts" WHERE "app_id" <> '*' AND "segment_id" <> '*') AS "rows";
