-- Revenue and purchases per complete day over all apps and products (the platform's totals).
SELECT * FROM analytics.purchases_daily WHERE complete
