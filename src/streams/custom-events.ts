// custom_events: GET /events/list (spec 4.12), the workspace's custom event names. A listing: discovery reads the list
// once at the start of the run (the same read `event_counts` with `events: all` resolves from) and these are its rows.
// first_seen_at is kept by the loader once stored; both stamps are the run's frozen upper bound, so a rerun with the same
// --until changes nothing.
import { ENDPOINTS } from '../api/endpoints.js';
import { col, defineTable, rowsOf } from '../load/table-definition.js';
import { listingStream } from './stream-declaration.js';
import { EVENT_LIST } from './workspace-lists.js';

const table = defineTable({
  name: 'custom_events',
  description: 'Custom event names, with the --until of the first and last run that saw each listed.',
  // Partitioned by the month of first_seen_at: it never changes once stored, so a row never moves between files.
  columns: [
    col('name', 'VARCHAR'),
    col('first_seen_at', 'TIMESTAMP', { keepOnUpdate: true }),
    col('last_seen_at', 'TIMESTAMP'),
  ],
  key: ['name'],
  partitionSource: 'first_seen_at',
});

export const customEventsStream = listingStream({
  kind: 'listing',
  name: 'custom_events',
  description: 'Every custom event name the workspace has recorded.',
  endpoint: ENDPOINTS.eventsList,
  tables: [table],
  list: EVENT_LIST,
  options: { keys: [], example: '{}', read: () => ({}) },
  rows: (listed, until) => ({
    upserts: [
      rowsOf(
        table,
        listed.map((e) => ({ name: e.id, first_seen_at: until, last_seen_at: until })),
      ),
    ],
    replaces: [],
  }),
});
