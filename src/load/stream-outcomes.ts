// Each stream's last outcome, recorded in `_etl_stream_outcomes` for `engage-etl status`: 'failed' when some of its series
// could not complete (what they fetched was published all the same), with the stream's last success kept. The SQL that
// writes and reads the table lives here.
import type { DuckDBConnection } from '@duckdb/node-api';
import { TIMESTAMP, VARCHAR } from '@duckdb/node-api';
import { toDuckDBValue } from './duckdb-values.js';
import type { Warehouse } from './warehouse.js';

/** One stream's outcome in a run. */
export interface StreamOutcome {
  stream: string;
  status: 'succeeded' | 'failed';
  error: string | null;
}

/** Inside the caller's transaction: record each stream's outcome of run `runId`, keeping its last success. */
async function recordStreamOutcomes(
  conn: DuckDBConnection,
  runId: string,
  finishedAt: Date,
  outcomes: readonly StreamOutcome[],
): Promise<void> {
  for (const o of outcomes) {
    const ok = o.status === 'succeeded';
    await conn.run(
      `INSERT INTO "_etl_stream_outcomes"
       SELECT $1, $2, $3, $4, $5,
              ${ok ? '$4' : `(SELECT "last_success_run_id" FROM "_etl_stream_outcomes" WHERE "stream" = $1)`},
              ${ok ? '$5' : `(SELECT "last_success_at" FROM "_etl_stream_outcomes" WHERE "stream" = $1)`}`,
      [o.stream, o.status, o.error, runId, toDuckDBValue('TIMESTAMP', finishedAt, 'finished_at')],
      [VARCHAR, VARCHAR, VARCHAR, VARCHAR, TIMESTAMP],
    );
    // The row just inserted is the newest; the older one of the stream goes.
    await conn.run(
      `DELETE FROM "_etl_stream_outcomes" WHERE "stream" = $1 AND "run_id" IS DISTINCT FROM $2`,
      [o.stream, runId],
      [VARCHAR, VARCHAR],
    );
  }
}

/** `_etl_stream_outcomes` of one database. */
export class StreamOutcomeStore {
  readonly #wh: Warehouse;

  constructor(warehouse: Warehouse) {
    this.#wh = warehouse;
  }

  /** Record each stream's outcome of run `runId`, in one transaction. */
  async record(runId: string, finishedAt: Date, outcomes: readonly StreamOutcome[]): Promise<void> {
    await this.#wh.transaction(`stream outcomes of run ${runId}`, (conn) =>
      recordStreamOutcomes(conn, runId, finishedAt, outcomes),
    );
  }

  /** Every stream's last outcome, by stream name, as `status` shows it. */
  async list(): Promise<Record<string, unknown>[]> {
    return this.#wh.query(
      'SELECT "stream", "status", "error", "run_id", "finished_at", "last_success_run_id", "last_success_at" FROM "_etl_stream_outcomes" ORDER BY "stream"',
    );
  }

  /** Each stream's last success, in whole seconds since the epoch (streams that never succeeded are left out). */
  async lastSuccesses(): Promise<Record<string, number>> {
    const rows = await this.#wh.query(
      `SELECT "stream", epoch(max("last_success_at")) AS at FROM "_etl_stream_outcomes" WHERE "last_success_at" IS NOT NULL GROUP BY "stream"`,
    );
    return Object.fromEntries(rows.map((r) => [String(r['stream']), Math.round(Number(r['at']))]));
  }
}
