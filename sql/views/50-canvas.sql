-- Canvas performance: per Canvas and day, per variant and day, and the conversions credited to each step of a Canvas.
CREATE OR REPLACE VIEW "analytics"."canvas_daily" AS
SELECT
  s."day", s."canvas_id", n."name" AS "canvas_name",
  s."entries", s."conversions", s."conversions_by_entry_time",
  s."conversions" / NULLIF(CAST(s."entries" AS DOUBLE), 0) AS "conversion_rate",
  s."revenue",
  "analytics"."day_complete"(s."day", w."watermark") AS "complete"
FROM "main"."canvas_summary" s LEFT JOIN "analytics"."object_names"('canvases') n ON n."id" = s."canvas_id"
LEFT JOIN "analytics"."series_watermarks"('canvas_summary') w ON w."series_key" = 'unit=day|canvas_id=' || s."canvas_id";
COMMENT ON VIEW "analytics"."canvas_daily" IS 'Each Canvas per day: entries, conversions, conversion rate and revenue. One row per Canvas and day; SUM over days or Canvases counts each entry once. To fill: add the canvas_summary stream to the pipeline, e.g. canvas_summary: { canvases: all }.';
COMMENT ON COLUMN "analytics"."canvas_daily"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."canvas_daily"."canvas_id" IS 'The Canvas.';
COMMENT ON COLUMN "analytics"."canvas_daily"."canvas_name" IS 'The Canvas''s current name: from canvas_details, else from the last Canvas list a run read (any stream with canvases: all reads it), else from the Canvas''s latest summary day.';
COMMENT ON COLUMN "analytics"."canvas_daily"."entries" IS 'Users who entered the Canvas on the day.';
COMMENT ON COLUMN "analytics"."canvas_daily"."conversions" IS 'Conversions counted on the day.';
COMMENT ON COLUMN "analytics"."canvas_daily"."conversions_by_entry_time" IS 'Conversions credited to the day the user entered.';
COMMENT ON COLUMN "analytics"."canvas_daily"."conversion_rate" IS 'conversions / entries; NULL on a day without entries. Average it over days as sum(conversions) / sum(entries), not avg(conversion_rate).';
COMMENT ON COLUMN "analytics"."canvas_daily"."revenue" IS 'Revenue attributed to the Canvas on the day, USD exact to the cent (DECIMAL).';
COMMENT ON COLUMN "analytics"."canvas_daily"."complete" IS 'True when the day had ended and was loaded whole (the watermark of its series passed it); false for today and for days a backfill has not reached. Keep to complete days for totals and charts.';

CREATE OR REPLACE VIEW "analytics"."canvas_variant_daily" AS
SELECT
  v."day", v."canvas_id", n."name" AS "canvas_name", v."variant_id",
  COALESCE(cv."name", v."name") AS "variant_name",
  v."entries", v."conversions",
  v."conversions" / NULLIF(CAST(v."entries" AS DOUBLE), 0) AS "conversion_rate",
  v."revenue",
  "analytics"."day_complete"(v."day", w."watermark") AS "complete"
FROM "main"."canvas_variant_summary" v
LEFT JOIN "analytics"."series_watermarks"('canvas_summary') w ON w."series_key" = 'unit=day|canvas_id=' || v."canvas_id"
LEFT JOIN "analytics"."object_names"('canvases') n ON n."id" = v."canvas_id"
LEFT JOIN "main"."canvas_variants" cv ON cv."canvas_id" = v."canvas_id" AND cv."variant_id" = v."variant_id";
COMMENT ON VIEW "analytics"."canvas_variant_daily" IS 'Each Canvas variant per day: entries, conversions, conversion rate and revenue. One row per Canvas, variant and day. To fill: ask for the variant breakdown, canvas_summary: { variant_breakdown: true }.';
COMMENT ON COLUMN "analytics"."canvas_variant_daily"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."canvas_variant_daily"."canvas_id" IS 'The Canvas.';
COMMENT ON COLUMN "analytics"."canvas_variant_daily"."canvas_name" IS 'The Canvas''s current name: from canvas_details, else from the last Canvas list a run read (any stream with canvases: all reads it), else from the Canvas''s latest summary day.';
COMMENT ON COLUMN "analytics"."canvas_variant_daily"."variant_id" IS 'The variant.';
COMMENT ON COLUMN "analytics"."canvas_variant_daily"."variant_name" IS 'The variant''s current name.';
COMMENT ON COLUMN "analytics"."canvas_variant_daily"."entries" IS 'Users who entered the variant on the day.';
COMMENT ON COLUMN "analytics"."canvas_variant_daily"."conversions" IS 'Conversions of the variant counted on the day.';
COMMENT ON COLUMN "analytics"."canvas_variant_daily"."conversion_rate" IS 'conversions / entries; NULL on a day without entries. Over several days use sum(conversions) / sum(entries).';
COMMENT ON COLUMN "analytics"."canvas_variant_daily"."revenue" IS 'Revenue attributed to the variant on the day.';
COMMENT ON COLUMN "analytics"."canvas_variant_daily"."complete" IS 'True when the day had ended and was loaded whole (the watermark of its series passed it); false for today and for days a backfill has not reached. Keep to complete days for totals and charts.';

