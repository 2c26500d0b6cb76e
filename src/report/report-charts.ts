// The charts of the HTML report, one entry each: a query over the analyst views returning one row per mark (columns
// "x", "series", "y"), and how to draw it. A chart over a new view is one more entry here.
import { FatalError } from '../errors.js';

export interface ChartSpec {
  /** Stable id: the report's `data-chart` attribute and the browser test's handle. */
  id: string;
  title: string;
  /** One sentence under the title: what is shown, what a mark counts, and over which period. */
  caption: string;
  /**
   * One row per mark: "x" (DATE, TIMESTAMP or text), "series" (text), "y" (number, never NULL); optionally "hover" (text
   * shown when the pointer rests on the mark) and "axis" (1: the series is drawn against a second scale on the right).
   */
  sql: string;
  kind: 'line' | 'bar';
  /** How the y values read. @default 'number' */
  yFormat?: 'number' | 'percent';
  /** Bars of several series: stacked when they are parts of one whole, side by side when they are rates. @default 'stacked' */
  barLayout?: 'stacked' | 'grouped';
  /** Bars drawn across, categories down the left: long labels (names of Canvases, steps, events) read whole. @default false */
  horizontal?: boolean;
  /** One small chart per series on a shared scale, for lines that would lie on top of each other. @default false */
  facets?: boolean;
}

/** Days the daily charts show, ending with the last complete day of data. */
const REPORT_DAYS = 90;

/** Bars of the events chart: the events whose weekly count moved most. */
const TOP_MOVERS = 10;
/** An event needs this many occurrences in the week before to be a mover (a change from 2 to 9 is not news). */
const MOVER_MIN_COUNT = 100;

/** Bars of the campaign rates chart: the (campaign, channel) pairs that sent most. */
const TOP_CAMPAIGN_MESSAGES = 12;

// A whole workspace (`all`) holds a hundred segments and Canvases: the charts follow the largest few, so the report stays
// readable and small (every segment drawn makes a report of megabytes).
/** Segments the segment chart follows: the largest on the last day. */
const TOP_SEGMENTS = 10;
/** The largest segment gets a scale of its own when it is this many times the second: on one scale it flattens the rest. */
const OWN_SCALE_RATIO = 3;
/** Canvases of the variants chart: those with two or more variants and the most entries. */
const TOP_VARIANT_CANVASES = 8;
/** Canvases of the steps chart: those whose message steps were credited most conversions. */
const TOP_STEP_CANVASES = 3;

/**
 * Complete days only (the views' `complete`: the series' watermark passed the day): the day in progress holds only its
 * first hours, and drawn beside whole days it read as a collapse of every series on the last day.
 */
const COMPLETE_DAYS = `"complete"`;

/**
 * The views whose last complete day a chart asks for (see `lastDay`), filled as CHARTS is built, for setReportLastDays.
 */
const lastDayViews = new Set<string>();

/**
 * The last complete day of a view, as a session variable setReportLastDays sets before the charts' queries run: a constant,
 * DuckDB applies `"day" > … - 90` in the table scan. As a subquery it could not, and each chart would join every row
 * of its view first (docs/decisions.md, "The report").
 */
const lastDay = (view: string): string => {
  lastDayViews.add(view);
  return `CAST(getvariable('report_last_day_${view}') AS DATE)`;
};

const lastDays = (view: string) => `"day" > ${lastDay(view)} - ${REPORT_DAYS} AND ${COMPLETE_DAYS}`;

/**
 * Views whose rows come from a macro of the same columns that leaves out the days before its `since`: their windows
 * read every day of every series, so a chart of the last days reads the macro from its first day instead.
 */
const SINCE_MACROS: Readonly<Record<string, string>> = { segment_size_daily: 'segment_size_per_day' };

/** The rows of `view` from the day `since` on (an expression): its macro where it has one, else the view itself. */
const rowsSince = (view: string, since: string): string => {
  const macro = SINCE_MACROS[view];
  return macro === undefined ? `"analytics"."${view}"` : `"analytics"."${macro}"("since" := ${since})`;
};

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

