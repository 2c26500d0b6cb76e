SELECT stream, series_key, unit, watermark, age_hours, open_holes, last_run_status, last_successful_run_at FROM analytics.freshness
