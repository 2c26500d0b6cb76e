// The run's one scheduler: a request starts when its rows have room (the fetch loop asks before it takes a task), then
// goes when its limit pool grants a permit and it has a place in flight (the API client asks, RequestScheduler). The run
// makes it, hands it to the client, the committer and the fetch loop, and closes it at its end.
import { RequestScheduler, type RequestSchedulerOptions } from '../api/request-scheduler.js';
import type { StagedRows } from './committer.js';

/**
 * Rows staged in the open load package, not yet taken by a commit, past which no fetch task starts until a commit takes
 * them: the package is on disk, so this bounds the disk a slow database lets the fetch fill, and how far the committed
 * state lags the fetch. Requests already in flight still stage their rows.
 */
export const MAX_STAGED_ROWS = 200_000;

/** A RequestScheduler that also decides the room a request's rows may take before the request starts. */
export class RunScheduler extends RequestScheduler implements StagedRows {
  #staged = 0;
  #refusal: { error: unknown } | undefined;
  #waiting: { admit: () => void; fail: (error: unknown) => void }[] = [];

  static override create(opts: RequestSchedulerOptions = {}): RunScheduler {
    return new RunScheduler(opts);
  }

  /**
   * Resolves once the rows staged and not yet committed fit MAX_STAGED_ROWS; rejects with the committer's failure once
   * it has failed (no request is sent for rows that cannot be committed).
   */
  rowRoom(): Promise<void> {
    if (this.#refusal) return Promise.reject(this.#refusal.error);
    if (this.#staged <= MAX_STAGED_ROWS) return Promise.resolve();
    return new Promise<void>((admit, fail) => this.#waiting.push({ admit, fail }));
  }

  /** The committer wrote `rows` rows to the open package. */
  staged(rows: number): void {
    this.#staged += rows;
  }

  /** A commit took the open package with its `rows` rows: the fetch may fill the next one. */
  taken(rows: number): void {
    this.#staged = Math.max(0, this.#staged - rows);
    if (this.#staged > MAX_STAGED_ROWS) return;
    for (const w of this.#waiting.splice(0)) w.admit();
  }

  /** The committer failed: nothing staged will be committed, and no task waiting for room starts. */
  refuse(error: unknown): void {
    this.#refusal ??= { error };
    this.#staged = 0;
    for (const w of this.#waiting.splice(0)) w.fail(error);
  }
}
