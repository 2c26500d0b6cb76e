-- Revenue and purchases per day. The base tables keep '*' rows ("all apps", "all products") beside the per-app and
-- per-product rows, so each grain gets a view of its own: summing any column of any of these views counts each
-- purchase once. A day is the series' day point when one was loaded, else the sum of its hour points.

-- Internal: one row per loaded (day, app_id, product); '*' rows included. Not a view, so no BI tool lists it.
CREATE OR REPLACE MACRO "analytics"."purchases_per_series"() AS TABLE
WITH
  "revenue_days" AS (
    SELECT "app_id", "product", "day", arg_min("value", "unit" <> 'day') AS "revenue",
           "analytics"."day_complete"("day", arg_min_null("wm", "unit" <> 'day')) AS "complete" FROM (
      SELECT r."app_id", r."product", CAST(r."time" AS DATE) AS "day", r."unit", sum(r."revenue") AS "value", max(w."watermark") AS "wm"
      FROM "main"."revenue" r
      LEFT JOIN "analytics"."series_watermarks"('revenue') w ON w."series_key" = 'unit=' || r."unit" || '|app_id=' || r."app_id" || '|product=' || r."product"
      GROUP BY ALL
    ) GROUP BY "app_id", "product", "day"
  ),
  "quantity_days" AS (
    SELECT "app_id", "product", "day", arg_min("value", "unit" <> 'day') AS "purchases",
           "analytics"."day_complete"("day", arg_min_null("wm", "unit" <> 'day')) AS "complete" FROM (
      SELECT q."app_id", q."product", CAST(q."time" AS DATE) AS "day", q."unit", sum(q."purchase_quantity") AS "value", max(w."watermark") AS "wm"
      FROM "main"."purchase_quantity" q
      LEFT JOIN "analytics"."series_watermarks"('purchase_quantity') w ON w."series_key" = 'unit=' || q."unit" || '|app_id=' || q."app_id" || '|product=' || q."product"
      GROUP BY ALL
    ) GROUP BY "app_id", "product", "day"
  )
SELECT
  COALESCE(r."day", q."day") AS "day",
  COALESCE(r."app_id", q."app_id") AS "app_id",
  COALESCE(r."product", q."product") AS "product",
  r."revenue" AS "revenue",
  CAST(q."purchases" AS BIGINT) AS "purchases",
  COALESCE(r."complete", true) AND COALESCE(q."complete", true) AS "complete"
FROM "revenue_days" r FULL OUTER JOIN "quantity_days" q
  ON r."day" = q."day" AND r."app_id" = q."app_id" AND r."product" = q."product";

CREATE OR REPLACE VIEW "analytics"."purchases_daily" AS
SELECT "day", "revenue", "purchases", CAST("revenue" / NULLIF("purchases", 0) AS DECIMAL(18,4)) AS "revenue_per_purchase", "complete"
FROM "analytics"."purchases_per_series"() WHERE "app_id" = '*' AND "product" = '*';
COMMENT ON VIEW "analytics"."purchases_daily" IS 'Revenue and purchases per day over all apps and all products (the platform''s own totals). One row per day; SUM over days is the true total.';
COMMENT ON COLUMN "analytics"."purchases_daily"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."purchases_daily"."revenue" IS 'Revenue of the day, all apps and products, in the workspace currency (USD per the platform), exact to the cent (DECIMAL). NULL when the revenue series was not loaded.';
COMMENT ON COLUMN "analytics"."purchases_daily"."purchases" IS 'Purchases (quantity) of the day, all apps and products. NULL when the purchase series was not loaded.';
COMMENT ON COLUMN "analytics"."purchases_daily"."revenue_per_purchase" IS 'revenue / purchases to a hundredth of a cent; NULL when there was no purchase.';
COMMENT ON COLUMN "analytics"."purchases_daily"."complete" IS 'True when the day had ended and was loaded whole (the watermark of its revenue and purchase series passed it); false for today and for days a backfill has not reached. Sum complete days only.';