/**
 * How a chart names a Canvas, campaign or segment: the label of analytics.object_names (the name, the id beside a name
 * two objects share), or the id when nothing names the object. `joinNames` brings the labels in as `names`.
 */
type NamedKind = 'canvases' | 'campaigns' | 'segments';
const joinNames = (kind: NamedKind, id: string) =>
  `LEFT JOIN "analytics"."object_names"('${kind}') "names" ON "names"."id" = ${id}`;
const label = (id: string) => `COALESCE("names"."label", ${id})`;

/**
 * The last day of the events chart: the newest day of the all-apps, all-users counts before the last run's end (the day
 * in progress left out), a constant setReportLastDays sets, so that `since` applies in the table scan. As a subquery it
 * could not, and the chart joined every count of every day to its series' watermark.
 */
const EVENTS_LAST_DAY = `CAST(getvariable('report_events_last_day') AS DATE)`;
const EVENTS_LAST_DAY_SQL = `SET VARIABLE "report_events_last_day" = (
  SELECT max(CAST("time" AS DATE)) FROM "main"."event_counts"
  WHERE "app_id" = '*' AND "segment_id" = '*' AND CAST("time" AS DATE) < COALESCE((SELECT CAST(max("until") AS DATE) FROM "main"."_etl_runs"), DATE '9999-12-31'))`;

/** `1,234`: a count as the hover text writes it. */
const count = (expr: string) => `format('{:,}', CAST(${expr} AS BIGINT))`;
/** `12.3 %` */
const pct = (expr: string) => `printf('%.1f %%', 100 * (${expr}))`;

