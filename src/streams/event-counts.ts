// event_counts: GET /events/data_series, how often each custom event happened per app × segment, daily or hourly.
// `events: all` means every name the events list shows, read by discovery at the start of the run like every other `all`.
import { fetchEventCounts } from '../api/analytics-endpoints.js';
import { ENDPOINTS, MAX_SERIES_LENGTH } from '../api/endpoints.js';
import type { SeriesUnit } from '../api/types.js';
import { col, defineTable, rowsOf } from '../load/table-definition.js';
import { param } from './purchase-series.js';
import { UNIT_COLUMN } from './series-columns.js';
import { seriesStream } from './stream-declaration.js';
import { idReference } from './id-reference.js';
import { EVENT_LIST, SEGMENT_LIST, idListDiscovery } from './workspace-lists.js';

/** `events: all`: every custom event name the workspace lists. */
export const ALL_EVENTS = 'all';

export interface EventCountsOptions {
  /** Event names, or 'all' for every name `GET /events/list` shows at the start of the run. */
  events: typeof ALL_EVENTS | readonly string[];
  /** @default 'day' */
  unit: SeriesUnit;
  /** App ids, `"*"` for all apps. @default ['*'] */
  apps: readonly string[];
  /** Segment ids, `"*"` for no segment filter. @default ['*'] */
  segments: readonly string[];
}

const table = defineTable({
  name: 'event_counts',
  description: 'Occurrences of a custom event per app, segment and unit ("*" = all apps / no segment filter).',
  columns: [
    col('event', 'VARCHAR'),
    col('app_id', 'VARCHAR'),
    col('segment_id', 'VARCHAR'),
    UNIT_COLUMN,
    col('time', 'TIMESTAMP'),
    col('count', 'BIGINT'),
  ],
  key: ['event', 'app_id', 'segment_id', 'unit', 'time'],
  partitionSource: 'time',
});

export const eventCountsStream = seriesStream({
  kind: 'series',
  name: 'event_counts',
  description:
    'Occurrences of each custom event (named, or all the workspace lists) per app × segment, daily or hourly.',
  endpoint: ENDPOINTS.eventsDataSeries,
  tables: [table],
  maxUnits: MAX_SERIES_LENGTH,
  options: {
    keys: ['events', 'unit', 'apps', 'segments'],
    example: '{ events: [cart_add, level_complete], unit: day, apps: ["*"], segments: ["*", seg_1] }',
    read: (r): EventCountsOptions => ({
      events: r.idsOr(
        'events',
        ALL_EVENTS,
        'event names, e.g. events: [first_purchase] (all: every name the workspace lists)',
      ),
      unit: r.unit(['day', 'hour']),
      apps: r.selectors('apps', 'apps: ["*", app_1]'),
      segments: r.selectors('segments', 'segments: ["*", seg_1]'),
    }),
  },
  discovery: idListDiscovery<EventCountsOptions>(
    EVENT_LIST,
    (o) => (o.events === ALL_EVENTS ? { all: true, ids: [] } : { all: false, ids: o.events }),
    (o, events) => ({ ...o, events: events.ids }),
  ),
  references: (o) => [
    ...idReference('events', EVENT_LIST, o.events === ALL_EVENTS ? [] : o.events),
    ...idReference('apps', null, o.apps),
    ...idReference('segments', SEGMENT_LIST, o.segments),
  ],
  // Discovery has replaced `all` by the listed names before the series are asked for.
  series: (o) =>
    (o.events === ALL_EVENTS ? [] : o.events).flatMap((event) =>
      o.apps.flatMap((app) =>
        o.segments.map((segment) => ({
          dims: { event, app_id: app, segment_id: segment },
          unit: o.unit,
          fetch: (client, w) =>
            fetchEventCounts(client, {
              event,
              length: w.length,
              endingAt: w.endingAt,
              unit: o.unit,
              appId: param(app),
              segmentId: param(segment),
            }),
          rows: (time: Date, value: unknown) => ({
            upserts: [
              rowsOf(table, [{ event, app_id: app, segment_id: segment, unit: o.unit, time, count: value as number }]),
            ],
            replaces: [],
          }),
        })),
      ),
    ),
});
