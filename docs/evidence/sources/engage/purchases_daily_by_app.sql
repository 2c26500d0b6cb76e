-- Revenue and purchases per day and app (loaded apps only, no totals).
SELECT * FROM analytics.purchases_daily_by_app WHERE complete
