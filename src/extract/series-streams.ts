// The windowed series a pipeline declares (purchase quantity, revenue, sessions, segment size), one definition per
// series: which endpoint and parameters fetch it, which table and key columns hold it, and its state key.
import type { PoolId } from '../api/endpoints.js';
import { ENDPOINTS } from '../api/endpoints.js';
import { fetchPurchaseQuantity, fetchRevenue, fetchSegmentSize, fetchSessions } from '../api/analytics-endpoints.js';
import type { SeriesUnit } from '../api/types.js';
import type { PipelineDefinition } from '../config/pipeline-definition.js';
import { ALL } from '../config/pipeline-definition.js';
import type { TableName } from '../load/table-specs.js';
import type { SeriesSource } from './series-extractor.js';

export type SeriesStreamName = 'purchase_quantity' | 'revenue' | 'sessions' | 'segment_size';

export interface SeriesDefinition {
  stream: SeriesStreamName;
  table: TableName;
  /** Stable identity of the series in `_etl_series_state`, e.g. `unit=day|app_id=*|product=gems_small`. */
  seriesKey: string;
  unit: SeriesUnit;
  pool: PoolId;
  source: SeriesSource;
  /** The row for one unit of this series. */
  toRow(time: Date, value: number): Record<string, unknown>;
}

/** `"*"` means the parameter is omitted. */
function param(value: string): string | undefined {
  return value === ALL ? undefined : value;
}

function keyOf(unit: SeriesUnit, dims: Record<string, string>): string {
  return [`unit=${unit}`, ...Object.entries(dims).map(([k, v]) => `${k}=${v}`)].join('|');
}

export function seriesDefinitions(pipeline: PipelineDefinition, streams: ReadonlySet<string>): SeriesDefinition[] {
  const defs: SeriesDefinition[] = [];
  const { purchase_quantity: quantity, revenue, sessions, segment_size: segmentSize } = pipeline.streams;

  for (const [stream, config, fetchFn, endpoint, valueColumn] of [
    ['purchase_quantity', quantity, fetchPurchaseQuantity, ENDPOINTS.purchasesQuantitySeries, 'purchase_quantity'],
    ['revenue', revenue, fetchRevenue, ENDPOINTS.purchasesRevenueSeries, 'revenue'],
  ] as const) {
    if (!config || !streams.has(stream)) continue;
    for (const app of config.apps) {
      for (const product of config.products) {
        const unit = config.unit;
        defs.push({
          stream,
          table: stream,
          seriesKey: keyOf(unit, { app_id: app, product }),
          unit,
          pool: endpoint.pool,
          source: {
            endpoint: endpoint.path,
            unit,
            fetch: (client, w) => fetchFn(client, { length: w.length, endingAt: w.endingAt, unit, appId: param(app), product: param(product) }),
          },
          toRow: (time, value) => ({ app_id: app, product, unit, time, [valueColumn]: value }),
        });
      }
    }
  }

  if (sessions && streams.has('sessions')) {
    for (const app of sessions.apps) {
      for (const segment of sessions.segments) {
        const unit = sessions.unit;
        defs.push({
          stream: 'sessions',
          table: 'sessions',
          seriesKey: keyOf(unit, { app_id: app, segment_id: segment }),
          unit,
          pool: ENDPOINTS.sessionsDataSeries.pool,
          source: {
            endpoint: ENDPOINTS.sessionsDataSeries.path,
            unit,
            fetch: (client, w) => fetchSessions(client, { length: w.length, endingAt: w.endingAt, unit, appId: param(app), segmentId: param(segment) }),
          },
          toRow: (time, value) => ({ app_id: app, segment_id: segment, unit, time, sessions: value }),
        });
      }
    }
  }

  if (segmentSize && streams.has('segment_size')) {
    for (const segment of segmentSize.segments) {
      defs.push({
        stream: 'segment_size',
        table: 'segment_size',
        seriesKey: keyOf('day', { segment_id: segment }),
        unit: 'day',
        pool: ENDPOINTS.segmentsDataSeries.pool,
        source: {
          endpoint: ENDPOINTS.segmentsDataSeries.path,
          unit: 'day',
          fetch: (client, w) => fetchSegmentSize(client, { segmentId: segment, length: w.length, endingAt: w.endingAt }),
        },
        toRow: (time, value) => ({ segment_id: segment, time, size: value }),
      });
    }
  }
  return defs;
}
