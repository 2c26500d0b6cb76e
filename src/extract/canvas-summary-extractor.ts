// One day of one Canvas's data summary → rows of canvas_summary and, when asked for, its variant, step and step-message
// breakdowns. The endpoint rolls up its window, so one request per Canvas per day keeps the tables daily.
import type { ApiClient } from '../api/api-client.js';
import { fetchCanvasSummary } from '../api/canvas-summary.js';
import type { CanvasSummaryConfig } from '../config/pipeline-definition.js';
import type { ExtractedRows } from './extracted-rows.js';
import type { CanvasDayWindow } from './windows.js';

export async function fetchCanvasDay(
  client: ApiClient,
  canvasId: string,
  day: CanvasDayWindow,
  config: CanvasSummaryConfig,
): Promise<ExtractedRows> {
  const summary = await fetchCanvasSummary(client, {
    canvasId,
    startingAt: day.startingAt,
    endingAt: day.endingAt,
    includeVariantBreakdown: config.variantBreakdown,
    includeStepBreakdown: config.stepBreakdown,
    includeDeletedStepData: config.deletedStepData,
  });
  const date = day.day.toJSDate();
  const scope = { columns: ['canvas_id', 'day'], values: [[canvasId, date]] };
  const t = summary.total_stats;
  const result: ExtractedRows = {
    upserts: [
      {
        table: 'canvas_summary',
        rows: [{
          canvas_id: canvasId, day: date, name: summary.name, entries: t.entries, conversions: t.conversions,
          conversions_by_entry_time: t.conversions_by_entry_time, revenue: t.revenue,
        }],
      },
    ],
    replaces: [],
  };

  if (config.variantBreakdown) {
    const rows = Object.entries(summary.variant_stats ?? {}).map(([variantId, v]) => ({
      canvas_id: canvasId, day: date, variant_id: variantId, name: v.name, entries: v.entries, conversions: v.conversions, revenue: v.revenue,
    }));
    result.upserts.push({ table: 'canvas_variant_summary', rows });
    result.replaces.push({ table: 'canvas_variant_summary', ...scope });
  }

  if (config.stepBreakdown) {
    const steps: Record<string, unknown>[] = [];
    const messages: Record<string, unknown>[] = [];
    for (const [stepId, s] of Object.entries(summary.step_stats ?? {})) {
      steps.push({
        canvas_id: canvasId, day: date, step_id: stepId, name: s.name, conversions: s.conversions,
        conversions_by_entry_time: s.conversions_by_entry_time, revenue: s.revenue,
      });
      for (const [channel, list] of Object.entries(s.messages ?? {})) {
        list.forEach((m, index) => {
          messages.push({
            canvas_id: canvasId, day: date, step_id: stepId, channel, message_index: index,
            sent: m.sent, opens: m.opens, influenced_opens: m.influenced_opens, bounces: m.bounces,
          });
        });
      }
    }
    result.upserts.push({ table: 'canvas_step_summary', rows: steps }, { table: 'canvas_step_messages', rows: messages });
    result.replaces.push({ table: 'canvas_step_summary', ...scope }, { table: 'canvas_step_messages', ...scope });
  }
  return result;
}
