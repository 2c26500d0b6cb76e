// purchase_quantity: GET /purchases/quantity_series (spec 4.10), one series per app × product.
import { fetchPurchaseQuantity } from '../api/analytics-endpoints.js';
import { ENDPOINTS } from '../api/endpoints.js';
import { col, defineTable } from '../load/table-definition.js';
import { purchaseSeriesStream } from './purchase-series.js';
import { UNIT_COLUMN } from './series-columns.js';

const table = defineTable({
  name: 'purchase_quantity',
  description: 'In-app purchases per app, product and unit ("*" = all apps / all products).',
  columns: [
    col('app_id', 'VARCHAR'),
    col('product', 'VARCHAR'),
    UNIT_COLUMN,
    col('time', 'TIMESTAMP'),
    col('purchase_quantity', 'BIGINT'),
  ],
  key: ['app_id', 'product', 'unit', 'time'],
  partitionSource: 'time',
});

export const purchaseQuantityStream = purchaseSeriesStream({
  name: 'purchase_quantity',
  description: 'Number of in-app purchases per app × product, daily or hourly.',
  endpoint: ENDPOINTS.purchasesQuantitySeries,
  table,
  fetch: fetchPurchaseQuantity,
  row: (d, value) => ({ ...d, purchase_quantity: value }),
});