CREATE OR REPLACE VIEW "analytics"."purchases_daily_by_app" AS
SELECT "day", "app_id", "revenue", "purchases", CAST("revenue" / NULLIF("purchases", 0) AS DECIMAL(18,4)) AS "revenue_per_purchase", "complete"
FROM "analytics"."purchases_per_series"() WHERE "app_id" <> '*' AND "product" = '*';
COMMENT ON VIEW "analytics"."purchases_daily_by_app" IS 'Revenue and purchases per day and app, all products. Holds only the apps the pipeline loads, so its SUM is the total of those apps; the all-apps total is purchases_daily. To fill: list apps besides "*" in the pipeline, e.g. purchase_quantity: { apps: ["*", app_1] } and revenue: { apps: ["*", app_1] }.';
COMMENT ON COLUMN "analytics"."purchases_daily_by_app"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."purchases_daily_by_app"."app_id" IS 'The app.';
COMMENT ON COLUMN "analytics"."purchases_daily_by_app"."revenue" IS 'Revenue of the app on the day, all products. NULL when the pipeline does not load revenue for this app. To fill: list the apps in the revenue stream of the pipeline, e.g. revenue: { apps: ["*", app_1] }.';
COMMENT ON COLUMN "analytics"."purchases_daily_by_app"."purchases" IS 'Purchases (quantity) of the app on the day, all products. NULL when not loaded for this app. To fill: list the apps in the purchase_quantity stream of the pipeline, e.g. purchase_quantity: { apps: ["*", app_1] }.';
COMMENT ON COLUMN "analytics"."purchases_daily_by_app"."revenue_per_purchase" IS 'revenue / purchases to a hundredth of a cent; NULL when there was no purchase.';
COMMENT ON COLUMN "analytics"."purchases_daily_by_app"."complete" IS 'True when the day had ended and was loaded whole (the watermark of its revenue and purchase series passed it); false for today and for days a backfill has not reached. Sum complete days only.';

CREATE OR REPLACE VIEW "analytics"."purchases_daily_by_product" AS
SELECT "day", "product", "revenue", "purchases", CAST("revenue" / NULLIF("purchases", 0) AS DECIMAL(18,4)) AS "revenue_per_purchase", "complete"
FROM "analytics"."purchases_per_series"() WHERE "app_id" = '*' AND "product" <> '*';
COMMENT ON VIEW "analytics"."purchases_daily_by_product" IS 'Revenue and purchases per day and product, all apps. Holds only the products the pipeline loads; the all-products total is purchases_daily. To fill: list products in the pipeline, e.g. revenue: { products: ["*", all] } and purchase_quantity: { products: ["*", all] }.';
COMMENT ON COLUMN "analytics"."purchases_daily_by_product"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."purchases_daily_by_product"."product" IS 'The product id.';
COMMENT ON COLUMN "analytics"."purchases_daily_by_product"."revenue" IS 'Revenue of the product on the day, all apps. NULL when not loaded for this product. To fill: list the products in the revenue stream of the pipeline, e.g. revenue: { products: ["*", all] }.';
COMMENT ON COLUMN "analytics"."purchases_daily_by_product"."purchases" IS 'Purchases (quantity) of the product on the day, all apps. NULL when not loaded for this product. To fill: list the products in the purchase_quantity stream of the pipeline, e.g. purchase_quantity: { products: ["*", all] }.';
COMMENT ON COLUMN "analytics"."purchases_daily_by_product"."revenue_per_purchase" IS 'revenue / purchases to a hundredth of a cent; NULL when there was no purchase.';
COMMENT ON COLUMN "analytics"."purchases_daily_by_product"."complete" IS 'True when the day had ended and was loaded whole (the watermark of its revenue and purchase series passed it); false for today and for days a backfill has not reached. Sum complete days only.';

