-- Audits of what the series say (issue 12): one endpoint checked against another, and values a re-fetch changed.

-- Reconciliation: per run and checked series, one row per metric comparing another endpoint's total over a window
-- (expected, e.g. /canvas/data_summary) with the sum of the stored daily rows (actual). window_end is exclusive.
-- status: 'match'; 'mismatch' (a warning of the run, shown by `status`); 'incomplete' (the stored rows lack days of
-- the window, e.g. an open hole: the comparison says nothing about the endpoints).
CREATE TABLE IF NOT EXISTS "_etl_reconciliation" (
  "stream" VARCHAR, "series_key" VARCHAR, "window_start" TIMESTAMP, "window_end" TIMESTAMP, "metric" VARCHAR,
  "expected" DOUBLE, "actual" DOUBLE, "status" VARCHAR, "run_id" VARCHAR, "checked_at" TIMESTAMP
);

-- Restatements: a numeric value of a unit that was already complete when stored, changed by a later re-fetch (the
-- look-back). key_values: the row's key columns other than the unit's time, as JSON. age_days: whole days from the
-- unit's start to the --until of the run that saw the change. Written in the commit transaction of the new value.
CREATE TABLE IF NOT EXISTS "_etl_restatements" (
  "stream" VARCHAR, "table_name" VARCHAR, "key_values" JSON, "column_name" VARCHAR, "unit_start" TIMESTAMP,
  "old_value" DOUBLE, "new_value" DOUBLE, "age_days" INTEGER, "run_id" VARCHAR
);

-- Look-back: per run and series stream, the complete days it re-read before its watermarks. mode: 'fixed' (a number
-- in the pipeline file) or 'auto' (set from the restatements seen); probe: an auto run at lookback_max_days, made on a
-- schedule so that restatements deeper than the look-back are seen. reason: why the look-back was that many days.
-- Each run trims it per stream to its last 14 days, its last probe and the run that began its current look-back with
-- the run before it (src/load/audit-store.ts, trimLookbacks).
CREATE TABLE IF NOT EXISTS "_etl_lookback" (
  "run_id" VARCHAR, "stream" VARCHAR, "until" TIMESTAMP, "mode" VARCHAR, "lookback_days" INTEGER, "probe" BOOLEAN, "reason" VARCHAR
);