export const CHARTS: readonly ChartSpec[] = [
  {
    id: 'revenue',
    title: 'Revenue per day',
    caption: `All apps (the platform's total) and each loaded app, last ${REPORT_DAYS} complete days, in the workspace's currency (the purchases endpoints do not say which).`,
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
    title: 'DAU / MAU (stickiness), 7-day average',
    caption: `Daily over monthly active users, averaged over the 7 days ending each day (weekdays and weekends differ), one small chart for all apps and one per loaded app on a shared scale, last ${REPORT_DAYS} complete days. Rest the pointer on a point for that day's own value.`,
    kind: 'line',
    yFormat: 'percent',
    facets: true,
    sql: `WITH "daily" AS (
            SELECT "day", 'All apps' AS "series", "stickiness" FROM "analytics"."kpis_daily" WHERE "stickiness" IS NOT NULL AND ${COMPLETE_DAYS}
            UNION ALL SELECT "day", "app_id", "stickiness" FROM "analytics"."kpis_daily_by_app" WHERE "stickiness" IS NOT NULL AND ${COMPLETE_DAYS}),
          "smoothed" AS (
            SELECT "day", "series", "stickiness", avg("stickiness") OVER "w" AS "avg7", count(*) OVER "w" AS "days"
            FROM "daily" WINDOW "w" AS (PARTITION BY "series" ORDER BY "day" RANGE BETWEEN INTERVAL 6 DAYS PRECEDING AND CURRENT ROW))
          SELECT "day" AS "x", "series", "avg7" AS "y",
                 strftime("day", '%Y-%m-%d') || ': 7-day average ' || ${pct('"avg7"')} || ', this day ' || ${pct('"stickiness"')} AS "hover"
          FROM "smoothed" WHERE "days" = 7 AND "day" > (SELECT max("day") FROM "daily") - ${REPORT_DAYS}
          ORDER BY "series" = 'All apps' DESC, "series", "x"`,
  },
  {
    id: 'events',
    title: 'Custom events that moved most, week over week',
    caption: `Change of each custom event's count (all apps, all users) over the last 7 complete days against the 7 days before, for the ${TOP_MOVERS} events that changed most among those with at least ${MOVER_MIN_COUNT} occurrences the week before.`,
    kind: 'bar',
    yFormat: 'percent',
    horizontal: true,
    sql: `WITH "last" AS (SELECT ${EVENTS_LAST_DAY} AS "d"),
          "weeks" AS (
            SELECT "event", sum("count") FILTER (WHERE "day" > "last"."d" - 7) AS "this_week", sum("count") FILTER (WHERE "day" <= "last"."d" - 7) AS "week_before"
            FROM "analytics"."event_counts_per_series"("since" := ${EVENTS_LAST_DAY} - 14), "last"
            WHERE "app_id" = '*' AND "segment_id" = '*' AND "day" > "last"."d" - 14 AND "day" <= "last"."d" GROUP BY ALL)
          SELECT "event" AS "x", 'change' AS "series", ("this_week" - "week_before") / CAST("week_before" AS DOUBLE) AS "y",
                 "event" || ': ' || ${count('"this_week"')} || ' in the last 7 days, ' || ${count('"week_before"')} || ' the 7 days before' AS "hover"
          FROM "weeks" WHERE "week_before" >= ${MOVER_MIN_COUNT} AND "this_week" IS NOT NULL
          ORDER BY abs("y") DESC, "x" LIMIT ${TOP_MOVERS}`,
  },
  {
    id: 'segments',
    title: 'Segment sizes',
    caption: `Users per day in the ${TOP_SEGMENTS} largest loaded segments (on the last day), by name (with the id where two segments share one), last ${REPORT_DAYS} complete days (segments overlap). A segment ${OWN_SCALE_RATIO} or more times the next one is drawn against the scale on the right, so the others keep their shape.`,
    kind: 'line',
    sql: `WITH "top" AS (
            SELECT "segment_id", "size", row_number() OVER (ORDER BY "size" DESC NULLS LAST, "segment_id") AS "rank"
            FROM ${rowsSince('segment_size_daily', lastDay('segment_size_daily'))} WHERE "day" = ${lastDay('segment_size_daily')} QUALIFY "rank" <= ${TOP_SEGMENTS}),
          "apart" AS (SELECT "segment_id" FROM "top" WHERE "rank" = 1 AND "size" >= ${OWN_SCALE_RATIO} * (SELECT "size" FROM "top" WHERE "rank" = 2)),
          "named" AS (SELECT t."segment_id", ${label('t."segment_id"')} AS "label" FROM "top" t ${joinNames('segments', 't."segment_id"')})
          SELECT d."day" AS "x",
                 n."label" || CASE WHEN n."segment_id" IN (SELECT "segment_id" FROM "apart") THEN ' (right scale)' ELSE '' END AS "series",
                 d."size" AS "y", CASE WHEN n."segment_id" IN (SELECT "segment_id" FROM "apart") THEN 1 ELSE 0 END AS "axis"
          FROM ${rowsSince('segment_size_daily', `${lastDay('segment_size_daily')} - ${REPORT_DAYS}`)} d JOIN "named" n ON n."segment_id" = d."segment_id"
          WHERE ${lastDays('segment_size_daily')} AND d."size" IS NOT NULL ORDER BY "series", "x"`,
  },
  {
    id: 'canvas-variants',
    title: 'Canvas variants side by side',
    caption: `Conversion rate (conversions / entries) of each variant, over the last 30 complete days, for the ${TOP_VARIANT_CANVASES} Canvases with two or more variants and the most entries. "(within noise)" marks a Canvas whose best and worst variants differ by less than chance would explain (two-proportion z-test, 95 %).`,
    kind: 'bar',
    yFormat: 'percent',
    barLayout: 'grouped',
    horizontal: true,
    sql: `WITH "v" AS (
            SELECT *, COALESCE("variant_name", "variant_id")
                      || CASE WHEN count(*) OVER (PARTITION BY "canvas_id", COALESCE("variant_name", "variant_id")) > 1 THEN ' (' || "variant_id" || ')' ELSE '' END AS "variant"
            FROM (SELECT "canvas_id", "variant_id", any_value("variant_name") AS "variant_name", sum("entries") AS "entries", sum("conversions") AS "conversions"
                  FROM "analytics"."canvas_variant_daily"
                  WHERE "day" > ${lastDay('canvas_variant_daily')} - 30 AND ${COMPLETE_DAYS} GROUP BY "canvas_id", "variant_id" HAVING sum("entries") > 0)),
          "c" AS (
            SELECT "canvas_id", sum("entries") AS "entries",
                   arg_max({'n': "entries", 'k': "conversions"}, "conversions" / "entries") AS "best",
                   arg_min({'n': "entries", 'k': "conversions"}, "conversions" / "entries") AS "worst"
            FROM "v" GROUP BY "canvas_id" HAVING count(*) >= 2 ORDER BY "entries" DESC, "canvas_id" LIMIT ${TOP_VARIANT_CANVASES}),
          "tested" AS (SELECT *, ("best"."k" + "worst"."k") / CAST("best"."n" + "worst"."n" AS DOUBLE) AS "p" FROM "c"),
          "labelled" AS (
            SELECT t."canvas_id", t."entries", ${label('t."canvas_id"')}
                   || CASE WHEN "p" = 0 OR "p" = 1 OR abs("best"."k" / CAST("best"."n" AS DOUBLE) - "worst"."k" / CAST("worst"."n" AS DOUBLE))
                                 / sqrt("p" * (1 - "p") * (1.0 / "best"."n" + 1.0 / "worst"."n")) < 1.96
                           THEN ' (within noise)' ELSE '' END AS "label"
            FROM "tested" t ${joinNames('canvases', 't."canvas_id"')})
          SELECT l."label" AS "x", v."variant" AS "series", v."conversions" / CAST(v."entries" AS DOUBLE) AS "y",
                 v."variant" || ': ' || ${count('v."conversions"')} || ' conversions of ' || ${count('v."entries"')} || ' entries (' || ${pct('v."conversions" / CAST(v."entries" AS DOUBLE)')} || ')' AS "hover"
          FROM "v" JOIN "labelled" l ON l."canvas_id" = v."canvas_id" ORDER BY l."entries" DESC, l."canvas_id", "series"`,
  },
  {
    id: 'canvas-steps',
    title: 'Conversions credited to Canvas message steps',
    caption: `Each bar counts the conversions the platform credits to one message step, over every loaded day, for the ${TOP_STEP_CANVASES} Canvases whose steps were credited most. Steps are in path order (1 = a variant's first step); steps at the same distance on different branches are 3a, 3b … Delays and splits send nothing and are left out. Not a funnel: a later step can be credited more than an earlier one.`,
    kind: 'bar',
    horizontal: true,
    sql: `WITH "m" AS (
            SELECT * FROM "analytics"."canvas_step_conversions" WHERE "step_type" = 'message' AND "position" IS NOT NULL AND "conversions" IS NOT NULL),
          "top" AS (SELECT "canvas_id", sum("conversions") AS "total" FROM "m" GROUP BY ALL ORDER BY "total" DESC, "canvas_id" LIMIT ${TOP_STEP_CANVASES}),
          "branched" AS (
            SELECT "m".*, "top"."total", count(*) OVER "p" AS "at_position", row_number() OVER ("p" ORDER BY "step_id") AS "branch"
            FROM "m" JOIN "top" USING ("canvas_id") WINDOW "p" AS (PARTITION BY "m"."canvas_id", "position")),
          "labelled" AS (SELECT b.*, ${label('b."canvas_id"')} AS "canvas" FROM "branched" b ${joinNames('canvases', 'b."canvas_id"')})
          SELECT "canvas" || ' · ' || "position" || CASE WHEN "at_position" > 1 THEN chr(96 + CAST("branch" AS INTEGER)) ELSE '' END
                   || '. ' || COALESCE("step_name", "step_id") AS "x",
                 "canvas" AS "series", "conversions" AS "y",
                 COALESCE("step_name", "step_id") || ': ' || ${count('"conversions"')} || ' conversions, ' || ${count('"messages_sent"')} || ' messages sent' AS "hover"
          FROM "labelled" ORDER BY "total" DESC, "canvas_id", "position", "branch"`,
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
    horizontal: true,
    sql: `WITH "recent" AS (
            SELECT "campaign_id", "channel", sum("reached") AS "reached",
                   sum("opens") / sum("reached") AS "open_rate", sum("clicks") / sum("reached") AS "click_rate"
            FROM "analytics"."campaign_message_daily" WHERE "day" > ${lastDay('campaign_message_daily')} - 30 AND ${COMPLETE_DAYS}
            GROUP BY "campaign_id", "channel" HAVING sum("reached") > 0 AND sum("opens") > 0
            ORDER BY "reached" DESC, "campaign_id", "channel" LIMIT ${TOP_CAMPAIGN_MESSAGES}
          ),
          "labelled" AS (SELECT r.*, ${label('r."campaign_id"')} || ' · ' || r."channel" AS "x" FROM "recent" r ${joinNames('campaigns', 'r."campaign_id"')})
          SELECT "x", 'open rate' AS "series", "open_rate" AS "y" FROM "labelled"
          UNION ALL SELECT "x", 'click rate', "click_rate" FROM "labelled"
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

/** The analytics macros the charts call (a database whose views an older engage-etl made may lack one). */
const CHART_MACROS = [
  ...new Set(CHARTS.flatMap((c) => [...c.sql.matchAll(/"analytics"\."(\w+)"\(/g)].map((m) => m[1]!))),
];

/** The freshness table of the report: one row per stream. */
export const FRESHNESS_SQL = `
  SELECT "stream", count(*) AS "series", min("watermark") AS "oldest_watermark", round(max("age_hours"), 1) AS "max_age_hours",
         sum("open_holes") AS "open_holes", max("last_successful_run_at") AS "last_successful_run_at"
  FROM "analytics"."freshness" GROUP BY ALL ORDER BY "stream"`;

/** What `setReportLastDays` runs its queries on: a warehouse, or anything that answers SQL with rows. */
export interface ReportSession {
  query(sql: string): Promise<Record<string, unknown>[]>;
}

/**
 * Days the last complete day of a view is first looked for in, ending with the newest day any watermark reaches: no
 * later day is complete in any view (`day_complete` needs the watermark past the day's end).
 */
const RECENT_DAYS = 7;

/**
 * Set what the charts' queries need first, in the same session: the last complete day of each view they follow, and the
 * last day of the events chart.
 *
 * Each view is first asked for its last complete day among the RECENT_DAYS days ending with the newest watermark's day,
 * a constant the scan applies (a view with a `since` macro reads it from the first of those days); only a view with no
 * complete day there is scanned whole. The whole scan joined every row to its series' watermark, seconds of CPU on a
 * large campaign_message_daily. The answer is the same either way: every complete day lies on or before the newest
 * watermark's day, so the newest one found in the recent days is the newest of all. A database whose views an older
 * engage-etl made, lacking a macro the charts call, is refused here with what creates it.
 */
export async function setReportLastDays(session: ReportSession): Promise<void> {
  const present = new Set(
    (await session.query(`SELECT "function_name" FROM duckdb_functions() WHERE "schema_name" = 'analytics'`)).map((r) =>
      String(r['function_name']),
    ),
  );
  const missing = CHART_MACROS.filter((m) => !present.has(m));
  if (missing.length > 0)
    throw new FatalError(
      `the analyst views of this database were made by an older engage-etl: it lacks ${missing.map((m) => `analytics.${m}`).join(', ')}, which the report's charts read. The next \`engage-etl run\` (or \`engage-etl export\`) on it creates them; write the report after that`,
    );
  await session.query(
    `SET VARIABLE "report_newest_day" = (SELECT CAST(max("watermark") AS DATE) FROM "main"."_etl_series_state")`,
  );
  const recentStart = `CAST(getvariable('report_newest_day') AS DATE) - ${RECENT_DAYS}`;
  for (const view of lastDayViews) {
    const variable = `report_last_day_${view}`;
    const setLastDay = (from: string, where: string) =>
      `SET VARIABLE "${variable}" = (SELECT max("day") FROM ${from} WHERE ${COMPLETE_DAYS}${where})`;
    await session.query(setLastDay(rowsSince(view, recentStart), ` AND "day" > ${recentStart}`));
    const [found] = await session.query(`SELECT getvariable('${variable}') IS NOT NULL AS "found"`);
    if (found?.['found'] !== true) await session.query(setLastDay(`"analytics"."${view}"`, ''));
  }
  await session.query(EVENTS_LAST_DAY_SQL);
}
