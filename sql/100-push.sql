-- The push ledger (engage-etl push): what the platform acknowledged per row, every push run, and every row outcome.
-- A push sends only rows whose values differ from "acked_values"; it writes a row here right after each answered request
-- (the checkpoint a killed push resumes from). No credential is ever stored in these tables.

-- One row per (target, destination, row_key): e.g. ('subscriptions', 'sg_email_1', 'external_id:user_1').
-- status: accepted | rejected | invalid | transient.
-- acked_values: the last values the platform accepted (JSON), NULL until it accepted one; acked_hash is their hash.
-- attempted_hash: hash of the values last tried; a rejected or invalid row is tried again only once its values differ.
-- mapping_hash: hash of the target, source columns and mapping options; rows of another mapping count as never pushed.
CREATE TABLE IF NOT EXISTS "_push_state" (
  "target" VARCHAR NOT NULL, "destination" VARCHAR NOT NULL, "row_key" VARCHAR NOT NULL,
  "status" VARCHAR NOT NULL, "acked_values" JSON, "acked_hash" VARCHAR, "attempted_hash" VARCHAR,
  "error" VARCHAR, "attempts" INTEGER NOT NULL, "run_id" VARCHAR NOT NULL, "mapping_hash" VARCHAR NOT NULL,
  "updated_at" TIMESTAMP NOT NULL,
  PRIMARY KEY ("target", "destination", "row_key")
);

-- status: running | succeeded | partial | failed | interrupted (a running push whose process died) | dry-run.
CREATE TABLE IF NOT EXISTS "_push_runs" (
  "run_id" VARCHAR, "target" VARCHAR, "started_at" TIMESTAMP, "finished_at" TIMESTAMP, "status" VARCHAR,
  "mapping_hash" VARCHAR, "source" VARCHAR, "rows_read" BIGINT, "rows_unchanged" BIGINT, "rows_accepted" BIGINT,
  "rows_rejected" BIGINT, "rows_invalid" BIGINT, "rows_transient" BIGINT, "requests" BIGINT, "error" VARCHAR, "pid" INTEGER
);

-- One row per row outcome of a run. row_index is the row's position in the source (NULL for --mirror unsubscribes).
-- operation: create | update | unsubscribe | delete | set (what was asked of the platform).
CREATE TABLE IF NOT EXISTS "_push_log" (
  "run_id" VARCHAR, "target" VARCHAR, "destination" VARCHAR, "row_key" VARCHAR, "row_index" BIGINT,
  "operation" VARCHAR, "status" VARCHAR, "error" VARCHAR, "at" TIMESTAMP
);
