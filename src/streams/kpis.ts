// kpis: GET /kpi/{dau,mau,new_users,uninstalls}/data_series, one daily series per metric × app, all in one table.
import { fetchKpi } from '../api/analytics-endpoints.js';
import { ENDPOINTS, MAX_SERIES_LENGTH } from '../api/endpoints.js';
import { KPI_METRICS, type KpiMetric } from '../api/types.js';
import { col, defineTable, rowsOf } from '../load/table-definition.js';
import { param } from './purchase-series.js';
import { seriesStream } from './stream-declaration.js';
import { idReference } from './id-reference.js';

export interface KpisOptions {
  /** The KPIs to load. @default ['dau', 'mau', 'new_users', 'uninstalls'] */
  metrics: readonly KpiMetric[];
  /** App ids, `"*"` for all apps. @default ['*'] */
  apps: readonly string[];
}

const table = defineTable({
  name: 'kpi_series',
  description:
    'Daily active users, monthly active users (30 days ending the day), new users and uninstalls per app and UTC day ("*" = all apps).',
  columns: [
    col('metric', 'VARCHAR', { allowed: KPI_METRICS }),
    col('app_id', 'VARCHAR'),
    col('time', 'TIMESTAMP'),
    col('value', 'BIGINT'),
  ],
  key: ['metric', 'app_id', 'time'],
  partitionSource: 'time',
});

const KPI_ENDPOINT = {
  dau: ENDPOINTS.kpiDauDataSeries,
  mau: ENDPOINTS.kpiMauDataSeries,
  new_users: ENDPOINTS.kpiNewUsersDataSeries,
  uninstalls: ENDPOINTS.kpiUninstallsDataSeries,
} as const;

export const kpisStream = seriesStream({
  kind: 'series',
  name: 'kpis',
  description: 'The four daily KPIs (DAU, MAU, new users, uninstalls) per app.',
  // The four endpoints share the default pool; each series names its own.
  endpoint: ENDPOINTS.kpiDauDataSeries,
  tables: [table],
  maxUnits: MAX_SERIES_LENGTH,
  options: {
    keys: ['metrics', 'apps'],
    example: '{ metrics: [dau, mau, new_users, uninstalls], apps: ["*", app_1] }',
    read: (r): KpisOptions => ({
      metrics: r.subset('metrics', KPI_METRICS),
      apps: r.selectors('apps', 'apps: ["*", app_1]'),
    }),
  },
  references: (o) => idReference('apps', null, o.apps),
  series: (o) =>
    o.metrics.flatMap((metric) =>
      o.apps.map((app) => ({
        dims: { metric, app_id: app },
        unit: 'day' as const,
        endpoint: KPI_ENDPOINT[metric],
        fetch: (client, w) => fetchKpi(client, { metric, length: w.length, endingAt: w.endingAt, appId: param(app) }),
        rows: (time: Date, value: unknown) => ({
          upserts: [rowsOf(table, [{ metric, app_id: app, time, value: value as number }])],
          replaces: [],
        }),
      })),
    ),
});
