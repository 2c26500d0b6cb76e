-- Campaign performance: each campaign's totals per day, and per day, channel and message variation the sends, the
-- messages that reached someone, opens, clicks and their rates. Each channel reports its own fields (an SMS has no
-- opens, a push counts direct and total opens, an in-app message impressions), so every measure comes from the field
-- of the row's channel and a column names that field. The platform keeps no "all campaigns" rows, so any SUM over these
-- views counts once; rates are per row, and over several rows are the ratio of the sums.

-- Internal: the field each measure reads on each channel, and its value. Measures are named apart from the table's
-- columns (opened, clicked…): `*` carries those too. A channel this version does not know (the platform adds them) has
-- the documented counts it carries in their columns (channel-stats.ts), so each measure reads the first of them that the
-- row holds, in the order the documented channels use them: it still counts, and the *_field columns say how.
CREATE OR REPLACE MACRO "analytics"."campaign_message_measures"() AS TABLE
WITH "s" AS (
  SELECT *, CAST("time" AS DATE) AS "day", CASE
      WHEN "channel" IN ('ios_push', 'android_push', 'kindle_push', 'web_push') THEN 'push'
      WHEN "channel" IN ('in_app_message', 'trigger_in_app_message') THEN 'in_app_message'
      WHEN "channel" IN ('email', 'sms', 'webhook', 'content_cards') THEN "channel"
      ELSE 'other'
    END AS "family"
  FROM "main"."campaign_message_series"
),
"f" AS (
  SELECT *,
    CASE "family" WHEN 'email' THEN 'delivered' WHEN 'sms' THEN 'delivered' WHEN 'push' THEN 'sent - bounces'
      WHEN 'webhook' THEN 'sent - errors' WHEN 'content_cards' THEN 'unique_impressions' WHEN 'in_app_message' THEN 'impressions'
      ELSE CASE WHEN "delivered" IS NOT NULL THEN 'delivered' WHEN "unique_impressions" IS NOT NULL THEN 'unique_impressions'
        WHEN "impressions" IS NOT NULL THEN 'impressions' WHEN "sent" IS NOT NULL AND "bounces" IS NOT NULL THEN 'sent - bounces'
        WHEN "sent" IS NOT NULL THEN 'sent' END
    END AS "reached_field",
    CASE "family" WHEN 'email' THEN 'unique_opens' WHEN 'push' THEN 'direct_opens'
      WHEN 'other' THEN CASE WHEN "unique_opens" IS NOT NULL THEN 'unique_opens' WHEN "direct_opens" IS NOT NULL THEN 'direct_opens'
        WHEN "opens" IS NOT NULL THEN 'opens' END
    END AS "opens_field",
    CASE "family" WHEN 'email' THEN 'opens' WHEN 'push' THEN 'total_opens'
      WHEN 'other' THEN CASE WHEN "opens" IS NOT NULL THEN 'opens' WHEN "total_opens" IS NOT NULL THEN 'total_opens' END
    END AS "all_opens_field",
    CASE "family" WHEN 'email' THEN 'unique_clicks' WHEN 'push' THEN 'body_clicks' WHEN 'content_cards' THEN 'unique_clicks'
      WHEN 'in_app_message' THEN 'clicks'
      WHEN 'other' THEN CASE WHEN "unique_clicks" IS NOT NULL THEN 'unique_clicks' WHEN "body_clicks" IS NOT NULL THEN 'body_clicks'
        WHEN "clicks" IS NOT NULL THEN 'clicks' END
    END AS "clicks_field",
    CASE "family" WHEN 'email' THEN 'unsubscribes' WHEN 'sms' THEN 'opt_out'
      WHEN 'other' THEN CASE WHEN "unsubscribes" IS NOT NULL THEN 'unsubscribes' WHEN "opt_out" IS NOT NULL THEN 'opt_out' END
    END AS "unsubscribes_field"
  FROM "s"
)
SELECT * EXCLUDE ("all_opens_field"),
  CASE "reached_field" WHEN 'delivered' THEN "delivered" WHEN 'sent - bounces' THEN "sent" - "bounces" WHEN 'sent - errors' THEN "sent" - "errors"
    WHEN 'unique_impressions' THEN "unique_impressions" WHEN 'impressions' THEN "impressions" WHEN 'sent' THEN "sent" END AS "reached",
  CASE "opens_field" WHEN 'unique_opens' THEN "unique_opens" WHEN 'direct_opens' THEN "direct_opens" WHEN 'opens' THEN "opens" END AS "opened",
  CASE "all_opens_field" WHEN 'opens' THEN "opens" WHEN 'total_opens' THEN "total_opens" END AS "all_opens",
  CASE "clicks_field" WHEN 'unique_clicks' THEN "unique_clicks" WHEN 'body_clicks' THEN "body_clicks" WHEN 'clicks' THEN "clicks" END AS "clicked",
  CASE "unsubscribes_field" WHEN 'unsubscribes' THEN "unsubscribes" WHEN 'opt_out' THEN "opt_out" END AS "unsubscribed"
