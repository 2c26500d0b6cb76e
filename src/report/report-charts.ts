// The charts of the HTML report, one entry each: a query over the analyst views returning one row per mark (columns
// "x", "series", "y"), and how to draw it. A chart over a new view is one more entry here.

export interface ChartSpec {
  /** Stable id: the report's `data-chart` attribute and the browser test's handle. */
  id: string;
  title: string;
  /** One sentence under the title: what is shown and over which period. */
  caption: string;
  /** One row per mark: "x" (DATE, TIMESTAMP or text), "series" (text), "y" (number, never NULL). */
  sql: string;
  kind: 'line' | 'bar';
  /** How the y values read. @default 'number' */
  yFormat?: 'number' | 'percent';
  /** Bars of several series: stacked when they are parts of one whole, side by side when they are rates. @default 'stacked' */
  barLayout?: 'stacked' | 'grouped';
}

/** Days the daily charts show, ending with the last day of data. */
const REPORT_DAYS = 90;

/** Events the events chart follows: the most frequent over REPORT_DAYS. */
const TOP_EVENTS = 5;

/** Bars of the campaign rates chart: the (campaign, channel) pairs that sent most. */
const TOP_CAMPAIGN_MESSAGES = 12;

// A whole workspace (`all`) holds a hundred segments and Canvases: the charts follow the largest few, so the report stays
// readable and small (the demo's was 3.4 MB with every segment drawn).
/** Segments the segment chart follows: the largest on the last day. */
const TOP_SEGMENTS = 10;
/** Canvas variants the conversion chart shows: those with most entries. */
const TOP_VARIANTS = 20;
/** Canvases the step funnel shows: those with most conversions. */
const TOP_FUNNELS = 6;

/**
 * Complete days only (the views' `complete`: the series' watermark passed the day): the day in progress holds only its
 * first hours, and drawn beside whole days it read as a collapse of every series on the last day.
 */
const COMPLETE_DAYS = `"complete"`;

/** The last day of event_counts_daily (all apps, all users), read from the table. */
const ALL_EVENTS_LAST_DAY = `SELECT CAST(max("time") AS DATE) FROM "main"."event_counts" WHERE "app_id" = '*' AND "segment_id" = '*'`;

const lastDays = (view: string) => `"day" > (SELECT max("day") FROM "analytics"."${view}" WHERE ${COMPLETE_DAYS}) - ${REPORT_DAYS} AND ${COMPLETE_DAYS}`;

/** A measure per day from a totals view ("All apps") and its per-app view, last REPORT_DAYS days; NULL (not loaded) left out. */
const allAndPerApp = (totals: string, perApp: string, measure: string) =>
  `SELECT "day" AS "x", 'All apps' AS "series", "${measure}" AS "y" FROM "analytics"."${totals}" WHERE "${measure}" IS NOT NULL AND ${lastDays(totals)}
   UNION ALL
   SELECT "day", "app_id", "${measure}" FROM "analytics"."${perApp}" WHERE "${measure}" IS NOT NULL AND ${lastDays(perApp)}
   ORDER BY "series", "x"`;

/** A measure of the last 30 runs that have it, one bar per run labelled by its id (its start time, unique) and outcome. */
const recentRuns = (measure: string, series: string) =>
  `SELECT "run_id" || ' ' || "status" AS "x", '${series}' AS "series", "${measure}" AS "y"
   FROM (SELECT * FROM "analytics"."runs" WHERE "${measure}" IS NOT NULL ORDER BY "started_at" DESC LIMIT 30) ORDER BY "started_at"`;

