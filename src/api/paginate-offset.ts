// Limit/offset pagination (GET /templates/email/list, /content_blocks/list): ask `limit` items from offset 0, then from
// past the items received, until the list is plainly over. `count` is only a hint: another server may leave it out,
// cap `limit` below what was asked, or count differently, so a page is never taken as the last on `count` alone.
import type { ApiCall, ApiResponse } from './api-call.js';
import type { ApiClient } from './api-client.js';
import { PageGuard } from './page-guard.js';

export interface OffsetPageOptions<T> {
  /** Items asked per request (`limit`). */
  limit: number;
  /** The items of a page's body; throws when the body is malformed. */
  itemsOf(body: T): readonly unknown[];
  /** `count` of a body (items matching across all pages), or undefined when the server does not send one. */
  countOf(body: T): number | undefined;
}

/**
 * Yields each page, one per request (an empty last page included). The list ends at an empty page, at a page shorter
 * than the first (the server's real page size, whatever `limit` it honours), or at a page shorter than `limit` once
 * `count` equals the items received. The offset advances by the items received, so a server that caps `limit` loses
 * nothing. Loops and runaway lists stop at the PageGuard.
 */
export async function* paginateOffset<T>(
  client: ApiClient,
  call: ApiCall,
  options: OffsetPageOptions<T>,
): AsyncGenerator<{ response: ApiResponse<T>; items: readonly unknown[]; page: number }> {
  const guard = new PageGuard(`${call.endpoint.method} ${call.endpoint.path}`, client.maxPages);
  let offset = 0;
  let firstLength: number | undefined;
  for (let page = 0; ; page++) {
    if (page >= client.maxPages) guard.check(page, [], `offset=${offset}`);
    const response = await client.request<T>({ ...call, query: { ...call.query, limit: options.limit, offset } });
    const items = options.itemsOf(response.body);
    // The empty page is yielded too: one yield per request, so callers count requests exactly.
    if (items.length === 0) {
      yield { response, items, page };
      return;
    }
    guard.check(page, items, `offset=${offset}`);
    yield { response, items, page };
    offset += items.length;
    firstLength ??= items.length;
    if (items.length < firstLength) return;
    const count = options.countOf(response.body);
    // `count` ends the list only when it agrees with what came: one that says fewer than were received is plainly wrong.
    if (items.length < options.limit && count === offset) return;
  }
}
