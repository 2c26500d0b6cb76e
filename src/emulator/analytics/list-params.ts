// Query parameters of the list endpoints: a 0-based `page`, `sort_direction`, and `limit`/`offset`. A bad value throws
// ParamError (a 400 naming the parameter, the value received and what is accepted).
import { METADATA_LIST_MAX_LIMIT } from '../../api/endpoints.js';
import { ParamError } from './query-params.js';
import type { SortDirection } from './workspace-listing.js';

function show(value: string): string {
  return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
}

/** A non-negative integer parameter; `fallback` when absent. */
function countParam(query: URLSearchParams, name: string, fallback: number, what: string): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  if (!/^\d{1,9}$/.test(raw)) throw new ParamError(`${name} must be an integer ≥ 0 (${what}), got ${show(raw)}`);
  return Number(raw);
}

/** `page`: 0-based; a page past the end answers an empty list. */
export function pageParam(query: URLSearchParams, pageSize: number): number {
  return countParam(query, 'page', 0, `0 is the first ${pageSize}`);
}

/** `sort_direction`: `asc` (oldest first, the default) or `desc`. */
export function sortDirectionParam(query: URLSearchParams): SortDirection {
  const raw = query.get('sort_direction');
  if (raw === null || raw === 'asc') return 'asc';
  if (raw === 'desc') return 'desc';
  throw new ParamError(
    `sort_direction must be "asc" (oldest first, the default) or "desc" (newest first), got ${show(raw)}`,
  );
}

/** `limit`: 1 to 1,000, default 100. */
export function limitParam(query: URLSearchParams, fallback: number): number {
  const raw = query.get('limit');
  if (raw === null) return fallback;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1 || Number(raw) > METADATA_LIST_MAX_LIMIT) {
    throw new ParamError(
      `limit must be an integer from 1 to ${METADATA_LIST_MAX_LIMIT} (default ${fallback}), got ${show(raw)}`,
    );
  }
  return Number(raw);
}

/** `offset`: how many matching items to skip, default 0. */
export function offsetParam(query: URLSearchParams): number {
  return countParam(query, 'offset', 0, 'the number of items to skip');
}
