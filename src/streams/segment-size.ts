// segment_size: GET /segments/data_series (spec 4.20), a daily series per segment (the endpoint needs a segment id).
import { fetchSegmentSize } from '../api/analytics-endpoints.js';
import { ENDPOINTS, MAX_SERIES_LENGTH } from '../api/endpoints.js';
import { col, defineTable, rowsOf } from '../load/table-definition.js';
import type { IdSelection } from './option-reader.js';
import { idReference } from './id-reference.js';
import { seriesStream } from './stream-declaration.js';
import { SEGMENT_LIST, withListed } from './workspace-lists.js';

export interface SegmentSizeOptions {
  /** Always 'day': the endpoint only has a daily series (spec 4.20). */
  unit: 'day';
  /** Segment ids, or `all`: every listed segment whose analytics tracking is on. */
  segments: IdSelection;
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
    read: (r): SegmentSizeOptions => ({
      unit: r.unit(['day']) as 'day',
      segments: r.idSelection('segments', 'segments: [seg_1]'),
    }),
  },
  discovery: {
    needs: (o) => (o.segments.all ? [{ list: SEGMENT_LIST, includeArchived: false }] : []),
    // The platform keeps no series for a segment whose analytics tracking is off: asking would only earn a 400.
    resolve: (o, listed) => {
      const all = listed({ list: SEGMENT_LIST, includeArchived: false });
      const untracked = all.filter((s) => s.attributes['analytics_tracking_enabled'] === false);
      const skipped = new Set(untracked.map((s) => s.id));
      const notes =
        untracked.length === 0
          ? []
          : [
              `segment_size: skipped ${untracked.length} segment(s) whose analytics tracking is off (${untracked
                .slice(0, 10)
                .map((s) => s.id)
                .join(
                  ', ',
                )}${untracked.length > 10 ? ', …' : ''}); the platform keeps no size series for them — turn tracking on in the dashboard to export them`,
            ];
      return {
        options: {
          ...o,
          segments: withListed(
            o.segments,
            all.filter((s) => !skipped.has(s.id)),
          ),
        },
        notes,
      };
    },
  },
  references: (o) => idReference('segments', SEGMENT_LIST, o.segments.ids),
  series: (o) =>
    o.segments.ids.map((segment) => ({
      dims: { segment_id: segment },
      unit: 'day' as const,
      fetch: (client, w) => fetchSegmentSize(client, { segmentId: segment, length: w.length, endingAt: w.endingAt }),
      rows: (time: Date, value: unknown) => ({
        upserts: [rowsOf(table, [{ segment_id: segment, time, size: value as number }])],
        replaces: [],
      }),
    })),
});
