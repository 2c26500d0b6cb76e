SELECT * FROM analytics.sessions_daily WHERE complete
