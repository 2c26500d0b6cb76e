-- Daily KPIs per app: the platform's DAU, MAU, new users and uninstalls beside the sessions and revenue of the same day
-- and app. Like purchases and sessions, the '*' rows ("all apps") get a view of their own, so no view mixes totals and
-- breakdowns. DAU and MAU count users, who may be active in several apps and on several days: they never add up.

-- Internal: one row per (day, app_id) with a KPI loaded; '*' rows included. Sessions and revenue are the all-segments,
-- all-products points of the same app and day (the day point, else the sum of hours, as in their own views).
CREATE OR REPLACE MACRO "analytics"."kpis_per_app"() AS TABLE
WITH "kpis" AS (
  SELECT
    CAST(k."time" AS DATE) AS "day", k."app_id",
    max(k."value") FILTER (WHERE k."metric" = 'dau') AS "dau",
    max(k."value") FILTER (WHERE k."metric" = 'mau') AS "mau",
    max(k."value") FILTER (WHERE k."metric" = 'new_users') AS "new_users",
    max(k."value") FILTER (WHERE k."metric" = 'uninstalls') AS "uninstalls",
    min(w."watermark") AS "wm"
  FROM "main"."kpi_series" k
  LEFT JOIN "analytics"."series_watermarks"('kpis') w ON w."series_key" = 'unit=day|metric=' || k."metric" || '|app_id=' || k."app_id"
  GROUP BY ALL
)
SELECT
  k."day", k."app_id", k."dau", k."mau", k."new_users", k."uninstalls",
  k."dau" / NULLIF(CAST(k."mau" AS DOUBLE), 0) AS "stickiness",
  s."sessions",
  s."sessions" / NULLIF(CAST(k."dau" AS DOUBLE), 0) AS "sessions_per_dau",
  p."revenue",
  CAST(p."revenue" / NULLIF(k."dau", 0) AS DECIMAL(18,4)) AS "arpdau",
  "analytics"."day_complete"(k."day", k."wm") AND COALESCE(s."complete", true) AND COALESCE(p."complete", true) AS "complete"
FROM "kpis" k
LEFT JOIN "analytics"."sessions_per_series"() s ON s."app_id" = k."app_id" AND s."segment_id" = '*' AND s."day" = k."day"
LEFT JOIN "analytics"."purchases_per_series"() p ON p."app_id" = k."app_id" AND p."product" = '*' AND p."day" = k."day";

CREATE OR REPLACE VIEW "analytics"."kpis_daily" AS
SELECT "day", "dau", "mau", "new_users", "uninstalls", "stickiness", "sessions", "sessions_per_dau", "revenue", "arpdau", "complete"
FROM "analytics"."kpis_per_app"() WHERE "app_id" = '*';
COMMENT ON VIEW "analytics"."kpis_daily" IS 'Daily KPIs over all apps (the platform''s own totals): DAU, MAU, new users, uninstalls, stickiness (DAU/MAU), sessions per DAU and ARPDAU. One row per day with a KPI loaded. DAU and MAU count distinct users: average them over days, never SUM them. To fill: add the kpis stream to the pipeline, e.g. kpis: { metrics: [dau, mau, new_users, uninstalls] }.';
COMMENT ON COLUMN "analytics"."kpis_daily"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."kpis_daily"."dau" IS 'Daily active users: distinct users with a session on the day, all apps. NULL when the dau KPI was not loaded.';
COMMENT ON COLUMN "analytics"."kpis_daily"."mau" IS 'Monthly active users: distinct users with a session in the 30 days ending on the day, all apps. NULL when not loaded.';
COMMENT ON COLUMN "analytics"."kpis_daily"."new_users" IS 'Users first seen on the day, all apps. SUM over days is the new users of the period. NULL when not loaded.';
COMMENT ON COLUMN "analytics"."kpis_daily"."uninstalls" IS 'Uninstalls on the day, all apps. SUM over days is the uninstalls of the period. NULL when not loaded.';
COMMENT ON COLUMN "analytics"."kpis_daily"."stickiness" IS 'dau / mau (stickiness), e.g. 0.2 = a monthly user is active one day in five; NULL when either is missing or mau is 0.';
COMMENT ON COLUMN "analytics"."kpis_daily"."sessions" IS 'Sessions started on the day, all apps, all users (as analytics.sessions_daily); NULL when that series was not loaded.';
COMMENT ON COLUMN "analytics"."kpis_daily"."sessions_per_dau" IS 'sessions / dau; NULL when either is missing or dau is 0.';
COMMENT ON COLUMN "analytics"."kpis_daily"."revenue" IS 'Revenue of the day, all apps and products (as analytics.purchases_daily); NULL when that series was not loaded.';
COMMENT ON COLUMN "analytics"."kpis_daily"."arpdau" IS 'Average revenue per daily active user: revenue / dau, to a hundredth of a cent; NULL when either is missing or dau is 0. Over several days use sum(revenue) / sum(dau).';
COMMENT ON COLUMN "analytics"."kpis_daily"."complete" IS 'True when the day had ended and was loaded whole: the watermark of every KPI series of the day (and of its sessions and revenue series) passed it; false for today and for days a backfill has not reached. Average complete days only.';

