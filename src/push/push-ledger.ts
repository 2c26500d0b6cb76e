// The push ledger in DuckDB (sql/100-push.sql): reads what the platform acknowledged per row of a target, and writes
// each answered request's outcomes at once — the checkpoint a killed push resumes from — plus the run and row logs.
import { RunLog } from '../load/run-log.js';
import type { Warehouse } from '../load/warehouse.js';
import type { Operation, RowStatus, TargetName } from './push-target.js';
import type { RowValues } from './row-values.js';

/** One `_push_state` row. */
export interface LedgerEntry {
  destination: string;
  key: string;
  status: RowStatus;
  /** Values the platform last accepted; undefined when it never accepted one. */
  ackedValues: RowValues | undefined;
  ackedHash: string | undefined;
  attemptedHash: string | undefined;
  error: string | undefined;
  attempts: number;
  runId: string;
  mappingHash: string;
}

/** A row outcome to record: the ledger entry it leads to and the log line. */
export interface LedgerWrite {
  entry: LedgerEntry;
  rowIndex: number | null;
  operation: Operation | null;
}

/** One `_push_log` line. */
export interface LogLine {
  destination: string | null;
  key: string | null;
  rowIndex: number | null;
  operation: Operation | null;
  status: RowStatus;
  error: string | undefined;
}

export interface PushRunCounts {
  rowsRead: number;
  rowsUnchanged: number;
  rowsAccepted: number;
  rowsRejected: number;
  rowsInvalid: number;
  rowsTransient: number;
  requests: number;
}

/** Ledger key of a (destination, row key) pair. */
export function ledgerKey(destination: string, key: string): string {
  return `${destination}\u0000${key}`;
}

const STATE_SHAPE = JSON.stringify({
  destination: 'VARCHAR',
  row_key: 'VARCHAR',
  status: 'VARCHAR',
  acked_values: 'VARCHAR',
  acked_hash: 'VARCHAR',
  attempted_hash: 'VARCHAR',
  error: 'VARCHAR',
  attempts: 'INTEGER',
  run_id: 'VARCHAR',
  mapping_hash: 'VARCHAR',
});
const LOG_SHAPE = JSON.stringify({
  destination: 'VARCHAR',
  row_key: 'VARCHAR',
  row_index: 'BIGINT',
  operation: 'VARCHAR',
  status: 'VARCHAR',
  error: 'VARCHAR',
});

export class PushLedger {
  readonly #wh: Warehouse;
  readonly #target: TargetName;
  readonly #runId: string;

  constructor(warehouse: Warehouse, target: TargetName, runId: string) {
    this.#wh = warehouse;
    this.#target = target;
    this.#runId = runId;
  }

  /** Every ledger entry of the target, by ledgerKey. */
  async load(): Promise<Map<string, LedgerEntry>> {
    const rows = await this.#wh.query(
      `SELECT "destination", "row_key", "status", "acked_values"::VARCHAR AS "acked_values", "acked_hash", "attempted_hash", "error", "attempts",
              "run_id", "mapping_hash" FROM "_push_state" WHERE "target" = $1`,
      [this.#target],
    );
    const entries = new Map<string, LedgerEntry>();
    for (const r of rows) {
      const entry: LedgerEntry = {
        destination: r.destination as string,
        key: r.row_key as string,
        status: r.status as RowStatus,
        ackedValues: typeof r.acked_values === 'string' ? (JSON.parse(r.acked_values) as RowValues) : undefined,
        ackedHash: (r.acked_hash as string | null) ?? undefined,
        attemptedHash: (r.attempted_hash as string | null) ?? undefined,
        error: (r.error as string | null) ?? undefined,
        attempts: Number(r.attempts),
        runId: r.run_id as string,
        mappingHash: r.mapping_hash as string,
      };
      entries.set(ledgerKey(entry.destination, entry.key), entry);
    }
    return entries;
  }

