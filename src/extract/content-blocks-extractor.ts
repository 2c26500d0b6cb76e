// Content block info (spec 2.9) → one row of content_blocks.
import type { ApiClient } from '../api/api-client.js';
import { fetchContentBlock } from '../api/metadata-endpoints.js';
import { toNumber } from '../api/response-shape.js';
import type { ExtractedRows } from './extracted-rows.js';
import { stringList, stringOrNull, timestampOrNull } from './extracted-rows.js';

export async function fetchContentBlockRows(client: ApiClient, id: string, includeInclusionData: boolean): Promise<ExtractedRows> {
  const b = await fetchContentBlock(client, id, includeInclusionData);
  return {
    upserts: [{
      table: 'content_blocks',
      rows: [{
        content_block_id: id, name: stringOrNull(b.name), content: stringOrNull(b.content), description: stringOrNull(b.description),
        content_type: stringOrNull(b.content_type), tags: stringList(b.tags), created_at: timestampOrNull(b.created_at),
        last_edited: timestampOrNull(b.last_edited), inclusion_count: toNumber(b.inclusion_count) ?? null,
        inclusion_data: b.inclusion_data ?? null,
      }],
    }],
    replaces: [],
  };
}
