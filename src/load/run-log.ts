// The run logs: `_etl_runs` (one row per `engage-etl run`) and the rule both it and push's `_push_runs` follow for a run
// whose process died before recording its end — it is marked 'abandoned', with the same note, by the next run. RunLog
// is the store of `_etl_runs`: the SQL that writes and reads it lives here.
import { BIGINT, INTEGER, TIMESTAMP, VARCHAR } from '@duckdb/node-api';
import type { DuckDBConnection } from '@duckdb/node-api';
import { FatalError } from '../errors.js';
import { toDuckDBValue } from './duckdb-values.js';
import { ident } from './table-definition.js';
import type { Warehouse } from './warehouse.js';

export interface RunStart {
  runId: string;
  pipeline: string;
  startedAt: Date;
  /** The run's frozen upper bound. */
  until: Date;
  /** @default process.pid */
  pid?: number;
}

export interface RunEnd {
  runId: string;
  finishedAt: Date;
  /** 'completed_with_holes': every task ran, but some units stayed missing (exit 3). */
  status: 'succeeded' | 'completed_with_holes' | 'incomplete' | 'failed' | 'interrupted';
  requests: number;
  rowsChanged: number;
  /** One-line reason of a failed run. */
  error?: string;
}

/** The status of a logged run whose process died before it could record its end. */
const ABANDONED = 'abandoned';

const ABANDONED_NOTE =
  'ended without recording its end (the process was killed or crashed); its committed batches were kept and later runs resumed from them';

/**
 * Mark the rows of `table` still 'running' as abandoned. Only the holder of the run lock may call it: no run of that
 * database can then still be alive. Returns `run_id (pid N)` of each.
 */
async function closeAbandonedRuns(
  conn: DuckDBConnection,
  at: Date,
  table: '_etl_runs' | '_push_runs' = '_etl_runs',
): Promise<string[]> {
  const rows = (
    await conn.runAndReadAll(
      `SELECT "run_id", "pid" FROM ${ident(table)} WHERE "status" = 'running' ORDER BY "started_at"`,
    )
  ).getRowObjectsJS();
  if (rows.length === 0) return [];
  await conn.run(
    `UPDATE ${ident(table)} SET "status" = '${ABANDONED}', "finished_at" = $1, "error" = $2 WHERE "status" = 'running'`,
    [toDuckDBValue('TIMESTAMP', at, 'abandoned runs finishedAt'), ABANDONED_NOTE],
    [TIMESTAMP, VARCHAR],
  );
  return rows.map((r) => `${String(r.run_id)} (pid ${String(r.pid)})`);
}

/** Record the start of a run (status 'running'). */
async function beginRun(conn: DuckDBConnection, db: string, r: RunStart): Promise<void> {
  const existing = (
    await conn.runAndReadAll(`SELECT 1 FROM "_etl_runs" WHERE "run_id" = $1`, [r.runId], [VARCHAR])
  ).getRows();
  if (existing.length > 0)
    throw new FatalError(`run ${r.runId} is already in the run log of ${db}; every run needs a new id`);
  await conn.run(
    `INSERT INTO "_etl_runs" ("run_id", "pipeline", "started_at", "until", "status", "requests", "rows_changed", "pid")
     VALUES ($1, $2, $3, $4, 'running', 0, 0, $5)`,
    [
      r.runId,
      r.pipeline,
      toDuckDBValue('TIMESTAMP', r.startedAt, 'run startedAt'),
      toDuckDBValue('TIMESTAMP', r.until, 'run until'),
      r.pid ?? process.pid,
    ],
    [VARCHAR, VARCHAR, TIMESTAMP, TIMESTAMP, INTEGER],
  );
}

/** Record the end of a run begun with beginRun. */
async function finishRun(conn: DuckDBConnection, db: string, r: RunEnd): Promise<void> {
  const rows = (
    await conn.runAndReadAll(
      `UPDATE "_etl_runs" SET "finished_at" = $2, "status" = $3, "requests" = $4, "rows_changed" = $5, "error" = $6 WHERE "run_id" = $1`,
      [
        r.runId,
        toDuckDBValue('TIMESTAMP', r.finishedAt, 'run finishedAt'),
        r.status,
        BigInt(r.requests),
        BigInt(r.rowsChanged),
        r.error ?? null,
      ],
      [VARCHAR, TIMESTAMP, VARCHAR, BIGINT, BIGINT, VARCHAR],
    )
  ).getRows();
  if (Number(rows[0]?.[0] ?? 0) === 0)
    throw new FatalError(`run ${r.runId} is not in the run log of ${db}; call RunLog.begin first`);
}

/** The statuses of a run that ended and recorded its end. */
const ENDED = `('succeeded', 'completed_with_holes', 'incomplete', 'failed')`;

/** `_etl_runs` of one database: begin and finish a run, close abandoned ones, read the latest. */
export class RunLog {
  readonly #wh: Warehouse;

  constructor(warehouse: Warehouse) {
    this.#wh = warehouse;
  }

  /**
   * Close the log entries of runs that never recorded their end (killed, crashed, power lost). Call it only while holding
   * the run lock — then no run can still be running — before begin. Returns their ids.
   */
  async closeAbandoned(at: Date, log: '_etl_runs' | '_push_runs' = '_etl_runs'): Promise<string[]> {
    return this.#wh.withConnection((conn) => closeAbandonedRuns(conn, at, log));
  }

  /** Record the start of a run (status 'running'). */
  async begin(r: RunStart): Promise<void> {
    await this.#wh.withConnection((conn) => beginRun(conn, this.#wh.path, r));
  }

  /** Record the end of a run begun with begin. */
  async finish(r: RunEnd): Promise<void> {
    await this.#wh.withConnection((conn) => finishRun(conn, this.#wh.path, r));
  }

  /** The newest run's row (as `status` shows it), or undefined when none ran. */
  async latest(): Promise<Record<string, unknown> | undefined> {
    const [row] = await this.#wh.query(
      'SELECT run_id, status, started_at, finished_at, "until", requests, rows_changed, error, pid FROM "_etl_runs" ORDER BY started_at DESC LIMIT 1',
    );
    return row;
  }

  /** How many runs ended and recorded their end (abandoned, running and interrupted ones are not counted). */
  async endedCount(): Promise<number> {
    const [row] = await this.#wh.query(
      `SELECT count(*) AS n FROM "_etl_runs" WHERE "status" IN ${ENDED} AND "finished_at" IS NOT NULL`,
    );
    return Number(row?.['n'] ?? 0);
  }
}
