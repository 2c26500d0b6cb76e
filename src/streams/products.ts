// products: GET /purchases/product_list, the workspace's product names as the list shows them, each with the
// run that first saw it and `_removed_at` once the list stops showing it. Read by discovery, in the purchases pool.
import { ENDPOINTS } from '../api/endpoints.js';
import { col, defineTable, rowsOf } from '../load/table-definition.js';
import { DISCOVERED_COLUMNS, discoveredValues } from './discovered-columns.js';
import { listingStream } from './stream-declaration.js';
import { PRODUCT_LIST } from './workspace-lists.js';

const table = defineTable({
  name: 'products',
  description: 'Products the workspace lists, with the --until of the run that first saw each.',
  columns: [
    col('product_id', 'VARCHAR'),
    col('first_seen_at', 'TIMESTAMP', { keepOnUpdate: true }),
    ...DISCOVERED_COLUMNS,
  ],
  key: ['product_id'],
});

export const productsStream = listingStream({
  kind: 'listing',
  name: 'products',
  description: 'Every product name the workspace lists (the whole product list: an empty map means every product).',
  endpoint: ENDPOINTS.purchasesProductList,
  tables: [table],
  list: PRODUCT_LIST,
  options: { keys: [], example: '{}', read: () => ({}) },
  rows: (listed, until) => ({
    upserts: [
      rowsOf(
        table,
        listed.map((p) => ({ product_id: p.id, first_seen_at: until, ...discoveredValues(p) })),
      ),
    ],
    replaces: [],
  }),
});
