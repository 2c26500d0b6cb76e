// Page-index pagination (GET /events/list): ask for page 0, 1, 2… until a page comes back shorter than the page size.
import type { ApiCall, ApiResponse } from './api-call.js';
import type { ApiClient } from './api-client.js';
import { PageGuard } from './page-guard.js';

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
 * whose items all came on earlier pages (the server ignores the page parameter), or a list still full at the client's
 * `maxPages`, is a FatalError naming the endpoint and the page rather than an endless loop.
 */
export async function* paginatePageIndex<T>(
  client: ApiClient,
  call: ApiCall,
  options: PageIndexOptions<T>,
): AsyncGenerator<{ response: ApiResponse<T>; items: readonly unknown[]; page: number }> {
  const param = options.param ?? 'page';
  const guard = new PageGuard(`${call.endpoint.method} ${call.endpoint.path}`, client.maxPages);
  for (let page = 0; ; page++) {
    if (page >= client.maxPages) guard.check(page, [], `${param}=${page}`);
    const response = await client.request<T>({ ...call, query: { ...call.query, [param]: page } });
    const items = options.itemsOf(response.body);
    if (items.length === 0) return;
    // A short last page may hold the same item twice legitimately (two identical events); a full one never repeats a page.
    if (items.length >= options.pageSize) guard.check(page, items, `${param}=${page}`);
    yield { response, items, page };
    if (items.length < options.pageSize) return;
  }
}
