SELECT * FROM analytics.sessions_daily
