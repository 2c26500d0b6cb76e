// canvas_summary: GET /canvas/data_summary (spec 4.14 / 2.7) as a daily series whose windows are one day long — the
// endpoint rolls up its window, so a one-day window is what makes the rows daily. Optional variant and step breakdowns
// land in their own tables; a re-fetched day replaces that day's breakdown rows.
import { fetchCanvasSummary } from '../api/canvas-summary.js';
import { ENDPOINTS } from '../api/endpoints.js';
import type { CanvasDataSummary } from '../api/types.js';
import type { ExtractedRows } from '../extract/extracted-rows.js';
import { isoSeconds } from '../extract/windows.js';
import { col, defineTable, rowsOf } from '../load/table-definition.js';
import type { RowOf } from '../load/table-definition.js';
import { seriesStream } from './stream-declaration.js';
import { flagSchema, idsSchema, optionsSchema } from './option-schema.js';

export interface CanvasSummaryOptions {
  canvases: readonly string[];
  /** Send include_variant_breakdown. @default false */
  variantBreakdown: boolean;
  /** Send include_step_breakdown. @default false */
  stepBreakdown: boolean;
  /** Send include_deleted_step_data. @default false */
  deletedStepData: boolean;
}

const summaryTable = defineTable({
  name: 'canvas_summary',
  description: 'A Canvas\'s totals per UTC day.',
  columns: [
    col('canvas_id', 'VARCHAR'), col('day', 'DATE'), col('name', 'VARCHAR'), col('entries', 'BIGINT'), col('conversions', 'BIGINT'),
    col('conversions_by_entry_time', 'BIGINT'), col('revenue', 'DOUBLE'),
  ],
  key: ['canvas_id', 'day'],
  partitionSource: 'day',
});

const variantTable = defineTable({
  name: 'canvas_variant_summary',
  description: 'A Canvas variant\'s totals per UTC day.',
  columns: [
    col('canvas_id', 'VARCHAR'), col('day', 'DATE'), col('variant_id', 'VARCHAR'), col('name', 'VARCHAR'), col('entries', 'BIGINT'),
    col('conversions', 'BIGINT'), col('revenue', 'DOUBLE'),
  ],
  key: ['canvas_id', 'day', 'variant_id'],
  partitionSource: 'day',
});

const stepTable = defineTable({
  name: 'canvas_step_summary',
  description: 'A Canvas step\'s totals per UTC day.',
  columns: [
    col('canvas_id', 'VARCHAR'), col('day', 'DATE'), col('step_id', 'VARCHAR'), col('name', 'VARCHAR'), col('conversions', 'BIGINT'),
    col('conversions_by_entry_time', 'BIGINT'), col('revenue', 'DOUBLE'),
  ],
  key: ['canvas_id', 'day', 'step_id'],
  partitionSource: 'day',
});

const stepMessagesTable = defineTable({
  name: 'canvas_step_messages',
  description: 'Message statistics of a Canvas step per UTC day, channel and message (its position in the channel\'s list).',
  columns: [
    col('canvas_id', 'VARCHAR'), col('day', 'DATE'), col('step_id', 'VARCHAR'), col('channel', 'VARCHAR'), col('message_index', 'INTEGER'),
    col('sent', 'BIGINT'), col('opens', 'BIGINT'), col('influenced_opens', 'BIGINT'), col('bounces', 'BIGINT'),
  ],
  key: ['canvas_id', 'day', 'step_id', 'channel', 'message_index'],
  partitionSource: 'day',
});

