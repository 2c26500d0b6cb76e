// What a run tells the outside world while it works. The pipeline emits these; the CLI renders them as TTY progress or
// as JSON lines. No event ever carries a credential.
import type { PoolWait } from '../api/limit-pool.js';
import type { PoolId } from '../api/endpoints.js';

export interface StreamProgress {
  stream: string;
  requestsPlanned: number;
  requestsDone: number;
  rows: number;
}

/**
 * A warning of a run: a stable `code` a machine can match on (e.g. `series_hole`, `lock_taken_over`), the stream or
 * limit pool it concerns when there is one, and a sentence for a person.
 */
export interface RunWarning {
  code: string;
  message: string;
  stream?: string;
  pool?: string;
}

/** The steps of a run, in order; commits also happen during `fetch`, `commit` is the final drain. */
export type RunPhase = 'plan' | 'fetch' | 'commit' | 'export';

/** A stream whose last fetch task finished: its share of the run. */
export interface StreamFinished {
  stream: string;
  /** From the start of fetching to the stream's last task. */
  seconds: number;
  rows: number;
  requests: number;
}

export type RunEvent =
  | { type: 'run_started'; runId: string; pipeline: string; until: string; streams: string[]; source: string }
  | { type: 'phase'; phase: RunPhase }
  | {
      type: 'planned';
      streams: { stream: string; series: number; requests: number; minimum: number }[];
      requests: number;
      /** Planned requests per limit pool. */
      byPool?: Partial<Record<PoolId, number>>;
      /** Estimated fetch duration under the pools' limits (plan-estimate.ts), in milliseconds. */
      estimateMs: number;
    }
  | { type: 'progress'; progress: StreamProgress }
  | ({ type: 'stream_finished' } & StreamFinished)
  | {
      type: 'request';
      method: string;
      /** Endpoint path without the base URL. */
      path: string;
      /** Query string as sent, credentials scrubbed. */
      query: string;
      status: number | undefined;
      ms: number;
      attempt: number;
      pool: string;
      /** `X-RateLimit-*` response headers. */
      rateLimit: Record<string, string>;
      error?: string;
    }
  | { type: 'retry'; endpoint: string; reason: string; waitMs: number; attempt: number }
  /** A limit pool waits for its window (announced from 5 s); `resumesAt` is an ISO instant. */
  | { type: 'waiting'; pool: string; remaining: number; resumesAt: string; reason: string }
  | { type: 'committed'; tables: { table: string; inserted: number; updated: number; deleted: number }[] }
  | ({ type: 'warning' } & RunWarning)
  | { type: 'exported'; files: number; rows: number }
  | {
      type: 'run_finished';
      runId: string;
      status: 'succeeded' | 'completed_with_holes' | 'incomplete' | 'failed' | 'interrupted';
      seconds: number;
      error?: string;
    };

export interface RunReporter {
  emit(event: RunEvent): void;
  /** Flush and release the terminal. */
  close(): void;
}

/** The run's announcement of a wait for a limit pool (RequestSchedulerOptions.onWait). */
export function waitingEvent(e: PoolWait): Extract<RunEvent, { type: 'waiting' }> {
  return {
    type: 'waiting',
    pool: e.pool,
    remaining: e.remaining,
    resumesAt: new Date(e.resumesAt).toISOString(),
    reason: e.reason,
  };
}

export const SILENT_REPORTER: RunReporter = { emit() {}, close() {} };
