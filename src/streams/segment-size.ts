// segment_size: GET /segments/data_series (spec 4.20), a daily series per segment (the endpoint needs a segment id).
import { fetchSegmentSize } from '../api/analytics-endpoints.js';
import { ENDPOINTS, MAX_SERIES_LENGTH } from '../api/endpoints.js';
import { col, defineTable, rowsOf } from '../load/table-definition.js';
import { seriesStream } from './stream-declaration.js';

export interface SegmentSizeOptions {
  /** Always 'day': the endpoint only has a daily series (spec 4.20). */
  unit: 'day';
  segments: readonly string[];
}

const table = defineTable({
  name: 'segment_size',
  description: 'Estimated size of a segment per day.',
  columns: [col('segment_id', 'VARCHAR'), col('time', 'TIMESTAMP'), col('size', 'BIGINT')],
  key: ['segment_id', 'time'],
  partitionSource: 'time',
});

export const segmentSizeStream = seriesStream({
  kind: 'series',
  name: 'segment_size',
  description: 'Daily estimated size of each listed segment.',
  endpoint: ENDPOINTS.segmentsDataSeries,
  tables: [table],
  maxUnits: MAX_SERIES_LENGTH,
  options: {
    keys: ['unit', 'segments'],
    example: '{ segments: [seg_1, seg_2] }',
    read: (r): SegmentSizeOptions => ({ unit: r.unit(['day']) as 'day', segments: r.ids('segments', 'segment ids, e.g. segments: [seg_1]') }),
  },
  series: (o) =>
    o.segments.map((segment) => ({
      dims: { segment_id: segment },
      unit: 'day' as const,
      fetch: (client, w) => fetchSegmentSize(client, { segmentId: segment, length: w.length, endingAt: w.endingAt }),
      rows: (time: Date, value: unknown) => ({ upserts: [rowsOf(table, [{ segment_id: segment, time, size: value as number }])], replaces: [] }),
    })),
});
