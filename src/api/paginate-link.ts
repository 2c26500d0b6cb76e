// Link-header pagination (GET /cdi/integrations): follow `rel="next"` until there is none. Relative targets are resolved
// against the base URL with its path prefix; a target off the base origin, or one already visited, stops the run.
import type { ApiCall, ApiResponse } from './api-call.js';
import type { ApiClient } from './api-client.js';
import { findLink } from './link-header.js';
import { PageGuard } from './page-guard.js';
import { FatalError } from '../errors.js';

/**
 * Resolves a `next` target: `/path?x` is appended to the base URL (path prefix kept, unless the target already starts
 * with that prefix); `path?x` or `?x` resolve against the page that carried the link (RFC 3986); absolute URLs are kept
 * but must be on the base URL's origin, because following them sends the API key.
 */
export function resolveNextLink(target: string, baseUrl: string, currentUrl: string): string {
  const base = new URL(baseUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  let resolved: URL;
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) {
    resolved = new URL(target, currentUrl);
  } else if (target.startsWith('/')) {
    const alreadyPrefixed =
      prefix !== '' && (target === prefix || target.startsWith(`${prefix}/`) || target.startsWith(`${prefix}?`));
    resolved = new URL(`${base.origin}${alreadyPrefixed ? '' : prefix}${target}`);
  } else {
    resolved = new URL(target, currentUrl);
  }
  if (resolved.origin !== base.origin) {
    throw new FatalError(
      `The next-page link "${target}" points to ${resolved.origin}, not to the API at ${base.origin}; refusing to send the API key there. Check baseUrl (it must be the address the server calls itself).`,
    );
  }
  return resolved.href;
}

/** How a Link-paginated list is read. */
export interface LinkPaginationOptions<T> {
  /**
   * The items of a page's body, to recognise a page of items already seen; a malformed body may give `[]`.
   * @default none (only repeated links and cursors, and maxPages, end a loop)
   */
  itemsOf?(body: T): readonly unknown[];
}

/**
 * Yields every page of a Link-paginated endpoint, starting with `call`. Throws FatalError when a page links to a URL
 * (or a cursor) already fetched, when a page holds only items of earlier pages (new cursors over old items), or when
 * the list passes the client's `maxPages`: each would otherwise loop for ever.
 */
export async function* paginateLink<T>(
  client: ApiClient,
  call: ApiCall,
  options: LinkPaginationOptions<T> = {},
): AsyncGenerator<ApiResponse<T>> {
  const seenUrls = new Set<string>();
  const seenCursors = new Set<string>();
  const guard = new PageGuard(`${call.endpoint.method} ${call.endpoint.path}`, client.maxPages);
  let next: ApiCall | undefined = call;
  let page = 0;
  while (next) {
    const where =
      next.url === undefined ? 'the first page' : `"${new URL(next.url).search || new URL(next.url).pathname}"`;
    if (page >= client.maxPages) guard.check(page, [], where);
    const response: ApiResponse<T> = await client.request<T>(next);
    seenUrls.add(new URL(response.url).href);
    const cursor = new URL(response.url).searchParams.get('cursor');
    if (cursor !== null) seenCursors.add(cursor);
    guard.check(page, options.itemsOf?.(response.body) ?? [], where);
    yield response;
    page++;
    const target = findLink(response.headers.get('link'), 'next');
    if (target === undefined || target === '') return;
    const url = resolveNextLink(target, client.baseUrl, response.url);
    const nextCursor = new URL(url).searchParams.get('cursor');
    if (seenUrls.has(url) || (nextCursor !== null && seenCursors.has(nextCursor))) {
      throw new FatalError(
        `${call.endpoint.method} ${call.endpoint.path}: page ${page} links to "${target}", which was already fetched; stopping instead of looping. The server's pagination is broken — report it or retry later.`,
      );
    }
    next = { ...call, query: undefined, url };
  }
}