CREATE OR REPLACE VIEW "analytics"."purchases_daily_by_app_product" AS
SELECT "day", "app_id", "product", "revenue", "purchases", CAST("revenue" / NULLIF("purchases", 0) AS DECIMAL(18,4)) AS "revenue_per_purchase", "complete"
FROM "analytics"."purchases_per_series"() WHERE "app_id" <> '*' AND "product" <> '*';
COMMENT ON VIEW "analytics"."purchases_daily_by_app_product" IS 'Revenue and purchases per day, app and product: only the loaded (app, product) pairs, no totals. To fill: list apps and products together in the pipeline, e.g. purchase_quantity: { apps: ["*", app_1], products: ["*", all] }.';
COMMENT ON COLUMN "analytics"."purchases_daily_by_app_product"."day" IS 'The day (UTC).';
COMMENT ON COLUMN "analytics"."purchases_daily_by_app_product"."app_id" IS 'The app.';
COMMENT ON COLUMN "analytics"."purchases_daily_by_app_product"."product" IS 'The product id.';
COMMENT ON COLUMN "analytics"."purchases_daily_by_app_product"."revenue" IS 'Revenue of the product in the app on the day. NULL when not loaded for this pair. To fill: list apps and products together in the revenue stream, e.g. revenue: { apps: ["*", app_1], products: ["*", all] }.';
COMMENT ON COLUMN "analytics"."purchases_daily_by_app_product"."purchases" IS 'Purchases (quantity) of the product in the app on the day. NULL when not loaded for this pair. To fill: list apps and products together in the purchase_quantity stream, e.g. purchase_quantity: { apps: ["*", app_1], products: ["*", all] }.';
COMMENT ON COLUMN "analytics"."purchases_daily_by_app_product"."revenue_per_purchase" IS 'revenue / purchases to a hundredth of a cent; NULL when there was no purchase.';
COMMENT ON COLUMN "analytics"."purchases_daily_by_app_product"."complete" IS 'True when the day had ended and was loaded whole (the watermark of its revenue and purchase series passed it); false for today and for days a backfill has not reached. Sum complete days only.';

-- Internal: for each view above that a pipeline option fills, whether it has a row (and each hinted column a value),
-- read from the base tables with the view's own filter, since the view's full join groups every series of both tables
-- even for its first row. The run's summary and the report ask these (src/views/unfilled-views.ts); each answers as its
-- view does (test/views/view-probes.test.ts).
CREATE OR REPLACE MACRO "analytics"."purchases_daily_by_app_filled"() AS TABLE
SELECT EXISTS (FROM "main"."revenue" WHERE "app_id" <> '*' AND "product" = '*')
         OR EXISTS (FROM "main"."purchase_quantity" WHERE "app_id" <> '*' AND "product" = '*') AS "rows",
       EXISTS (FROM "main"."revenue" WHERE "app_id" <> '*' AND "product" = '*' AND "revenue" IS NOT NULL AND "unit" IS NOT NULL) AS "revenue",
       EXISTS (FROM "main"."purchase_quantity" WHERE "app_id" <> '*' AND "product" = '*' AND "purchase_quantity" IS NOT NULL AND "unit" IS NOT NULL) AS "purchases";
CREATE OR REPLACE MACRO "analytics"."purchases_daily_by_product_filled"() AS TABLE
SELECT EXISTS (FROM "main"."revenue" WHERE "app_id" = '*' AND "product" <> '*')
         OR EXISTS (FROM "main"."purchase_quantity" WHERE "app_id" = '*' AND "product" <> '*') AS "rows",
       EXISTS (FROM "main"."revenue" WHERE "app_id" = '*' AND "product" <> '*' AND "revenue" IS NOT NULL AND "unit" IS NOT NULL) AS "revenue",
       EXISTS (FROM "main"."purchase_quantity" WHERE "app_id" = '*' AND "product" <> '*' AND "purchase_quantity" IS NOT NULL AND "unit" IS NOT NULL) AS "purchases";
CREATE OR REPLACE MACRO "analytics"."purchases_daily_by_app_product_filled"() AS TABLE
SELECT EXISTS (FROM "main"."revenue" WHERE "app_id" <> '*' AND "product" <> '*')
         OR EXISTS (FROM "main"."purchase_quantity" WHERE "app_id" <> '*' AND "product" <> '*') AS "rows",
       EXISTS (FROM "main"."revenue" WHERE "app_id" <> '*' AND "product" <> '*' AND "revenue" IS NOT NULL AND "unit" IS NOT NULL) AS "revenue",
       EXISTS (FROM "main"."purchase_quantity" WHERE "app_id" <> '*' AND "product" <> '*' AND "purchase_quantity" IS NOT NULL AND "unit" IS NOT NULL) AS "purchases";