FROM "f";

CREATE OR REPLACE VIEW "analytics"."campaign_message_daily" AS
SELECT
  s."day", s."campaign_id", n."name" AS "campaign_name", s."channel",
  s."variation_key", s."variation_api_id" AS "variation_id", COALESCE(v."name", s."variation_name") AS "variation_name",
  s."sent", s."reached", s."reached_field", s."opened" AS "opens", s."opens_field", s."all_opens", s."clicked" AS "clicks", s."clicks_field",
  s."unsubscribed" AS "unsubscribes", s."unsubscribes_field",
  s."reached" / NULLIF(CAST(s."sent" AS DOUBLE), 0) AS "reach_rate",
  s."opened" / NULLIF(CAST(s."reached" AS DOUBLE), 0) AS "open_rate",
  s."clicked" / NULLIF(CAST(s."reached" AS DOUBLE), 0) AS "click_rate",
  s."clicked" / NULLIF(CAST(s."opened" AS DOUBLE), 0) AS "click_to_open_rate",
  s."conversions", s."revenue", s."extra_stats",
  "analytics"."day_complete"(s."time", w."watermark") AS "complete"
FROM "analytics"."campaign_message_measures"() s
LEFT JOIN "analytics"."series_watermarks"('campaign_series') w ON w."series_key" = 'unit=day|campaign_id=' || s."campaign_id"
LEFT JOIN "analytics"."object_names"('campaigns') n ON n."id" = s."campaign_id"
LEFT JOIN "main"."campaign_messages" v ON v."campaign_id" = s."campaign_id" AND v."variation_id" = s."variation_api_id";
COMMENT ON VIEW "analytics"."campaign_message_daily" IS 'Each campaign message variation per day and channel: sent, reached, opens, clicks, unsubscribes and their rates, each from the field of the row''s channel (named in the *_field columns: a push open is direct_opens, an SMS has no opens, an in-app message counts impressions). One row per campaign, day, channel and variation; no totals (those are campaign_daily). Every field the channel reports is in the table campaign_message_series. To fill: add the campaign_series stream to the pipeline, e.g. campaign_series: { campaigns: all }.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."campaign_id" IS 'The campaign.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."campaign_name" IS 'The campaign''s current name: from the campaigns stream, else from the last campaign list a run read (any stream with campaigns: all reads it); NULL when neither has named it.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."channel" IS 'email, ios_push, android_push, kindle_push, web_push, sms, webhook, content_cards, in_app_message, trigger_in_app_message, or a channel this version does not know: its measures read the documented counts it carries (delivered, sent, clicks…; named in the *_field columns), its other fields are in extra_stats.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."variation_key" IS 'What tells the variation apart: its API id, or when the server leaves the id out name:<variation name>, else position:<index in the channel''s list>.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."variation_id" IS 'The message variation''s API id; NULL when the server left it out.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."variation_name" IS 'The variation''s current name from the campaigns stream, else the name the series gave; NULL when neither is loaded.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."sent" IS 'Messages of the variation sent on the day; NULL for content cards, which report impressions instead.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."reached" IS 'Messages that reached someone, by the field in reached_field: delivered (email, SMS), sent - bounces (push), sent - errors (webhook), unique_impressions (content cards), impressions (in-app).';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."reached_field" IS 'The field (or difference of fields) reached was read from on this channel.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."opens" IS 'Messages opened, by the field in opens_field: unique_opens (email), direct_opens (push: taps on the notification). NULL on channels without opens (SMS, webhook, content cards, in-app).';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."opens_field" IS 'The field opens was read from on this channel; NULL where the channel has no opens.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."all_opens" IS 'Every open, repeated and influenced ones included: opens (email), total_opens (push).';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."clicks" IS 'Clicks, by the field in clicks_field: unique_clicks (email, content cards), body_clicks (push), clicks (in-app). NULL on SMS and webhooks.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."clicks_field" IS 'The field clicks was read from on this channel.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."unsubscribes" IS 'Users who opted out: unsubscribes (email), opt_out (SMS); NULL elsewhere.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."unsubscribes_field" IS 'The field unsubscribes was read from on this channel.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."reach_rate" IS 'reached / sent; NULL when nothing was sent or the channel reports no sends.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."open_rate" IS 'opens / reached; NULL when nothing was reached or the channel has no opens. Over several rows use sum(opens) / sum(reached).';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."click_rate" IS 'clicks / reached; NULL when nothing was reached.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."click_to_open_rate" IS 'clicks / opens; NULL when nothing was opened or the channel has no opens.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."conversions" IS 'Conversions the server credits to the variation; NULL when it does not say.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."revenue" IS 'Revenue the server credits to the variation; NULL when it does not say.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."extra_stats" IS 'Fields without a column, as sent: per-button push clicks, and fields this version does not know (each warned about once a run).';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."complete" IS 'True when the day had ended and was loaded whole (the watermark of its series passed it); false for today and for days a backfill has not reached. Keep to complete days for totals and charts.';

