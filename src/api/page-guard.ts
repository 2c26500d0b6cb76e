// Bounds a paginated list, whatever its paging style: a page made only of items already seen is a loop (a server that
// ignores the page parameter, or hands out new cursors to old items), and a list still going at the page cap is cut.
import { createHash } from 'node:crypto';
import { UnreadableListError } from '../errors.js';

/** One list's guard; call `check` once per page, in order. */
export class PageGuard {
  readonly #what: string;
  readonly #maxPages: number;
  // Digests, not the items: a long list must not be held twice in memory.
  readonly #seen = new Set<string>();

  /** @param what the endpoint, as messages name it (`GET /events/list`). */
  constructor(what: string, maxPages: number) {
    this.#what = what;
    this.#maxPages = maxPages;
  }

  /**
   * Throws UnreadableListError when page `page` (0-based; `where` says how it was asked for, e.g. `page=12` or a cursor) passes
   * the page cap, or when it is not empty and every one of its items was on an earlier page.
   */
  check(page: number, items: readonly unknown[], where: string): void {
    if (page >= this.#maxPages) {
      throw new UnreadableListError(
        `${this.#what}: the list is still going at page ${page + 1} (${where}), past maxPages=${this.#maxPages}; stopping instead of spending the rate limit on a list that may never end — raise max_list_pages in the pipeline file if it is genuinely this long`,
      );
    }
    if (items.length === 0) return;
    const digests = items.map((item) =>
      createHash('sha1')
        .update(JSON.stringify(item) ?? 'undefined')
        .digest('base64'),
    );
    if (digests.every((d) => this.#seen.has(d))) {
      throw new UnreadableListError(
        `${this.#what}: page ${page + 1} (${where}) repeats ${items.length} item${items.length === 1 ? '' : 's'} already seen on earlier pages; the server's pagination loops, stopping instead of fetching for ever — report it to the service or retry later`,
      );
    }
    for (const d of digests) this.#seen.add(d);
  }
}
