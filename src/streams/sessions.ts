// sessions: GET /sessions/data_series (spec 4.19), one series per app × segment, daily or hourly.
import { fetchSessions } from '../api/analytics-endpoints.js';
import { ENDPOINTS, MAX_SERIES_LENGTH } from '../api/endpoints.js';
import type { SeriesUnit } from '../api/types.js';
import { col, defineTable, rowsOf } from '../load/table-definition.js';
import { param } from './purchase-series.js';
import { UNIT_COLUMN } from './series-columns.js';
import { idReference } from './id-reference.js';
import { seriesStream } from './stream-declaration.js';
import { SEGMENT_LIST } from './workspace-lists.js';

export interface SessionsOptions {
  /** @default 'day' */
  unit: SeriesUnit;
  /** App ids, `"*"` for all apps. @default ['*'] */
  apps: readonly string[];
  /** Segment ids, `"*"` for no segment filter. @default ['*'] */
  segments: readonly string[];
}

const table = defineTable({
  name: 'sessions',
  description: 'Sessions per app, segment and unit ("*" = all apps / no segment filter).',
  columns: [
    col('app_id', 'VARCHAR'),
    col('segment_id', 'VARCHAR'),
    UNIT_COLUMN,
    col('time', 'TIMESTAMP'),
    col('sessions', 'BIGINT'),
  ],
  key: ['app_id', 'segment_id', 'unit', 'time'],
  partitionSource: 'time',
});

export const sessionsStream = seriesStream({
  kind: 'series',
  name: 'sessions',
  description: 'Number of sessions per app × segment, daily or hourly.',
  endpoint: ENDPOINTS.sessionsDataSeries,
  tables: [table],
  maxUnits: MAX_SERIES_LENGTH,
  options: {
    keys: ['unit', 'apps', 'segments'],
    example: '{ unit: hour, apps: ["*"], segments: ["*", seg_1] }',
    read: (r): SessionsOptions => ({
      unit: r.unit(['day', 'hour']),
      apps: r.selectors('apps', 'apps: ["*", app_1]'),
      segments: r.selectors('segments', 'segments: ["*", seg_1]'),
    }),
  },
  references: (o) => [...idReference('apps', null, o.apps), ...idReference('segments', SEGMENT_LIST, o.segments)],
  series: (o) =>
    o.apps.flatMap((app) =>
      o.segments.map((segment) => ({
        dims: { app_id: app, segment_id: segment },
        unit: o.unit,
        fetch: (client, w) =>
          fetchSessions(client, {
            length: w.length,
            endingAt: w.endingAt,
            unit: o.unit,
            appId: param(app),
            segmentId: param(segment),
          }),
        rows: (time: Date, value: unknown) => ({
          upserts: [
            rowsOf(table, [{ app_id: app, segment_id: segment, unit: o.unit, time, sessions: value as number }]),
          ],
          replaces: [],
        }),
      })),
    ),
});
