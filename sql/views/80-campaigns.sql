-- Campaign performance: each campaign's totals per day, and per day, channel and message variation the sends,
-- deliveries, opens, clicks and their rates. The platform keeps no "all campaigns" rows, so any SUM over these views
-- counts once; rates are per row, and over several rows are the ratio of the sums.

-- Internal: a campaign's current name, from its details (the campaigns stream) or else from the last listing that
-- showed it (campaign_series with `campaigns: all` lists them even without the campaigns stream).
CREATE OR REPLACE MACRO "analytics"."campaign_names"() AS TABLE
SELECT "campaign_id", arg_min("name", "source") AS "campaign_name" FROM (
  SELECT "campaign_id", "name", 0 AS "source" FROM "main"."campaigns" WHERE "name" IS NOT NULL
  UNION ALL
  SELECT "id", "name", CASE "listing" WHEN 'campaigns' THEN 1 ELSE 2 END
  FROM "main"."listed_objects" WHERE "listing" IN ('campaigns', 'campaigns+archived') AND "name" IS NOT NULL
) GROUP BY ALL;

CREATE OR REPLACE VIEW "analytics"."campaign_daily" AS
WITH "messages" AS (
  SELECT "campaign_id", "time", sum("sent") AS "sent", sum("delivered") AS "delivered",
         sum("unique_opens") AS "unique_opens", sum("unique_clicks") AS "unique_clicks"
  FROM "main"."campaign_message_series" GROUP BY ALL
)
SELECT
  CAST(t."time" AS DATE) AS "day", t."campaign_id", n."campaign_name",
  t."unique_recipients",
  CAST(m."sent" AS BIGINT) AS "sent", CAST(m."delivered" AS BIGINT) AS "delivered",
  CAST(m."unique_opens" AS BIGINT) AS "unique_opens", CAST(m."unique_clicks" AS BIGINT) AS "unique_clicks",
  t."conversions", t."conversions1", t."conversions2", t."conversions3",
  t."conversions" / NULLIF(CAST(t."unique_recipients" AS DOUBLE), 0) AS "conversion_rate",
  t."revenue"
FROM "main"."campaign_series" t
LEFT JOIN "messages" m ON m."campaign_id" = t."campaign_id" AND m."time" = t."time"
LEFT JOIN "analytics"."campaign_names"() n ON n."campaign_id" = t."campaign_id";
COMMENT ON VIEW "analytics"."campaign_daily" IS 'Each campaign per day: recipients, messages sent, delivered, opened and clicked (summed over its channels and variations), conversions and revenue. One row per campaign and day; SUM over days or campaigns counts each message once.';
COMMENT ON COLUMN "analytics"."campaign_daily"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."campaign_daily"."campaign_id" IS 'The campaign.';
COMMENT ON COLUMN "analytics"."campaign_daily"."campaign_name" IS 'The campaign''s current name; NULL when neither the campaigns stream nor a campaign listing has loaded it.';
COMMENT ON COLUMN "analytics"."campaign_daily"."unique_recipients" IS 'Distinct users the campaign messaged on the day.';
COMMENT ON COLUMN "analytics"."campaign_daily"."sent" IS 'Messages sent on the day, summed over channels and variations (a user reached by email and push counts twice).';
COMMENT ON COLUMN "analytics"."campaign_daily"."delivered" IS 'Messages delivered, summed over the channels and variations that report deliveries.';
COMMENT ON COLUMN "analytics"."campaign_daily"."unique_opens" IS 'Unique opens, summed over channels and variations.';
COMMENT ON COLUMN "analytics"."campaign_daily"."unique_clicks" IS 'Unique clicks, summed over channels and variations.';
COMMENT ON COLUMN "analytics"."campaign_daily"."conversions" IS 'Conversions (primary conversion event) credited to the campaign on the day.';
COMMENT ON COLUMN "analytics"."campaign_daily"."conversions1" IS 'Conversions of the second conversion event.';
COMMENT ON COLUMN "analytics"."campaign_daily"."conversions2" IS 'Conversions of the third conversion event.';
COMMENT ON COLUMN "analytics"."campaign_daily"."conversions3" IS 'Conversions of the fourth conversion event.';
COMMENT ON COLUMN "analytics"."campaign_daily"."conversion_rate" IS 'conversions / unique_recipients; NULL on a day without recipients. Over several days use sum(conversions) / sum(unique_recipients).';
COMMENT ON COLUMN "analytics"."campaign_daily"."revenue" IS 'Revenue attributed to the campaign on the day.';

CREATE OR REPLACE VIEW "analytics"."campaign_message_daily" AS
SELECT
  CAST(s."time" AS DATE) AS "day", s."campaign_id", n."campaign_name", s."channel",
  s."variation_api_id" AS "variation_id", v."name" AS "variation_name",
  s."sent", s."delivered", s."bounces", s."opens", s."unique_opens", s."clicks", s."unique_clicks", s."unsubscribes",
  s."delivered" / NULLIF(CAST(s."sent" AS DOUBLE), 0) AS "delivery_rate",
  s."unique_opens" / NULLIF(CAST(s."delivered" AS DOUBLE), 0) AS "open_rate",
  s."unique_clicks" / NULLIF(CAST(s."delivered" AS DOUBLE), 0) AS "click_rate",
  s."unique_clicks" / NULLIF(CAST(s."unique_opens" AS DOUBLE), 0) AS "click_to_open_rate",
  s."channel_stats"
FROM "main"."campaign_message_series" s
LEFT JOIN "analytics"."campaign_names"() n ON n."campaign_id" = s."campaign_id"
LEFT JOIN "main"."campaign_messages" v ON v."campaign_id" = s."campaign_id" AND v."variation_id" = s."variation_api_id";
COMMENT ON VIEW "analytics"."campaign_message_daily" IS 'Each campaign message variation per day and channel: sent, delivered, bounces, opens, clicks, unsubscribes and their rates. One row per campaign, day, channel and variation; no totals (those are campaign_daily).';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."campaign_id" IS 'The campaign.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."campaign_name" IS 'The campaign''s current name; NULL when not loaded.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."channel" IS 'email, ios_push, android_push, sms, webhook, in_app_message, …';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."variation_id" IS 'The message variation (its API id).';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."variation_name" IS 'The variation''s current name, from the campaigns stream; NULL when not loaded.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."sent" IS 'Messages of the variation sent on the day.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."delivered" IS 'Messages delivered; NULL when the channel does not report deliveries.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."bounces" IS 'Messages that bounced.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."opens" IS 'Opens, repeated opens of one message included.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."unique_opens" IS 'Messages opened at least once.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."clicks" IS 'Clicks, repeated clicks included.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."unique_clicks" IS 'Messages clicked at least once.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."unsubscribes" IS 'Users who unsubscribed from the message.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."delivery_rate" IS 'delivered / sent; NULL when nothing was sent or deliveries are not reported.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."open_rate" IS 'unique_opens / delivered; NULL when nothing was delivered. Over several rows use sum(unique_opens) / sum(delivered).';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."click_rate" IS 'unique_clicks / delivered; NULL when nothing was delivered.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."click_to_open_rate" IS 'unique_clicks / unique_opens; NULL when nothing was opened.';
COMMENT ON COLUMN "analytics"."campaign_message_daily"."channel_stats" IS 'The fields only this channel reports (e.g. reported_spam for email, direct_opens for push), as JSON.';