CREATE OR REPLACE VIEW "analytics"."campaign_daily" AS
WITH "messages" AS (
  SELECT "campaign_id", "time", sum("sent") AS "sent", sum("reached") AS "reached", sum("opened") AS "opens", sum("clicked") AS "clicks",
         string_agg(DISTINCT "measures", '; ' ORDER BY "measures") AS "measures"
  FROM (
    SELECT *, "channel" || ': reached = ' || COALESCE("reached_field", '-') || ', opens = ' || COALESCE("opens_field", '-')
              || ', clicks = ' || COALESCE("clicks_field", '-') AS "measures"
    FROM "analytics"."campaign_message_measures"()
  ) GROUP BY "campaign_id", "time"
)
SELECT
  CAST(t."time" AS DATE) AS "day", t."campaign_id", n."name" AS "campaign_name",
  t."unique_recipients",
  CAST(m."sent" AS BIGINT) AS "sent", CAST(m."reached" AS BIGINT) AS "reached",
  CAST(m."opens" AS BIGINT) AS "opens", CAST(m."clicks" AS BIGINT) AS "clicks", m."measures",
  t."conversions", t."conversions1", t."conversions2", t."conversions3",
  t."conversions" / NULLIF(CAST(t."unique_recipients" AS DOUBLE), 0) AS "conversion_rate",
  t."revenue",
  "analytics"."day_complete"(t."time", w."watermark") AS "complete"
FROM "main"."campaign_series" t
LEFT JOIN "analytics"."series_watermarks"('campaign_series') w ON w."series_key" = 'unit=day|campaign_id=' || t."campaign_id"
LEFT JOIN "messages" m ON m."campaign_id" = t."campaign_id" AND m."time" = t."time"
LEFT JOIN "analytics"."object_names"('campaigns') n ON n."id" = t."campaign_id";
COMMENT ON VIEW "analytics"."campaign_daily" IS 'Each campaign per day: recipients, messages sent, reached, opened and clicked (summed over its channels and variations, each channel''s own field, named in measures), conversions and revenue. One row per campaign and day; SUM over days or campaigns counts each message once. To fill: add the campaign_series stream to the pipeline, e.g. campaign_series: { campaigns: all }.';
COMMENT ON COLUMN "analytics"."campaign_daily"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."campaign_daily"."campaign_id" IS 'The campaign.';
COMMENT ON COLUMN "analytics"."campaign_daily"."campaign_name" IS 'The campaign''s current name: from the campaigns stream, else from the last campaign list a run read (any stream with campaigns: all reads it); NULL when neither has named it.';
COMMENT ON COLUMN "analytics"."campaign_daily"."unique_recipients" IS 'Distinct users the campaign messaged on the day.';
COMMENT ON COLUMN "analytics"."campaign_daily"."sent" IS 'Messages sent on the day, summed over the channels that report sends (a user reached by email and push counts twice; content cards report none).';
COMMENT ON COLUMN "analytics"."campaign_daily"."reached" IS 'Messages that reached someone, summed over channels, each by its own field (see measures and campaign_message_daily.reached).';
COMMENT ON COLUMN "analytics"."campaign_daily"."opens" IS 'Opens summed over the channels that have them: email unique_opens, push direct_opens (see measures).';
COMMENT ON COLUMN "analytics"."campaign_daily"."clicks" IS 'Clicks summed over channels: email and content-card unique_clicks, push body_clicks, in-app clicks (see measures).';
COMMENT ON COLUMN "analytics"."campaign_daily"."measures" IS 'Per channel of the day, the fields reached, opens and clicks were read from (- where the channel has none), e.g. "email: reached = delivered, opens = unique_opens, clicks = unique_clicks".';
COMMENT ON COLUMN "analytics"."campaign_daily"."conversions" IS 'Conversions (primary conversion event) credited to the campaign on the day.';
COMMENT ON COLUMN "analytics"."campaign_daily"."conversions1" IS 'Conversions of the second conversion event; NULL when the server leaves it out.';
COMMENT ON COLUMN "analytics"."campaign_daily"."conversions2" IS 'Conversions of the third conversion event; NULL when the server leaves it out.';
COMMENT ON COLUMN "analytics"."campaign_daily"."conversions3" IS 'Conversions of the fourth conversion event; NULL when the server leaves it out.';
COMMENT ON COLUMN "analytics"."campaign_daily"."conversion_rate" IS 'conversions / unique_recipients; NULL on a day without recipients. Over several days use sum(conversions) / sum(unique_recipients).';
COMMENT ON COLUMN "analytics"."campaign_daily"."revenue" IS 'Revenue attributed to the campaign on the day; NULL when the server leaves it out.';
COMMENT ON COLUMN "analytics"."campaign_daily"."complete" IS 'True when the day had ended and was loaded whole (the watermark of its series passed it); false for today and for days a backfill has not reached. Keep to complete days for totals and charts.';

