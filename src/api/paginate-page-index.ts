// Page-index pagination (GET /events/list, the discovery lists): ask for page 0, 1, 2… until a page comes back short.
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
  /**
   * The server may cut pages smaller than `pageSize` (a documented size another server does not keep, or an
   * undocumented one): a first page shorter than `pageSize` then does not end the list, and the first page's length
   * becomes the size a short page is measured against. Costs one more request when the whole list fits one short page.
   * @default false
   */
  smallerPages?: boolean;
  /**
   * The documentation leaves open whether pages count from 0 or from 1 (one example asks `page=1` first): tell them
   * apart from the answers. An empty page 0 followed by a page 1 with items is a list counted from 1 whose server answers
   * 0 with nothing; a page 1 holding exactly page 0's items is a server that reads 0 as 1 — its repeat is dropped and
   * reading goes on at page 2. Costs one request more for an empty list.
   * @default false (pages from 0, as /events/list documents)
   */
  detectFirstPage?: boolean;
}

/**
 * Yields each page with its items, one per request (an empty last page included). Stops after a page shorter than
 * `pageSize` or at an empty one. A full page whose items all came on earlier pages (the server ignores the page parameter), or a list still full at the client's
 * `maxPages`, is a FatalError naming the endpoint and the page rather than an endless loop.
 */
export async function* paginatePageIndex<T>(
  client: ApiClient,
  call: ApiCall,
  options: PageIndexOptions<T>,
): AsyncGenerator<{ response: ApiResponse<T>; items: readonly unknown[]; page: number }> {
  const param = options.param ?? 'page';
  const guard = new PageGuard(`${call.endpoint.method} ${call.endpoint.path}`, client.maxPages);
  let pageSize = options.pageSize;
  let firstItems: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= client.maxPages) guard.check(page, [], `${param}=${page}`);
    const response = await client.request<T>({ ...call, query: { ...call.query, [param]: page } });
    const items = options.itemsOf(response.body);
    if (options.detectFirstPage && page <= 1) {
      if (page === 0) firstItems = JSON.stringify(items);
      // Page 0 empty: a list counted from 1 answers it empty, so page 1 decides whether the list is empty.
      if (page === 0 && items.length === 0) {
        yield { response, items, page };
        continue;
      }
      // Page 1 repeating page 0 whole: the server reads 0 as 1; the repeat is no new item and no loop.
      if (page === 1 && items.length > 0 && JSON.stringify(items) === firstItems) {
        yield { response, items: [], page };
        continue;
      }
    }
    // The empty page is yielded too: one yield per request, so callers count requests exactly.
    if (items.length === 0) {
      yield { response, items, page };
      return;
    }
    // A short last page may hold the same item twice legitimately (two identical events); a full one never repeats a page.
    if (items.length >= pageSize || options.smallerPages) guard.check(page, items, `${param}=${page}`);
    yield { response, items, page };
    if (options.smallerPages && (page === 0 || (options.detectFirstPage && page === 1 && firstItems === '[]'))) {
      pageSize = Math.min(pageSize, items.length);
      continue;
    }
    if (items.length < pageSize) return;
  }
}
