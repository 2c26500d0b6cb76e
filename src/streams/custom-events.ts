// custom_events: GET /events/list (spec 4.12), every page every run. first_seen_at is kept by the loader once stored;
// both stamps are the run's frozen upper bound, so a rerun with the same --until changes nothing.
import { listEventNames } from '../api/analytics-endpoints.js';
import { ENDPOINTS, EVENTS_PAGE_SIZE } from '../api/endpoints.js';
import { col, defineTable, rowsOf } from '../load/table-definition.js';
import type { RowOf } from '../load/table-definition.js';
import { pagedListStream } from './stream-declaration.js';

const table = defineTable({
  name: 'custom_events',
  description: 'Custom event names, with the --until of the first and last run that saw each listed.',
  // Partitioned by the month of first_seen_at: it never changes once stored, so a row never moves between files.
  columns: [col('name', 'VARCHAR'), col('first_seen_at', 'TIMESTAMP', { keepOnUpdate: true }), col('last_seen_at', 'TIMESTAMP')],
  key: ['name'],
  partitionSource: 'first_seen_at',
});

export const customEventsStream = pagedListStream({
  kind: 'paged_list',
  name: 'custom_events',
  description: 'Every custom event name the workspace has recorded.',
  endpoint: ENDPOINTS.eventsList,
  tables: [table],
  options: { keys: [], example: '{}', read: () => ({}) },
  // The list is read until a page comes back short, so a full last page costs one more.
  estimatePages: (names) => Math.floor(names / EVENTS_PAGE_SIZE) + 1,
  fetch: async (client, _options, until) => {
    const rows: RowOf<typeof table>[] = [];
    let pages = 0;
    for await (const names of listEventNames(client)) {
      pages++;
      for (const name of names) rows.push({ name, first_seen_at: until, last_seen_at: until });
    }
    return { upserts: [rowsOf(table, rows)], replaces: [], pages };
  },
});
