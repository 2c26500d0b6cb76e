// revenue: GET /purchases/revenue_series (spec 4.11), one series per app × product.
import { fetchRevenue } from '../api/analytics-endpoints.js';
import { ENDPOINTS } from '../api/endpoints.js';
import { MONEY, col, defineTable } from '../load/table-definition.js';
import { purchaseSeriesStream } from './purchase-series.js';
import { UNIT_COLUMN } from './series-columns.js';

const table = defineTable({
  name: 'revenue',
  description: 'Revenue (USD, to the cent) per app, product and unit ("*" = all apps / all products).',
  columns: [
    col('app_id', 'VARCHAR'),
    col('product', 'VARCHAR'),
    UNIT_COLUMN,
    col('time', 'TIMESTAMP'),
    col('revenue', MONEY),
  ],
  key: ['app_id', 'product', 'unit', 'time'],
  partitionSource: 'time',
});

export const revenueStream = purchaseSeriesStream({
  name: 'revenue',
  description: 'Revenue per app × product, daily or hourly.',
  endpoint: ENDPOINTS.purchasesRevenueSeries,
  table,
  fetch: fetchRevenue,
  row: (d, value) => ({ ...d, revenue: value }),
});
