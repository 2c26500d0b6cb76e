// Which failures cost one series, one stream, or the whole run. A series that cannot complete — an answer that does not
// match the spec, a 4xx on its object or id, retries exhausted on 429/5xx, a list that loops or passes the page cap —
// fails alone: everything fetched completely is committed and published, and its failed windows are its next run's
// first. A 403 (the key lacks the endpoint's permission) would meet every series of the stream: the stream's remaining
// series are not sent. What concerns every stream ends the run: the key refused (401), the server unreachable, the
// database or disk failing, a programming error.
import { FatalApiError, RetriableApiError, UnreadableListError } from '../errors.js';
import type { FailureScope, TaskGroup } from './task-queues.js';

/** A series the run could not complete, and why (one line, free of credentials like every error message). */
export interface SeriesFailure {
  stream: string;
  /** Its series key, `id=<object id>` for an object of an id-by-id stream, `list` for a paged list, `list <name>` for a workspace list it needed. */
  series: string;
  /** The one object or id the failure concerns, when there is one. */
  id?: string;
  error: string;
  /** Whether running again can help (retries exhausted on 429/5xx/unreadable bodies), or something must change first. */
  retriable: boolean;
}

/** A stream with at least one failed series, and the first failure's reason. */
export interface StreamFailure {
  stream: string;
  error: string;
}

/** The scope of a failure met while fetching one series. */
export function failureScope(error: unknown): FailureScope {
  if (error instanceof FatalApiError) return error.status === 401 ? 'run' : error.status === 403 ? 'stream' : 'series';
  // A list that loops or passes the page cap: the streams that need it fail, the others are published.
  if (error instanceof UnreadableListError) return 'series';
  // A give-up after answers (429, 5xx, truncated bodies) is this endpoint's trouble; one with no answer at all (refused,
  // reset, timed out) is the server's, and would meet every other stream too.
  if (error instanceof RetriableApiError) return error.status !== undefined ? 'series' : 'run';
  return 'run';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Series parameters that name an object of the workspace (a metric name or a unit does not). */
const isIdParam = (param: string): boolean =>
  param === 'id' || param.endsWith('_id') || param === 'product' || param === 'event';

/**
 * The failure of one series: its id is the one the server's answer names (by value, else by parameter: `400 Invalid
 * app_id` on a series asking one app and one segment names the app), else the series' only id.
 */
export function describeSeriesFailure(group: TaskGroup, error: unknown): SeriesFailure {
  const message = messageOf(error);
  // The server's own words, without the request line (whose path may contain a parameter's name: /events/…).
  const reason = error instanceof FatalApiError || error instanceof RetriableApiError ? error.reason : message;
  const ids = Object.entries(group.ids).filter(([param, v]) => v !== '*' && isIdParam(param));
  const named =
    ids.find(([, v]) => reason.includes(v)) ?? ids.find(([param]) => new RegExp(`\\b${param}\\b`).test(reason));
  const id = named?.[1] ?? (ids.length === 1 ? ids[0]![1] : undefined);
  return {
    stream: group.stream,
    series: group.key,
    ...(id !== undefined ? { id } : {}),
    error: message,
    retriable: error instanceof RetriableApiError,
  };
}

/** The failed streams of a run: each with its first series' failure, in the order the series failed. */
export function streamFailures(series: readonly SeriesFailure[]): StreamFailure[] {
  const out = new Map<string, StreamFailure>();
  for (const f of series) if (!out.has(f.stream)) out.set(f.stream, { stream: f.stream, error: f.error });
  return [...out.values()];
}
