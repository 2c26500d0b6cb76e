// Which failures cost one stream and which the whole run. A stream that cannot complete — an answer that does not match
// the spec, a 4xx it cannot fix, retries exhausted on 429/5xx — fails alone: the other streams are committed and
// published, it keeps its previous rows and state. What concerns every stream ends the run: the key refused (401), the
// server unreachable, the database or disk failing, a programming error.
import { FatalApiError, FatalError, RetriableApiError, UnreadableListError } from '../errors.js';
import type { RunSummary } from './run-pipeline.js';
import type { FailureScope } from './task-queues.js';

/** A stream the run could not complete, and why (one line, free of credentials like every error message). */
export interface StreamFailure {
  stream: string;
  error: string;
}

/** The scope of a failure met while fetching one stream's data. */
export function failureScope(error: unknown): FailureScope {
  if (error instanceof FatalApiError) return error.status === 401 ? 'run' : 'group';
  // A list that loops or passes the page cap: the streams that need it fail, the others are published.
  if (error instanceof UnreadableListError) return 'group';
  // A give-up after answers (429, 5xx, truncated bodies) is this endpoint's trouble; one with no answer at all (refused,
  // reset, timed out) is the server's, and would meet every other stream too.
  if (error instanceof RetriableApiError) return error.status !== undefined ? 'group' : 'run';
  return 'run';
}

export function describeFailure(stream: string, error: unknown): StreamFailure {
  return { stream, error: error instanceof Error ? error.message : String(error) };
}

/**
 * Some streams could not complete; every other stream was committed and published. Carries the run's summary (status
 * `failed`, `failedStreams`), which the CLI prints as it prints a successful run's.
 */
export class StreamsFailedError extends FatalError {
  readonly summary: RunSummary;

  constructor(message: string, summary: RunSummary) {
    super(message);
    this.name = 'StreamsFailedError';
    this.summary = summary;
  }
}
