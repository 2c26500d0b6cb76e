// Custom event names, page by page → rows of custom_events. first_seen_at is kept by the loader once stored; both
// stamps are the run's frozen upper bound, so a rerun with the same --until changes nothing.
import type { ApiClient } from '../api/api-client.js';
import { listEventNames } from '../api/analytics-endpoints.js';
import type { ExtractedRows } from './extracted-rows.js';

export async function fetchCustomEventRows(client: ApiClient, until: Date): Promise<ExtractedRows & { pages: number }> {
  const rows: Record<string, unknown>[] = [];
  let pages = 0;
  for await (const names of listEventNames(client)) {
    pages++;
    for (const name of names) rows.push({ name, first_seen_at: until, last_seen_at: until });
  }
  return { upserts: [{ table: 'custom_events', rows }], replaces: [], pages };
}