-- A step's position is its distance from a variant's first step along next_step_ids (the shortest path when paths join).
-- The edges are unnested once, before the walk: unnested inside it, each step of the walk joined them anew.
CREATE OR REPLACE VIEW "analytics"."canvas_step_conversions" AS
WITH RECURSIVE "edges" AS (SELECT "canvas_id", "step_id", unnest("next_step_ids") AS "next_id" FROM "main"."canvas_steps"),
"walk"("canvas_id", "step_id", "depth") AS (
  SELECT "canvas_id", "first_step_id", 1 FROM "main"."canvas_variants" WHERE "first_step_id" IS NOT NULL
  UNION
  SELECT e."canvas_id", e."next_id", w."depth" + 1
  FROM "walk" w
  JOIN "edges" e ON e."canvas_id" = w."canvas_id" AND e."step_id" = w."step_id"
  WHERE w."depth" < 100
),
"positions" AS (SELECT "canvas_id", "step_id", min("depth") AS "position" FROM "walk" GROUP BY ALL),
"sent" AS (SELECT "canvas_id", "step_id", sum("sent") AS "messages_sent", sum("opens") AS "opens" FROM "main"."canvas_step_messages" GROUP BY ALL),
"steps" AS (
  SELECT "canvas_id", "step_id", arg_max("name", "day") AS "name", sum("conversions") AS "conversions", sum("revenue") AS "revenue",
         min("day") AS "first_day", max("day") AS "last_day"
  FROM "main"."canvas_step_summary" GROUP BY ALL
),
"entries" AS (SELECT "canvas_id", sum("entries") AS "entries" FROM "main"."canvas_summary" GROUP BY ALL)
SELECT
  st."canvas_id", n."name" AS "canvas_name", p."position", st."step_id", COALESCE(cs."name", st."name") AS "step_name", cs."type" AS "step_type",
  CAST(COALESCE(se."messages_sent", 0) AS BIGINT) AS "messages_sent", CAST(COALESCE(se."opens", 0) AS BIGINT) AS "opens",
  CAST(st."conversions" AS BIGINT) AS "conversions", st."revenue",
  CAST(e."entries" AS BIGINT) AS "canvas_entries",
  st."conversions" / NULLIF(CAST(e."entries" AS DOUBLE), 0) AS "conversions_per_entry",
  st."first_day", st."last_day"