/** The rows of one Canvas day (shared with any other source of daily Canvas stats). */
export function canvasDayRows(canvasId: string, day: Date, summary: CanvasDataSummary, o: CanvasSummaryOptions): ExtractedRows {
  const scope = { columns: ['canvas_id', 'day'], values: [[canvasId, day]] };
  const t = summary.total_stats;
  const result: ExtractedRows = {
    upserts: [rowsOf(summaryTable, [{
      canvas_id: canvasId, day, name: summary.name, entries: t.entries, conversions: t.conversions,
      conversions_by_entry_time: t.conversions_by_entry_time, revenue: t.revenue,
    }])],
    replaces: [],
  };
  if (o.variantBreakdown) {
    const rows: RowOf<typeof variantTable>[] = Object.entries(summary.variant_stats ?? {}).map(([variantId, v]) => ({
      canvas_id: canvasId, day, variant_id: variantId, name: v.name, entries: v.entries, conversions: v.conversions, revenue: v.revenue,
    }));
    result.upserts.push(rowsOf(variantTable, rows));
    result.replaces.push({ table: variantTable.name, ...scope });
  }
  if (o.stepBreakdown) {
    const steps: RowOf<typeof stepTable>[] = [];
    const messages: RowOf<typeof stepMessagesTable>[] = [];
    for (const [stepId, s] of Object.entries(summary.step_stats ?? {})) {
      steps.push({
        canvas_id: canvasId, day, step_id: stepId, name: s.name, conversions: s.conversions,
        conversions_by_entry_time: s.conversions_by_entry_time, revenue: s.revenue,
      });
      for (const [channel, list] of Object.entries(s.messages ?? {})) {
        list.forEach((m, index) => {
          messages.push({
            canvas_id: canvasId, day, step_id: stepId, channel, message_index: index,
            sent: m.sent, opens: m.opens, influenced_opens: m.influenced_opens, bounces: m.bounces,
          });
        });
      }
    }
    result.upserts.push(rowsOf(stepTable, steps), rowsOf(stepMessagesTable, messages));
    result.replaces.push({ table: stepTable.name, ...scope }, { table: stepMessagesTable.name, ...scope });
  }
  return result;
}

export const canvasSummaryStream = seriesStream({
  kind: 'series',
  name: 'canvas_summary',
  description: 'Daily statistics of each listed Canvas, with optional variant and step breakdowns.',
  endpoint: ENDPOINTS.canvasDataSummary,
  tables: [summaryTable, variantTable, stepTable, stepMessagesTable],
  maxUnits: 1,
  options: {
    keys: ['canvases', 'variant_breakdown', 'step_breakdown', 'deleted_step_data'],
    schema: optionsSchema({
      canvases: idsSchema('Canvas ids'),
      variant_breakdown: flagSchema('send include_variant_breakdown'),
      step_breakdown: flagSchema('send include_step_breakdown'),
      deleted_step_data: flagSchema('send include_deleted_step_data'),
    }, ['canvases']),
    example: '{ canvases: [cv_1], variant_breakdown: true, step_breakdown: true }',
    read: (r): CanvasSummaryOptions => ({
      canvases: r.ids('canvases', 'Canvas ids, e.g. canvases: [cv_1]'),
      variantBreakdown: r.boolean('variant_breakdown'),
      stepBreakdown: r.boolean('step_breakdown'),
      deletedStepData: r.boolean('deleted_step_data'),
    }),
  },
  series: (o) =>
    o.canvases.map((canvasId) => ({
      dims: { canvas_id: canvasId },
      unit: 'day' as const,
      // One day per window: `starting_at` / `ending_at` of that day leave no doubt about which day is meant.
      fetch: async (client, w) => {
        const summary = await fetchCanvasSummary(client, {
          canvasId,
          startingAt: isoSeconds(w.start),
          endingAt: isoSeconds(w.end.minus(1000)),
          includeVariantBreakdown: o.variantBreakdown,
          includeStepBreakdown: o.stepBreakdown,
          includeDeletedStepData: o.deletedStepData,
        });
        return [{ time: isoSeconds(w.start), value: summary }];
      },
      rows: (day: Date, value: unknown) => canvasDayRows(canvasId, day, value as CanvasDataSummary, o),
    })),
});
