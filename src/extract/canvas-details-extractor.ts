// Canvas details (spec 2.6) → one row in canvases plus its variants and steps; a re-fetched Canvas replaces its
// variants and steps, so one removed upstream disappears here too.
import type { ApiClient } from '../api/api-client.js';
import { fetchCanvasDetails } from '../api/metadata-endpoints.js';
import type { ExtractedRows } from './extracted-rows.js';
import { stringList, stringOrNull, timestampOrNull } from './extracted-rows.js';

/**
 * The deprecated `first_step_id` (spec 2.6: present only when the variant has a single first step). A server may drop a
 * deprecated field, so it is derived from `first_step_ids` when that holds exactly one id: the stored value then does
 * not depend on whether the server still sends it.
 */
function firstStepId(sent: unknown, firstStepIds: unknown): string | null {
  const given = stringOrNull(sent);
  if (given !== null) return given;
  return Array.isArray(firstStepIds) && firstStepIds.length === 1 ? String(firstStepIds[0]) : null;
}

export async function fetchCanvasDetailsRows(client: ApiClient, canvasId: string): Promise<ExtractedRows> {
  const d = await fetchCanvasDetails(client, canvasId);
  return {
    upserts: [
      {
        table: 'canvases',
        rows: [{
          canvas_id: canvasId, name: stringOrNull(d.name), description: stringOrNull(d.description),
          created_at: timestampOrNull(d.created_at), updated_at: timestampOrNull(d.updated_at),
          archived: d.archived ?? null, draft: d.draft ?? null, schedule_type: stringOrNull(d.schedule_type),
          first_entry: timestampOrNull(d.first_entry), last_entry: timestampOrNull(d.last_entry),
          channels: stringList(d.channels), tags: stringList(d.tags), teams: stringList(d.teams),
        }],
      },
      {
        table: 'canvas_variants',
        rows: (d.variants ?? []).map((v) => ({
          canvas_id: canvasId, variant_id: v.id, name: stringOrNull(v.name), first_step_ids: stringList(v.first_step_ids),
          first_step_id: firstStepId(v.first_step_id, v.first_step_ids),
        })),
      },
      {
        table: 'canvas_steps',
        rows: (d.steps ?? []).map((s) => ({
          canvas_id: canvasId, step_id: s.id, name: stringOrNull(s.name), type: stringOrNull(s.type),
          next_step_ids: stringList(s.next_step_ids), next_paths: s.next_paths ?? [], channels: stringList(s.channels),
          messages: s.messages ?? {},
        })),
      },
    ],
    replaces: [
      { table: 'canvas_variants', columns: ['canvas_id'], values: [[canvasId]] },
      { table: 'canvas_steps', columns: ['canvas_id'], values: [[canvasId]] },
    ],
  };
}