FROM "steps" st
LEFT JOIN "positions" p ON p."canvas_id" = st."canvas_id" AND p."step_id" = st."step_id"
LEFT JOIN "sent" se ON se."canvas_id" = st."canvas_id" AND se."step_id" = st."step_id"
LEFT JOIN "entries" e ON e."canvas_id" = st."canvas_id"
LEFT JOIN "analytics"."object_names"('canvases') n ON n."id" = st."canvas_id"
LEFT JOIN "main"."canvas_steps" cs ON cs."canvas_id" = st."canvas_id" AND cs."step_id" = st."step_id";
COMMENT ON VIEW "analytics"."canvas_step_conversions" IS 'The conversions and revenue the platform credits to each step of a Canvas over every loaded day, with the messages the step sent and their opens: one row per Canvas and step, position giving the path order. A row counts what is credited to its step, not the users who reached it: a later step is often credited more than the step before it, so the rows are not stages that users pass through in turn, and conversions must not be summed along a path or across a Canvas''s steps (the Canvas''s own conversions are in canvas_daily). To fill: ask for the step breakdown, canvas_summary: { step_breakdown: true }, and add canvas_details: { canvases: all } for the path order.';
COMMENT ON COLUMN "analytics"."canvas_step_conversions"."canvas_id" IS 'The Canvas.';
COMMENT ON COLUMN "analytics"."canvas_step_conversions"."canvas_name" IS 'The Canvas''s current name: from canvas_details, else from the last Canvas list a run read (any stream with canvases: all reads it), else from the Canvas''s latest summary day.';
COMMENT ON COLUMN "analytics"."canvas_step_conversions"."position" IS 'Steps from a variant''s first step (1 = first step) along the shortest path; NULL for a step no path reaches (deleted or detached) or when canvas_details is not loaded. An order of the steps, not of users passing through them.';
COMMENT ON COLUMN "analytics"."canvas_step_conversions"."step_id" IS 'The step.';
COMMENT ON COLUMN "analytics"."canvas_step_conversions"."step_name" IS 'The step''s current name: from canvas_details, else from the step''s latest summary day.';
COMMENT ON COLUMN "analytics"."canvas_step_conversions"."step_type" IS 'message, delay, decision_split, audience_paths, …; NULL when the step is no longer in the Canvas.';
COMMENT ON COLUMN "analytics"."canvas_step_conversions"."messages_sent" IS 'Messages the step sent, summed over its channels (a user reached by email and push counts twice).';
COMMENT ON COLUMN "analytics"."canvas_step_conversions"."opens" IS 'Opens of the step''s messages, summed over its channels: the spec''s opens field of each message (push: every open, as total_opens; SMS and webhooks have none). The channel''s own fields (direct_opens, impressions…) are in the table canvas_step_messages.';
COMMENT ON COLUMN "analytics"."canvas_step_conversions"."conversions" IS 'Conversions the platform credits to the step over every loaded day. Not a count of users who went on past the step: never sum it along a path or across steps.';
COMMENT ON COLUMN "analytics"."canvas_step_conversions"."revenue" IS 'Revenue the platform credits to the step over every loaded day.';
COMMENT ON COLUMN "analytics"."canvas_step_conversions"."canvas_entries" IS 'Entries into the Canvas over every loaded day (as canvas_daily counts them), the same on every row of the Canvas.';
COMMENT ON COLUMN "analytics"."canvas_step_conversions"."conversions_per_entry" IS 'conversions / canvas_entries: the step''s credited conversions per entry into the Canvas.';
COMMENT ON COLUMN "analytics"."canvas_step_conversions"."first_day" IS 'First day with data for the step.';
COMMENT ON COLUMN "analytics"."canvas_step_conversions"."last_day" IS 'Last day with data for the step.';

-- The view's former name, kept for one release so that saved queries keep working while they move to the new one.
CREATE OR REPLACE VIEW "analytics"."canvas_step_funnel" AS SELECT * FROM "analytics"."canvas_step_conversions";
COMMENT ON VIEW "analytics"."canvas_step_funnel" IS 'Deprecated, removed in the next release: use analytics.canvas_step_conversions, which holds the same rows. The old name read as a funnel, which the rows are not: each counts the conversions credited to one step.';
COMMENT ON COLUMN "analytics"."canvas_step_funnel"."canvas_id" IS 'See canvas_step_conversions.canvas_id (this view is deprecated).';
COMMENT ON COLUMN "analytics"."canvas_step_funnel"."canvas_name" IS 'See canvas_step_conversions.canvas_name (this view is deprecated).';
COMMENT ON COLUMN "analytics"."canvas_step_funnel"."position" IS 'See canvas_step_conversions.position (this view is deprecated).';
COMMENT ON COLUMN "analytics"."canvas_step_funnel"."step_id" IS 'See canvas_step_conversions.step_id (this view is deprecated).';
COMMENT ON COLUMN "analytics"."canvas_step_funnel"."step_name" IS 'See canvas_step_conversions.step_name (this view is deprecated).';
COMMENT ON COLUMN "analytics"."canvas_step_funnel"."step_type" IS 'See canvas_step_conversions.step_type (this view is deprecated).';
COMMENT ON COLUMN "analytics"."canvas_step_funnel"."messages_sent" IS 'See canvas_step_conversions.messages_sent (this view is deprecated).';
COMMENT ON COLUMN "analytics"."canvas_step_funnel"."opens" IS 'See canvas_step_conversions.opens (this view is deprecated).';
COMMENT ON COLUMN "analytics"."canvas_step_funnel"."conversions" IS 'See canvas_step_conversions.conversions (this view is deprecated).';
COMMENT ON COLUMN "analytics"."canvas_step_funnel"."revenue" IS 'See canvas_step_conversions.revenue (this view is deprecated).';
COMMENT ON COLUMN "analytics"."canvas_step_funnel"."canvas_entries" IS 'See canvas_step_conversions.canvas_entries (this view is deprecated).';
COMMENT ON COLUMN "analytics"."canvas_step_funnel"."conversions_per_entry" IS 'See canvas_step_conversions.conversions_per_entry (this view is deprecated).';
COMMENT ON COLUMN "analytics"."canvas_step_funnel"."first_day" IS 'See canvas_step_conversions.first_day (this view is deprecated).';
COMMENT ON COLUMN "analytics"."canvas_step_funnel"."last_day" IS 'See canvas_step_conversions.last_day (this view is deprecated).';

