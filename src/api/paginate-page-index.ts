// Page-index pagination (GET /events/list): ask for page 0, 1, 2… until a page comes back shorter than the page size.
import type { ApiCall, ApiResponse } from './api-call.js';
import type { ApiClient } from './api-client.js';
import { FatalError } from '../errors.js';

export interface PageIndexOptions<T> {
  /** Items in a full page (EVENTS_PAGE_SIZE for /events/list). */
  pageSize: number;
  /** The items of a page's body; throws when the body is malformed. */
  itemsOf(body: T): readonly unknown[];
  /**
   * Name of the query parameter.
   * @default 'page'
   */
  param?: string;
}

/**
 * Yields each non-empty page with its items. Stops after a page shorter than `pageSize` or at an empty one. A full page
 * identical to the previous one means the server ignores the page parameter: FatalError rather than an endless loop.
 */
export async function* paginatePageIndex<T>(
  client: ApiClient,
  call: ApiCall,
  options: PageIndexOptions<T>,
): AsyncGenerator<{ response: ApiResponse<T>; items: readonly unknown[]; page: number }> {
  const param = options.param ?? 'page';
  let previous: string | undefined;
  for (let page = 0; ; page++) {
    const response = await client.request<T>({ ...call, query: { ...call.query, [param]: page } });
    const items = options.itemsOf(response.body);
    if (items.length === 0) return;
    const fingerprint = JSON.stringify(items);
    if (items.length >= options.pageSize && fingerprint === previous) {
      throw new FatalError(
        `${call.endpoint.method} ${call.endpoint.path}: ${param}=${page} returned the same ${items.length} items as ${param}=${page - 1}; the server seems to ignore "${param}", stopping instead of looping.`,
      );
    }
    previous = fingerprint;
    yield { response, items, page };
    if (items.length < options.pageSize) return;
  }
}