CREATE OR REPLACE VIEW "analytics"."kpis_daily_by_app" AS
SELECT "day", "app_id", "dau", "mau", "new_users", "uninstalls", "stickiness", "sessions", "sessions_per_dau", "revenue", "arpdau", "complete"
FROM "analytics"."kpis_per_app"() WHERE "app_id" <> '*';
COMMENT ON VIEW "analytics"."kpis_daily_by_app" IS 'Daily KPIs per app: DAU, MAU, new users, uninstalls, stickiness (DAU/MAU), sessions per DAU and ARPDAU. Holds only the apps the pipeline loads, no totals (those are kpis_daily). A user active in two apps counts in both: SUM of dau or mau over apps overstates the platform''s. To fill: list apps in the kpis stream of the pipeline, e.g. kpis: { apps: ["*", app_1] }.';
COMMENT ON COLUMN "analytics"."kpis_daily_by_app"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."kpis_daily_by_app"."app_id" IS 'The app.';
COMMENT ON COLUMN "analytics"."kpis_daily_by_app"."dau" IS 'Daily active users of the app: distinct users with a session in it on the day. NULL when the dau KPI was not loaded for the app.';
COMMENT ON COLUMN "analytics"."kpis_daily_by_app"."mau" IS 'Monthly active users of the app: distinct users with a session in it in the 30 days ending on the day. NULL when not loaded.';
COMMENT ON COLUMN "analytics"."kpis_daily_by_app"."new_users" IS 'Users first seen in the app on the day. NULL when not loaded.';
COMMENT ON COLUMN "analytics"."kpis_daily_by_app"."uninstalls" IS 'Uninstalls of the app on the day. NULL when not loaded.';
COMMENT ON COLUMN "analytics"."kpis_daily_by_app"."stickiness" IS 'dau / mau of the app; NULL when either is missing or mau is 0.';
COMMENT ON COLUMN "analytics"."kpis_daily_by_app"."sessions" IS 'Sessions started in the app on the day, all users (as analytics.sessions_daily_by_app); NULL when the pipeline does not load sessions for the app. To fill: list the apps in the sessions stream of the pipeline, e.g. sessions: { apps: ["*", app_1] }.';
COMMENT ON COLUMN "analytics"."kpis_daily_by_app"."sessions_per_dau" IS 'sessions / dau; NULL when either is missing or dau is 0. To fill: list the apps in the sessions stream of the pipeline, e.g. sessions: { apps: ["*", app_1] }.';
COMMENT ON COLUMN "analytics"."kpis_daily_by_app"."revenue" IS 'Revenue of the app on the day, all products (as analytics.purchases_daily_by_app); NULL when the pipeline does not load revenue for the app. To fill: list the apps in the revenue stream of the pipeline, e.g. revenue: { apps: ["*", app_1] }.';
COMMENT ON COLUMN "analytics"."kpis_daily_by_app"."arpdau" IS 'Average revenue per daily active user of the app: revenue / dau, to a hundredth of a cent; NULL when either is missing or dau is 0. To fill: list the apps in the revenue stream of the pipeline, e.g. revenue: { apps: ["*", app_1] }.';
COMMENT ON COLUMN "analytics"."kpis_daily_by_app"."complete" IS 'True when the day had ended and was loaded whole: the watermark of every KPI series of the day (and of its sessions and revenue series) passed it; false for today and for days a backfill has not reached. Average complete days only.';

-- Internal: for each view above that a pipeline option fills, whether it has a row (and each hinted column a value),
-- read from the base tables with the view's own filter, since the view's joins group every series of three tables
-- even for its first row. The run's summary and the report ask these (src/views/unfilled-views.ts); each answers as its
-- view does (test/views/view-probes.test.ts).
CREATE OR REPLACE MACRO "analytics"."kpis_daily_filled"() AS TABLE
SELECT EXISTS (FROM "main"."kpi_series" WHERE "app_id" = '*') AS "rows";
CREATE OR REPLACE MACRO "analytics"."kpis_daily_by_app_filled"() AS TABLE
WITH "days" AS (
  SELECT CAST("time" AS DATE) AS "day", "app_id", max("value") FILTER (WHERE "metric" = 'dau') <> 0 AS "dau_nonzero"
  FROM "main"."kpi_series" WHERE "app_id" <> '*' GROUP BY ALL
),
"sessions" AS (
  SELECT d."dau_nonzero" FROM "days" d JOIN "main"."sessions" x ON x."app_id" = d."app_id" AND CAST(x."time" AS DATE) = d."day"
  WHERE x."segment_id" = '*' AND x."sessions" IS NOT NULL AND x."unit" IS NOT NULL
),
"revenue" AS (
  SELECT d."dau_nonzero" FROM "days" d JOIN "main"."revenue" x ON x."app_id" = d."app_id" AND CAST(x."time" AS DATE) = d."day"
  WHERE x."product" = '*' AND x."revenue" IS NOT NULL AND x."unit" IS NOT NULL
)
SELECT EXISTS (FROM "days") AS "rows",
       EXISTS (FROM "sessions") AS "sessions",
       EXISTS (FROM "sessions" WHERE "dau_nonzero") AS "sessions_per_dau",
       EXISTS (FROM "revenue") AS "revenue",
       EXISTS (FROM "revenue" WHERE "dau_nonzero") AS "arpdau";