-- A Canvas's name as it was on each day of its summaries, from canvases_history: the version current at the end of the
-- day (so a day takes the name the Canvas had when the day's numbers were complete); a day before the first version
-- engage-etl saw takes that first name, a day after the Canvas was removed its last one.
CREATE OR REPLACE VIEW "analytics"."canvas_names_by_day" AS
WITH "days" AS (SELECT DISTINCT "canvas_id", "day" FROM "main"."canvas_summary"),
"first" AS (SELECT "canvas_id", arg_min("name", "_valid_from") AS "name" FROM "main"."canvases_history" GROUP BY "canvas_id")
SELECT d."day", d."canvas_id", COALESCE(h."name", f."name") AS "canvas_name",
  "analytics"."day_complete"(d."day", w."watermark") AS "complete"
FROM "days" d
ASOF LEFT JOIN "main"."canvases_history" h ON h."canvas_id" = d."canvas_id" AND d."day" + INTERVAL 1 DAY > h."_valid_from"
LEFT JOIN "first" f ON f."canvas_id" = d."canvas_id"
LEFT JOIN "analytics"."series_watermarks"('canvas_summary') w ON w."series_key" = 'unit=day|canvas_id=' || d."canvas_id";
COMMENT ON VIEW "analytics"."canvas_names_by_day" IS 'The name each Canvas had on each day of its summaries: join it to canvas_daily on canvas_id and day to show March''s numbers under March''s name. One row per Canvas and day. To fill: canvas_summary and canvas_details in the pipeline.';
COMMENT ON COLUMN "analytics"."canvas_names_by_day"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."canvas_names_by_day"."canvas_id" IS 'The Canvas.';
COMMENT ON COLUMN "analytics"."canvas_names_by_day"."canvas_name" IS 'The Canvas''s name at the end of the day (canvases_history); before the first version loaded, the first name; NULL when canvas_details never read the Canvas.';
COMMENT ON COLUMN "analytics"."canvas_names_by_day"."complete" IS 'True when the day had ended and was loaded whole; a day still in progress may yet take a name edited later in the day.';

-- A Canvas variant's name as it was on each day of its summaries, from canvas_variants_history, as canvas_names_by_day
-- takes a Canvas's: the version current at the end of the day; before the first version seen, the first name.
CREATE OR REPLACE VIEW "analytics"."canvas_variant_names_by_day" AS
WITH "days" AS (SELECT DISTINCT "canvas_id", "variant_id", "day" FROM "main"."canvas_variant_summary"),
"first" AS (SELECT "canvas_id", "variant_id", arg_min("name", "_valid_from") AS "name" FROM "main"."canvas_variants_history" GROUP BY ALL)
SELECT d."day", d."canvas_id", d."variant_id", COALESCE(h."name", f."name") AS "variant_name",
  "analytics"."day_complete"(d."day", w."watermark") AS "complete"
FROM "days" d
ASOF LEFT JOIN "main"."canvas_variants_history" h ON h."canvas_id" = d."canvas_id" AND h."variant_id" = d."variant_id" AND d."day" + INTERVAL 1 DAY > h."_valid_from"
LEFT JOIN "first" f ON f."canvas_id" = d."canvas_id" AND f."variant_id" = d."variant_id"
LEFT JOIN "analytics"."series_watermarks"('canvas_summary') w ON w."series_key" = 'unit=day|canvas_id=' || d."canvas_id";
COMMENT ON VIEW "analytics"."canvas_variant_names_by_day" IS 'The name each Canvas variant had on each day of its summaries: join it to canvas_variant_daily on canvas_id, variant_id and day to show a day''s numbers under that day''s variant name. One row per Canvas, variant and day. To fill: canvas_summary: { variant_breakdown: true } and canvas_details in the pipeline.';
COMMENT ON COLUMN "analytics"."canvas_variant_names_by_day"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."canvas_variant_names_by_day"."canvas_id" IS 'The Canvas.';
COMMENT ON COLUMN "analytics"."canvas_variant_names_by_day"."variant_id" IS 'The variant.';
COMMENT ON COLUMN "analytics"."canvas_variant_names_by_day"."variant_name" IS 'The variant''s name at the end of the day (canvas_variants_history); before the first version loaded, the first name; NULL when canvas_details never read the variant.';
COMMENT ON COLUMN "analytics"."canvas_variant_names_by_day"."complete" IS 'True when the day had ended and was loaded whole; a day still in progress may yet take a name edited later in the day.';

-- A Canvas step's name as it was on each day of its summaries, from canvas_steps_history, the same way.
CREATE OR REPLACE VIEW "analytics"."canvas_step_names_by_day" AS
WITH "days" AS (SELECT DISTINCT "canvas_id", "step_id", "day" FROM "main"."canvas_step_summary"),
"first" AS (SELECT "canvas_id", "step_id", arg_min("name", "_valid_from") AS "name" FROM "main"."canvas_steps_history" GROUP BY ALL)
SELECT d."day", d."canvas_id", d."step_id", COALESCE(h."name", f."name") AS "step_name",
  "analytics"."day_complete"(d."day", w."watermark") AS "complete"
FROM "days" d
ASOF LEFT JOIN "main"."canvas_steps_history" h ON h."canvas_id" = d."canvas_id" AND h."step_id" = d."step_id" AND d."day" + INTERVAL 1 DAY > h."_valid_from"
LEFT JOIN "first" f ON f."canvas_id" = d."canvas_id" AND f."step_id" = d."step_id"
LEFT JOIN "analytics"."series_watermarks"('canvas_summary') w ON w."series_key" = 'unit=day|canvas_id=' || d."canvas_id";
COMMENT ON VIEW "analytics"."canvas_step_names_by_day" IS 'The name each Canvas step had on each day of its summaries: join it to canvas_step_summary on canvas_id, step_id and day to show a day''s conversions under that day''s step name. One row per Canvas, step and day. To fill: canvas_summary: { step_breakdown: true } and canvas_details in the pipeline.';
COMMENT ON COLUMN "analytics"."canvas_step_names_by_day"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."canvas_step_names_by_day"."canvas_id" IS 'The Canvas.';
COMMENT ON COLUMN "analytics"."canvas_step_names_by_day"."step_id" IS 'The step.';
COMMENT ON COLUMN "analytics"."canvas_step_names_by_day"."step_name" IS 'The step''s name at the end of the day (canvas_steps_history); before the first version loaded, the first name; NULL when canvas_details never read the step.';
COMMENT ON COLUMN "analytics"."canvas_step_names_by_day"."complete" IS 'True when the day had ended and was loaded whole; a day still in progress may yet take a name edited later in the day.';

-- Internal: for each view above that a pipeline option fills, whether it has a row (and each hinted column a value),
-- read from the base tables with the view's own filter, since the view's joins read every Canvas and day
-- even for its first row. The run's summary and the report ask these (src/views/unfilled-views.ts); each answers as its
-- view does (test/views/view-probes.test.ts).
CREATE OR REPLACE MACRO "analytics"."canvas_daily_filled"() AS TABLE
SELECT EXISTS (FROM "main"."canvas_summary") AS "rows";
CREATE OR REPLACE MACRO "analytics"."canvas_variant_daily_filled"() AS TABLE
SELECT EXISTS (FROM "main"."canvas_variant_summary") AS "rows";
CREATE OR REPLACE MACRO "analytics"."canvas_step_conversions_filled"() AS TABLE
SELECT EXISTS (FROM "main"."canvas_step_summary") AS "rows";
CREATE OR REPLACE MACRO "analytics"."canvas_names_by_day_filled"() AS TABLE
SELECT EXISTS (FROM "main"."canvas_summary") AS "rows";
CREATE OR REPLACE MACRO "analytics"."canvas_variant_names_by_day_filled"() AS TABLE
SELECT EXISTS (FROM "main"."canvas_variant_summary") AS "rows";
CREATE OR REPLACE MACRO "analytics"."canvas_step_names_by_day_filled"() AS TABLE
SELECT EXISTS (FROM "main"."canvas_step_summary") AS "rows";
