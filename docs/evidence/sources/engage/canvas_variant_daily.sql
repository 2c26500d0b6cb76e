SELECT * FROM analytics.canvas_variant_daily WHERE complete