  /**
   * Record outcomes: ledger rows replaced in one statement (so a kill leaves each either before or after), then the log.
   * Rows without a stable identity (invalid before a key was known) go to the log only.
   */
  async record(
    writes: readonly LedgerWrite[],
    keyless: readonly { rowIndex: number; error: string }[] = [],
  ): Promise<void> {
    const state = writes.map(({ entry }) => ({
      destination: entry.destination,
      row_key: entry.key,
      status: entry.status,
      acked_values: entry.ackedValues === undefined ? null : JSON.stringify(entry.ackedValues),
      acked_hash: entry.ackedHash ?? null,
      attempted_hash: entry.attemptedHash ?? null,
      error: entry.error ?? null,
      attempts: entry.attempts,
      run_id: entry.runId,
      mapping_hash: entry.mappingHash,
    }));
    if (state.length > 0) {
      await this.#wh.query(
        `INSERT OR REPLACE INTO "_push_state"
         SELECT $2, "destination", "row_key", "status", "acked_values"::JSON, "acked_hash", "attempted_hash", "error", "attempts", "run_id",
                "mapping_hash", $3
         FROM (SELECT unnest(from_json($1::JSON, '[${STATE_SHAPE}]'), recursive := true))`,
        [JSON.stringify(state), this.#target, new Date()],
      );
    }
    await this.logOnly([
      ...writes.map((w) => ({
        destination: w.entry.destination,
        key: w.entry.key,
        rowIndex: w.rowIndex,
        operation: w.operation,
        status: w.entry.status,
        error: w.entry.error,
      })),
      ...keyless.map((k) => ({
        destination: null,
        key: null,
        rowIndex: k.rowIndex,
        operation: null,
        status: 'invalid' as const,
        error: k.error,
      })),
    ]);
  }

  /** Append row outcomes to `_push_log` without touching the ledger (rows that were never sent). */
  async logOnly(lines: readonly LogLine[]): Promise<void> {
    if (lines.length === 0) return;
    const log = lines.map((l) => ({
      destination: l.destination,
      row_key: l.key,
      row_index: l.rowIndex,
      operation: l.operation,
      status: l.status,
      error: l.error ?? null,
    }));
    await this.#wh.query(
      `INSERT INTO "_push_log" SELECT $2, $3, "destination", "row_key", "row_index", "operation", "status", "error", $4
       FROM (SELECT unnest(from_json($1::JSON, '[${LOG_SHAPE}]'), recursive := true))`,
      [JSON.stringify(log), this.#runId, this.#target, new Date()],
    );
  }

  /** Start the run's `_push_runs` row; runs left 'running' by a process that died are marked 'abandoned', as `run` does. */
  async beginRun(info: { startedAt: Date; mappingHash: string; source: string; dryRun: boolean }): Promise<void> {
    // The caller holds the run lock: no other push is alive, so a 'running' row belongs to a dead process.
    await new RunLog(this.#wh).closeAbandoned(info.startedAt, '_push_runs');
    await this.#wh.query(
      `INSERT INTO "_push_runs" ("run_id", "target", "started_at", "status", "mapping_hash", "source", "pid") VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        this.#runId,
        this.#target,
        info.startedAt,
        info.dryRun ? 'dry-run' : 'running',
        info.mappingHash,
        info.source,
        process.pid,
      ],
    );
  }

  async finishRun(
    status: 'succeeded' | 'partial' | 'failed' | 'dry-run',
    counts: PushRunCounts,
    error?: string,
  ): Promise<void> {
    await this.#wh.query(
      `UPDATE "_push_runs" SET "finished_at" = $2, "status" = $3, "rows_read" = $4, "rows_unchanged" = $5, "rows_accepted" = $6,
              "rows_rejected" = $7, "rows_invalid" = $8, "rows_transient" = $9, "requests" = $10, "error" = $11 WHERE "run_id" = $1`,
      [
        this.#runId,
        new Date(),
        status,
        counts.rowsRead,
        counts.rowsUnchanged,
        counts.rowsAccepted,
        counts.rowsRejected,
        counts.rowsInvalid,
        counts.rowsTransient,
        counts.requests,
        error ?? null,
      ],
    );
  }
}
