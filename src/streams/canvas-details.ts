// canvas_details: GET /canvas/details (spec 4.13 / 2.6) → one row in canvases plus its variants and steps; a re-fetched
// Canvas replaces its variants and steps, so one removed upstream disappears here too.
import { ENDPOINTS } from '../api/endpoints.js';
import { fetchCanvasDetails } from '../api/metadata-endpoints.js';
import { stringList, stringOrNull, timestampOrNull } from '../extract/extracted-rows.js';
import { col, defineTable, rowsOf } from '../load/table-definition.js';
import { DISCOVERED_COLUMNS, discoveredValues } from './discovered-columns.js';
import type { IdSelection } from './option-reader.js';
import { perIdStream } from './stream-declaration.js';
import { idReference } from './id-reference.js';
import { CANVAS_LIST, idListDiscovery } from './workspace-lists.js';

export interface CanvasDetailsOptions {
  /** Canvas ids, or `all`: every Canvas the list shows. */
  canvases: IdSelection;
  /** With `all`: list archived Canvases too. @default false */
  includeArchived: boolean;
}

const canvasesTable = defineTable({
  name: 'canvases',
  description: 'Canvases: name, flags, schedule, entry times, channels, tags and teams.',
  columns: [
    col('canvas_id', 'VARCHAR'),
    col('name', 'VARCHAR'),
    col('description', 'VARCHAR'),
    col('created_at', 'TIMESTAMP'),
    col('updated_at', 'TIMESTAMP'),
    col('archived', 'BOOLEAN'),
    col('draft', 'BOOLEAN'),
    col('schedule_type', 'VARCHAR'),
    col('first_entry', 'TIMESTAMP'),
    col('last_entry', 'TIMESTAMP'),
    col('channels', 'VARCHAR[]'),
    col('tags', 'VARCHAR[]'),
    col('teams', 'VARCHAR[]'),
    col('last_edited', 'TIMESTAMP'),
    ...DISCOVERED_COLUMNS,
  ],
  key: ['canvas_id'],
  history: { validFrom: 'updated_at' },
});

const variantsTable = defineTable({
  name: 'canvas_variants',
  description: 'Variants of each Canvas and their first steps.',
  columns: [
    col('canvas_id', 'VARCHAR'),
    col('variant_id', 'VARCHAR'),
    col('name', 'VARCHAR'),
    col('first_step_ids', 'VARCHAR[]'),
    col('first_step_id', 'VARCHAR'),
  ],
  key: ['canvas_id', 'variant_id'],
  history: {},
});

const stepsTable = defineTable({
  name: 'canvas_steps',
  description: 'Steps of each Canvas: type, next steps and paths, channels and messages.',
  columns: [
    col('canvas_id', 'VARCHAR'),
    col('step_id', 'VARCHAR'),
    col('name', 'VARCHAR'),
    col('type', 'VARCHAR'),
    col('next_step_ids', 'VARCHAR[]'),
    col('next_paths', 'JSON'),
    col('channels', 'VARCHAR[]'),
    col('messages', 'JSON'),
  ],
  key: ['canvas_id', 'step_id'],
  history: {},
});

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

export const canvasDetailsStream = perIdStream({
  kind: 'per_id',
  name: 'canvas_details',
  description: "Each listed Canvas's details, variants and steps.",
  endpoint: ENDPOINTS.canvasDetails,
  tables: [canvasesTable, variantsTable, stepsTable],
  options: {
    keys: ['canvases', 'include_archived'],
    example: '{ canvases: all, include_archived: true }',
    read: (r): CanvasDetailsOptions => ({
      canvases: r.idSelection('canvases', 'canvases: [cv_1]'),
      includeArchived: r.boolean('include_archived'),
    }),
  },
  discovery: idListDiscovery<CanvasDetailsOptions>(
    CANVAS_LIST,
    (o) => o.canvases,
    (o, canvases) => ({ ...o, canvases }),
    (o) => o.includeArchived,
  ),
  references: (o) => idReference('canvases', CANVAS_LIST, o.canvases.ids),
  ids: (o) => o.canvases.ids,
  fetch: async (client, canvasId, _o, listed) => {
    const d = await fetchCanvasDetails(client, canvasId);
    return {
      upserts: [
        rowsOf(canvasesTable, [
          {
            canvas_id: canvasId,
            name: stringOrNull(d.name),
            description: stringOrNull(d.description),
            created_at: timestampOrNull(d.created_at),
            updated_at: timestampOrNull(d.updated_at),
            archived: d.archived ?? null,
            draft: d.draft ?? null,
            schedule_type: stringOrNull(d.schedule_type),
            first_entry: timestampOrNull(d.first_entry),
            last_entry: timestampOrNull(d.last_entry),
            channels: stringList(d.channels),
            tags: stringList(d.tags),
            teams: stringList(d.teams),
            last_edited: timestampOrNull(listed?.attributes['last_edited']),
            ...discoveredValues(listed),
          },
        ]),
        rowsOf(
          variantsTable,
          (d.variants ?? []).map((v) => ({
            canvas_id: canvasId,
            variant_id: v.id,
            name: stringOrNull(v.name),
            first_step_ids: stringList(v.first_step_ids),
            first_step_id: firstStepId(v.first_step_id, v.first_step_ids),
          })),
        ),
        rowsOf(
          stepsTable,
          (d.steps ?? []).map((s) => ({
            canvas_id: canvasId,
            step_id: s.id,
            name: stringOrNull(s.name),
            type: stringOrNull(s.type),
            next_step_ids: stringList(s.next_step_ids),
            next_paths: s.next_paths ?? [],
            channels: stringList(s.channels),
            messages: s.messages ?? {},
          })),
        ),
      ],
      replaces: [
        { table: variantsTable.name, columns: ['canvas_id'], values: [[canvasId]] },
        { table: stepsTable.name, columns: ['canvas_id'], values: [[canvasId]] },
      ],
    };
  },
});
