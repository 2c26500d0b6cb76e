// segments: GET /segments/list + /segments/details. Every listed segment (archived ones are never listed), its
// details re-read only when its listed fields change — the list carries no edit time — or when it is new.
import { ENDPOINTS } from '../api/endpoints.js';
import { fetchSegmentDetails } from '../api/metadata-endpoints.js';
import { stringList, stringOrNull, timestampOrNull } from '../extract/extracted-rows.js';
import { col, defineTable, rowsOf } from '../load/table-definition.js';
import { DISCOVERED_COLUMNS, discoveredValues } from './discovered-columns.js';
import type { IdSelection } from './option-reader.js';
import { perIdStream } from './stream-declaration.js';
import { SEGMENT_LIST, idListDiscovery } from './workspace-lists.js';

export interface SegmentsOptions {
  /** Always every listed segment: the stream is whole-workspace by nature. */
  segments: IdSelection;
}

const table = defineTable({
  name: 'segments',
  description: 'Segments: name, descriptions, whether analytics tracking is on, tags, teams and edit times.',
  columns: [
    col('segment_id', 'VARCHAR'),
    col('name', 'VARCHAR'),
    col('description', 'VARCHAR'),
    col('text_description', 'VARCHAR'),
    col('analytics_tracking_enabled', 'BOOLEAN'),
    col('created_at', 'TIMESTAMP'),
    col('updated_at', 'TIMESTAMP'),
    col('tags', 'VARCHAR[]'),
    col('teams', 'VARCHAR[]'),
    ...DISCOVERED_COLUMNS,
  ],
  key: ['segment_id'],
  history: { validFrom: 'updated_at' },
});

export const segmentsStream = perIdStream({
  kind: 'per_id',
  name: 'segments',
  description: 'Every segment the workspace lists, with its details (re-read when its list entry changes).',
  endpoint: ENDPOINTS.segmentsDetails,
  tables: [table],
  options: { keys: [], example: '{}', read: (): SegmentsOptions => ({ segments: { all: true, ids: [] } }) },
  discovery: idListDiscovery<SegmentsOptions>(
    SEGMENT_LIST,
    (o) => o.segments,
    (o, segments) => ({ ...o, segments }),
  ),
  ids: (o) => o.segments.ids,
  fetch: async (client, segmentId, _o, listed) => {
    const d = await fetchSegmentDetails(client, segmentId);
    const tracking = listed?.attributes['analytics_tracking_enabled'];
    return {
      upserts: [
        rowsOf(table, [
          {
            segment_id: segmentId,
            name: stringOrNull(d.name),
            description: stringOrNull(d.description),
            text_description: stringOrNull(d.text_description),
            analytics_tracking_enabled: typeof tracking === 'boolean' ? tracking : null,
            created_at: timestampOrNull(d.created_at),
            updated_at: timestampOrNull(d.updated_at),
            tags: stringList(d.tags),
            teams: stringList(d.teams),
            ...discoveredValues(listed),
          },
        ]),
      ],
      replaces: [],
    };
  },
});
