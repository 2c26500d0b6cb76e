// The two purchase series (spec 4.10 quantity, 4.11 revenue) share their options and parameters: one series per app ×
// product pair, daily or hourly. Each stream file declares its own table and value column with this builder.
import type { ApiClient } from '../api/api-client.js';
import type { PurchaseSeriesQuery, SeriesPoint } from '../api/analytics-endpoints.js';
import type { EndpointSpec } from '../api/endpoints.js';
import { MAX_SERIES_LENGTH } from '../api/endpoints.js';
import type { SeriesUnit } from '../api/types.js';
import type { RowOf, TableSpec } from '../load/table-definition.js';
import { rowsOf } from '../load/table-definition.js';
import { ALL } from './option-reader.js';
import type { IdSelection } from './option-reader.js';
import type { SeriesStream } from './stream-declaration.js';
import { seriesStream } from './stream-declaration.js';
import { idReference } from './id-reference.js';
import { PRODUCT_LIST, idListDiscovery } from './workspace-lists.js';

/** A purchases series (quantity or revenue): one series per app × product pair. */
export interface PurchaseSeriesOptions {
  /** @default 'day' */
  unit: SeriesUnit;
  /** App ids, `"*"` for all apps. @default ['*'] */
  apps: readonly string[];
  /** Product names, `"*"` for all products (one aggregate series), `all` for every listed product. @default ['*'] */
  products: IdSelection;
}

/** `"*"` means the parameter is omitted. */
export function param(value: string): string | undefined {
  return value === ALL ? undefined : value;
}

interface PurchaseTable extends TableSpec {
  readonly columns: TableSpec['columns'];
}

export function purchaseSeriesStream<const N extends string, const T extends PurchaseTable>(spec: {
  name: N;
  description: string;
  endpoint: EndpointSpec;
  table: T;
  fetch: (client: ApiClient, q: PurchaseSeriesQuery) => Promise<SeriesPoint[]>;
  row: (dims: { app_id: string; product: string; unit: SeriesUnit; time: Date }, value: number) => RowOf<T>;
}): SeriesStream<N, PurchaseSeriesOptions, readonly [T]> {
  return seriesStream({
    kind: 'series',
    name: spec.name,
    description: spec.description,
    endpoint: spec.endpoint,
    tables: [spec.table] as const,
    maxUnits: MAX_SERIES_LENGTH,
    options: {
      keys: ['unit', 'apps', 'products'],
      example: '{ unit: day, apps: ["*", app_1], products: ["*", all] }',
      read: (r) => ({
        unit: r.unit(['day', 'hour']),
        apps: r.selectors('apps', 'apps: ["*", app_1]'),
        products: r.idSelection('products', 'products: ["*", gems_small]', { aggregate: true }),
      }),
    },
    discovery: idListDiscovery<PurchaseSeriesOptions>(
      PRODUCT_LIST,
      (o) => o.products,
      (o, products) => ({ ...o, products }),
    ),
    references: (o) => [...idReference('apps', null, o.apps), ...idReference('products', PRODUCT_LIST, o.products.ids)],
    series: (o) =>
      o.apps.flatMap((app) =>
        o.products.ids.map((product) => ({
          dims: { app_id: app, product },
          unit: o.unit,
          fetch: (client, w) =>
            spec.fetch(client, {
              length: w.length,
              endingAt: w.endingAt,
              unit: o.unit,
              appId: param(app),
              product: param(product),
            }),
          rows: (time: Date, value: unknown) => ({
            upserts: [rowsOf(spec.table, [spec.row({ app_id: app, product, unit: o.unit, time }, value as number)])],
            replaces: [],
          }),
        })),
      ),
  });
}