-- A campaign's name as it was on each day of its series, from campaigns_history, as canvas_names_by_day takes a
-- Canvas's: the version current at the end of the day; before the first version seen, the first name.
CREATE OR REPLACE VIEW "analytics"."campaign_names_by_day" AS
WITH "days" AS (SELECT DISTINCT "campaign_id", CAST("time" AS DATE) AS "day" FROM "main"."campaign_series"),
"first" AS (SELECT "campaign_id", arg_min("name", "_valid_from") AS "name" FROM "main"."campaigns_history" GROUP BY "campaign_id")
SELECT d."day", d."campaign_id", COALESCE(h."name", f."name") AS "campaign_name",
  "analytics"."day_complete"(d."day", w."watermark") AS "complete"
FROM "days" d
ASOF LEFT JOIN "main"."campaigns_history" h ON h."campaign_id" = d."campaign_id" AND d."day" + INTERVAL 1 DAY > h."_valid_from"
LEFT JOIN "first" f ON f."campaign_id" = d."campaign_id"
LEFT JOIN "analytics"."series_watermarks"('campaign_series') w ON w."series_key" = 'unit=day|campaign_id=' || d."campaign_id";
COMMENT ON VIEW "analytics"."campaign_names_by_day" IS 'The name each campaign had on each day of its series: join it to campaign_daily on campaign_id and day to show a day''s numbers under that day''s name. One row per campaign and day. To fill: campaign_series and campaigns in the pipeline.';
COMMENT ON COLUMN "analytics"."campaign_names_by_day"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."campaign_names_by_day"."campaign_id" IS 'The campaign.';
COMMENT ON COLUMN "analytics"."campaign_names_by_day"."campaign_name" IS 'The campaign''s name at the end of the day (campaigns_history); before the first version loaded, the first name; NULL when the campaigns stream never read the campaign.';
COMMENT ON COLUMN "analytics"."campaign_names_by_day"."complete" IS 'True when the day had ended and was loaded whole; a day still in progress may yet take a name edited later in the day.';

-- Internal: for each view above that a pipeline option fills, whether it has a row (and each hinted column a value),
-- read from the base tables with the view's own filter, since the view's joins read every campaign and day
-- even for its first row. The run's summary and the report ask these (src/views/unfilled-views.ts); each answers as its
-- view does (test/views/view-probes.test.ts).
CREATE OR REPLACE MACRO "analytics"."campaign_message_daily_filled"() AS TABLE
SELECT EXISTS (FROM "main"."campaign_message_series") AS "rows";
CREATE OR REPLACE MACRO "analytics"."campaign_daily_filled"() AS TABLE
SELECT EXISTS (FROM "main"."campaign_series") AS "rows";
CREATE OR REPLACE MACRO "analytics"."campaign_names_by_day_filled"() AS TABLE
SELECT EXISTS (FROM "main"."campaign_series") AS "rows";
