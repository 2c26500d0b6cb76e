// content_blocks: GET /content_blocks/info (spec 4.16 / 2.9), one request per listed block. A block deleted in the
// dashboard must not break the nightly run: its last stored row is kept and the run says so.
import { ENDPOINTS } from '../api/endpoints.js';
import { fetchContentBlock } from '../api/metadata-endpoints.js';
import { toNumber } from '../api/response-shape.js';
import { FatalApiError } from '../errors.js';
import { stringList, stringOrNull, timestampOrNull } from '../extract/extracted-rows.js';
import { col, defineTable, rowsOf } from '../load/table-definition.js';
import { DISCOVERED_COLUMNS, discoveredValues } from './discovered-columns.js';
import type { IdSelection } from './option-reader.js';
import { perIdStream } from './stream-declaration.js';
import { idReference } from './id-reference.js';
import { CONTENT_BLOCK_LIST, idListDiscovery } from './workspace-lists.js';

export interface ContentBlocksOptions {
  /** Ids, or `all`: every object the list shows. */
  ids: IdSelection;
  /** Send include_inclusion_data=true. @default false */
  inclusionData: boolean;
}

const table = defineTable({
  name: 'content_blocks',
  description: 'Content blocks: content, type, tags, edit times and where they are included.',
  columns: [
    col('content_block_id', 'VARCHAR'),
    col('name', 'VARCHAR'),
    col('content', 'VARCHAR'),
    col('description', 'VARCHAR'),
    col('content_type', 'VARCHAR'),
    col('tags', 'VARCHAR[]'),
    col('created_at', 'TIMESTAMP'),
    col('last_edited', 'TIMESTAMP'),
    col('inclusion_count', 'BIGINT'),
    col('inclusion_data', 'JSON'),
    ...DISCOVERED_COLUMNS,
  ],
  key: ['content_block_id'],
});

export const contentBlocksStream = perIdStream({
  kind: 'per_id',
  name: 'content_blocks',
  description: "Each listed content block's info, optionally with its inclusion data.",
  endpoint: ENDPOINTS.contentBlockInfo,
  tables: [table],
  options: {
    keys: ['ids', 'inclusion_data'],
    example: '{ ids: [cb_1], inclusion_data: true }',
    read: (r): ContentBlocksOptions => ({
      ids: r.idSelection('ids', 'ids: [cb_1]'),
      inclusionData: r.boolean('inclusion_data'),
    }),
  },
  discovery: idListDiscovery<ContentBlocksOptions>(
    CONTENT_BLOCK_LIST,
    (o) => o.ids,
    (o, ids) => ({ ...o, ids }),
  ),
  references: (o) => idReference('ids', CONTENT_BLOCK_LIST, o.ids.ids),
  ids: (o) => o.ids.ids,
  // A block stored without its inclusion data is not current once the option asks for it (nor the other way round).
  listVersion: (listed, o) => (o.inclusionData ? `${listed.version}|inclusion_data` : listed.version),
  fetch: async (client, id, o, listed) => {
    const b = await fetchContentBlock(client, id, o.inclusionData);
    return {
      upserts: [
        rowsOf(table, [
          {
            content_block_id: id,
            name: stringOrNull(b.name),
            content: stringOrNull(b.content),
            description: stringOrNull(b.description),
            content_type: stringOrNull(b.content_type),
            tags: stringList(b.tags),
            created_at: timestampOrNull(b.created_at),
            last_edited: timestampOrNull(b.last_edited),
            inclusion_count: toNumber(b.inclusion_count) ?? null,
            inclusion_data: b.inclusion_data ?? null,
            ...discoveredValues(listed),
          },
        ]),
      ],
      replaces: [],
    };
  },
  // Spec 7.2 words the refusal "Content Block has been deleted—content not available".
  tolerate: (error, id) =>
    error instanceof FatalApiError && error.status === 400 && /deleted/i.test(error.reason)
      ? `content block ${id} has been deleted upstream; its stored row is kept as it was (remove it from the pipeline file to silence this)`
      : undefined,
});
