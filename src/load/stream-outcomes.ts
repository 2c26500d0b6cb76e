// Each stream's last outcome, recorded in `_etl_stream_outcomes` for `engage-etl status`: 'failed' when some of its series
// could not complete (what they fetched was published all the same), with the stream's last success kept.
import type { DuckDBConnection } from '@duckdb/node-api';
import { TIMESTAMP, VARCHAR } from '@duckdb/node-api';
import { toDuckDBValue } from './duckdb-values.js';

/** One stream's outcome in a run. */
export interface StreamOutcome {
  stream: string;
  status: 'succeeded' | 'failed';
  error: string | null;
}

/** Inside the caller's transaction: record each stream's outcome of run `runId`, keeping its last success. */
export async function recordStreamOutcomes(conn: DuckDBConnection, runId: string, finishedAt: Date, outcomes: readonly StreamOutcome[]): Promise<void> {
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
    await conn.run(`DELETE FROM "_etl_stream_outcomes" WHERE "stream" = $1 AND "run_id" IS DISTINCT FROM $2`, [o.stream, runId], [VARCHAR, VARCHAR]);
  }
}
