-- Revenue and purchases per day over all apps and products (the platform's totals).
SELECT * FROM analytics.purchases_daily
