// What a run tells the outside world while it works. The pipeline emits these; the CLI renders them as TTY progress or
// as JSON lines. No event ever carries a credential.

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

export type RunEvent =
  | { type: 'run_started'; runId: string; pipeline: string; until: string; streams: string[]; source: string }
  | { type: 'planned'; streams: { stream: string; series: number; requests: number; minimum: number }[]; requests: number }
  | { type: 'progress'; progress: StreamProgress }
  | { type: 'retry'; endpoint: string; reason: string; waitMs: number; attempt: number }
  | { type: 'committed'; tables: { table: string; inserted: number; updated: number; deleted: number }[] }
  | ({ type: 'warning' } & RunWarning)
  | { type: 'exported'; files: number; rows: number }
  | { type: 'run_finished'; runId: string; status: 'succeeded' | 'completed_with_holes' | 'failed'; seconds: number; error?: string };

export interface RunReporter {
  emit(event: RunEvent): void;
  /** Flush and release the terminal. */
  close(): void;
}

export const SILENT_REPORTER: RunReporter = { emit() {}, close() {} };