export const CHARTS: readonly ChartSpec[] = [
  {
    id: 'revenue',
    title: 'Revenue per day',
    caption: `All apps (the platform's total) and each loaded app, last ${REPORT_DAYS} complete days.`,
    kind: 'line',
    sql: allAndPerApp('purchases_daily', 'purchases_daily_by_app', 'revenue'),
  },
  {
    id: 'purchases',
    title: 'Purchases per day',
    caption: `All apps and each loaded app, last ${REPORT_DAYS} complete days.`,
    kind: 'line',
    sql: allAndPerApp('purchases_daily', 'purchases_daily_by_app', 'purchases'),
  },
  {
    id: 'sessions',
    title: 'Sessions per day',
    caption: `All apps and each loaded app, last ${REPORT_DAYS} complete days.`,
    kind: 'line',
    sql: allAndPerApp('sessions_daily', 'sessions_daily_by_app', 'sessions'),
  },
  {
    id: 'stickiness',
    title: 'DAU / MAU (stickiness) per day',
    caption: `Daily over monthly active users: all apps and each loaded app, last ${REPORT_DAYS} complete days.`,
    kind: 'line',
    yFormat: 'percent',
    sql: allAndPerApp('kpis_daily', 'kpis_daily_by_app', 'stickiness'),
  },
  {
    id: 'events',
    title: 'Top events',
    caption: `7-day average of the daily count of the ${TOP_EVENTS} most frequent custom events (all apps, all users), last ${REPORT_DAYS} complete days.`,
    kind: 'line',
    // The view's macro from the week before the chart's first day on: the same values, without the windows over 2 years.
    sql: `WITH "recent" AS (
            SELECT "day", "event", "count", "count_7d_avg" FROM "analytics"."event_counts_per_series"("since" := (${ALL_EVENTS_LAST_DAY}) - ${REPORT_DAYS + 7})
            WHERE "app_id" = '*' AND "segment_id" = '*' AND "day" > (${ALL_EVENTS_LAST_DAY}) - ${REPORT_DAYS} AND ${COMPLETE_DAYS}),
          "top" AS (SELECT "event" FROM "recent" GROUP BY ALL ORDER BY sum("count") DESC, "event" LIMIT ${TOP_EVENTS})
          SELECT "day" AS "x", "event" AS "series", "count_7d_avg" AS "y" FROM "recent"
          WHERE "event" IN (SELECT "event" FROM "top") AND "count_7d_avg" IS NOT NULL ORDER BY "series", "x"`,
  },
  {
    id: 'segments',
    title: 'Segment sizes',
    caption: `Users per day in the ${TOP_SEGMENTS} largest loaded segments (on the last day), last ${REPORT_DAYS} complete days (segments overlap).`,
    kind: 'line',
    sql: `WITH "top" AS (SELECT "segment_id" FROM "analytics"."segment_size_daily" WHERE "day" = (SELECT max("day") FROM "analytics"."segment_size_daily" WHERE ${COMPLETE_DAYS})
                          ORDER BY "size" DESC NULLS LAST, "segment_id" LIMIT ${TOP_SEGMENTS})
          SELECT "day" AS "x", "segment_id" AS "series", "size" AS "y" FROM "analytics"."segment_size_daily"
          WHERE ${lastDays('segment_size_daily')} AND "segment_id" IN (SELECT "segment_id" FROM "top") AND "size" IS NOT NULL ORDER BY "series", "x"`,
  },
  {
    id: 'canvas-variants',
    title: 'Canvas conversion per variant',
    caption: `Conversions / entries of the ${TOP_VARIANTS} Canvas variants with most entries over the last 30 complete days.`,
    kind: 'bar',
    yFormat: 'percent',
    sql: `SELECT "x", 'conversion rate' AS "series", "y" FROM (
            SELECT "canvas_name" || ' · ' || "variant_name" AS "x", sum("conversions") / sum("entries") AS "y", sum("entries") AS "n"
            FROM "analytics"."canvas_variant_daily" WHERE "day" > (SELECT max("day") FROM "analytics"."canvas_variant_daily" WHERE ${COMPLETE_DAYS}) - 30 AND ${COMPLETE_DAYS}
            GROUP BY ALL HAVING sum("entries") > 0 ORDER BY "n" DESC, "x" LIMIT ${TOP_VARIANTS}
          ) ORDER BY "x"`,
  },
  {
    id: 'canvas-funnel',
    title: 'Canvas step funnel',
    caption: `Conversions credited to each step, in path order, over every loaded day, for the ${TOP_FUNNELS} Canvases with most conversions.`,
    kind: 'bar',
    sql: `WITH "top" AS (SELECT "canvas_name" FROM "analytics"."canvas_step_funnel" GROUP BY ALL ORDER BY sum("conversions") DESC NULLS LAST, "canvas_name" LIMIT ${TOP_FUNNELS})
          SELECT "canvas_name" || ' · ' || "position" || '. ' || "step_name" AS "x", "canvas_name" AS "series", "conversions" AS "y"
          FROM "analytics"."canvas_step_funnel" WHERE "position" IS NOT NULL AND "canvas_name" IN (SELECT "canvas_name" FROM "top") AND "conversions" IS NOT NULL
          ORDER BY "canvas_name", "position", "step_name"`,
  },
  {
    id: 'campaign-sends',
    title: 'Campaign messages sent per day',
    caption: `Messages sent by every loaded campaign, per channel (the channel's sent field), last ${REPORT_DAYS} complete days. Content cards and in-app messages report impressions, not sends, and are not drawn.`,
    kind: 'line',
    sql: `SELECT "day" AS "x", "channel" AS "series", CAST(sum("sent") AS DOUBLE) AS "y" FROM "analytics"."campaign_message_daily"
          WHERE ${lastDays('campaign_message_daily')} GROUP BY ALL HAVING sum("sent") IS NOT NULL ORDER BY "series", "x"`,
  },
  {
    id: 'campaign-rates',
    title: 'Campaign open and click rates',
    caption: `Opens and clicks per message that reached someone, of the ${TOP_CAMPAIGN_MESSAGES} campaign channels that reached most over the last 30 complete days, each channel by its own fields: email unique_opens and unique_clicks per delivered, push direct_opens and body_clicks per sent − bounces. Channels without opens (SMS, webhooks, content cards, in-app messages) are left out.`,
    kind: 'bar',
    yFormat: 'percent',
    barLayout: 'grouped',
    sql: `WITH "recent" AS (
            SELECT COALESCE("campaign_name", "campaign_id") || ' · ' || "channel" AS "x", sum("reached") AS "reached",
                   sum("opens") / sum("reached") AS "open_rate", sum("clicks") / sum("reached") AS "click_rate"
            FROM "analytics"."campaign_message_daily" WHERE "day" > (SELECT max("day") FROM "analytics"."campaign_message_daily" WHERE ${COMPLETE_DAYS}) - 30 AND ${COMPLETE_DAYS}
            GROUP BY ALL HAVING sum("reached") > 0 AND sum("opens") > 0 ORDER BY "reached" DESC, "x" LIMIT ${TOP_CAMPAIGN_MESSAGES}
          )
          SELECT "x", 'open rate' AS "series", "open_rate" AS "y" FROM "recent"
          UNION ALL SELECT "x", 'click rate', "click_rate" FROM "recent"
          ORDER BY "series" DESC, "x"`,
  },
  {
    id: 'run-requests',
    title: 'API requests of recent runs',
    caption: 'The last 30 runs, labelled by run id (its start time, UTC) and outcome.',
    kind: 'bar',
    sql: recentRuns('requests', 'requests'),
  },
  {
    id: 'run-durations',
    title: 'Duration of recent runs',
    caption: 'Seconds from start to end of the last 30 finished runs.',
    kind: 'bar',
    sql: recentRuns('duration_seconds', 'seconds'),
  },
];

/** The freshness table of the report: one row per stream. */
export const FRESHNESS_SQL = `
  SELECT "stream", count(*) AS "series", min("watermark") AS "oldest_watermark", round(max("age_hours"), 1) AS "max_age_hours",
         sum("open_holes") AS "open_holes", max("last_successful_run_at") AS "last_successful_run_at"
  FROM "analytics"."freshness" GROUP BY ALL ORDER BY "stream"`;
