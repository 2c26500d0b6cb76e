// The fetch tasks of a planned run, queued per limit pool: one per series window, one per Canvas-day, one per metadata id
// or paged list. Each task fetches, hands its rows (and the watermark they allow) to the committer, and reports progress.
import type { DateTime } from 'luxon';
import type { ApiClient } from '../api/api-client.js';
import type { PipelineDefinition, StreamName } from '../config/pipeline-definition.js';
import { FatalApiError, FatalError } from '../errors.js';
import { fetchCanvasDay } from '../extract/canvas-summary-extractor.js';
import { fetchCanvasDetailsRows } from '../extract/canvas-details-extractor.js';
import { fetchContentBlockRows } from '../extract/content-blocks-extractor.js';
import { fetchCustomEventRows } from '../extract/custom-events-extractor.js';
import { fetchDataIntegrationRows } from '../extract/data-integrations-extractor.js';
import { fetchEmailTemplateRows } from '../extract/email-templates-extractor.js';
import type { ExtractedRows } from '../extract/extracted-rows.js';
import { fetchSeriesWindow } from '../extract/series-extractor.js';
import type { Committer } from './committer.js';
import type { Plan } from './plan.js';
import { SeriesProgress } from './series-progress.js';
import type { RunWarning } from './run-events.js';
import type { TaskQueues } from './task-queues.js';

export interface FetchTaskContext {
  client: ApiClient;
  committer: Committer;
  pipeline: PipelineDefinition;
  /** The run's frozen upper bound. */
  until: DateTime;
  /** Progress of a stream: requests done and rows fetched since the last call. */
  tick(stream: StreamName, requests: number, rows: number): void;
  warn(warning: RunWarning): void;
  /** Follow-up requests a window needed (a server that reads windows differently). */
  followUps(count: number): void;
}

export function countRows(rows: ExtractedRows): number {
  return rows.upserts.reduce((n, u) => n + u.rows.length, 0);
}

export function queueFetchTasks(plan: Plan, tasks: TaskQueues, ctx: FetchTaskContext): void {
  for (const sp of plan.series) {
    const tracker = new SeriesProgress(
      sp.windows.map((w) => ({ startMs: w.start.toMillis(), endMs: w.end.toMillis() })),
      sp.completeEnd.toMillis(),
      sp.watermark?.getTime(),
    );
    for (const window of sp.windows) {
      tasks.add(sp.def.pool, async () => {
        const result = await fetchSeriesWindow(ctx.client, sp.def.source, window);
        ctx.followUps(result.requests - 1);
        if (result.absentUnits > 0) ctx.warn({ code: 'units_absent', stream: sp.def.stream, message: `${sp.def.stream} ${sp.def.seriesKey}: ${result.absentUnits} unit(s) between ${window.start.toISO()} and ${window.end.toISO()} were not returned even after a follow-up request; treated as absent upstream` });
        const rows = [...result.points].map(([ms, value]) => sp.def.toRow(new Date(ms), value));
        tracker.finish(window.start.toMillis(), rows.length);
        const advanced = tracker.advance();
        await ctx.committer.add({
          upserts: [{ table: sp.def.table, rows }],
          replaces: [],
          state: advanced === undefined ? [] : [{ stream: sp.def.stream, seriesKey: sp.def.seriesKey, unit: sp.def.unit, watermark: new Date(advanced.watermarkMs), rowsLoaded: advanced.rows }],
        });
        ctx.tick(sp.def.stream, 1, rows.length);
      });
    }
  }

  const canvasConfig = ctx.pipeline.streams.canvas_summary;
  for (const cp of plan.canvases) {
    const tracker = new SeriesProgress(
      cp.days.map((d) => ({ startMs: d.day.toMillis(), endMs: d.day.plus({ days: 1 }).toMillis() })),
      cp.completeEnd.toMillis(),
      cp.watermark?.getTime(),
    );
    for (const day of cp.days) {
      tasks.add('default', async () => {
        const rows = await fetchCanvasDay(ctx.client, cp.canvasId, day, canvasConfig!);
        tracker.finish(day.day.toMillis(), 1);
        const advanced = tracker.advance();
        await ctx.committer.add({
          ...rows,
          state: advanced === undefined ? [] : [{ stream: 'canvas_summary', seriesKey: cp.seriesKey, unit: 'day', watermark: new Date(advanced.watermarkMs), rowsLoaded: advanced.rows }],
        });
        ctx.tick('canvas_summary', 1, countRows(rows));
      });
    }
  }

  for (const snap of plan.snapshots) {
    const commitSnapshot = async (rows: ExtractedRows, requests: number) => {
      await ctx.committer.add({ ...rows, state: [] });
      ctx.tick(snap.stream, requests, countRows(rows));
    };
    switch (snap.stream) {
      case 'custom_events':
        tasks.add(snap.pool, async () => {
          const rows = await fetchCustomEventRows(ctx.client, ctx.until.toJSDate());
          await commitSnapshot(rows, rows.pages);
        });
        break;
      case 'data_integrations':
        tasks.add(snap.pool, async () => {
          const rows = await fetchDataIntegrationRows(ctx.client);
          await commitSnapshot(rows, rows.pages);
        });
        break;
      case 'canvas_details':
        for (const id of snap.ids) tasks.add(snap.pool, async () => commitSnapshot(await fetchCanvasDetailsRows(ctx.client, id), 1));
        break;
      case 'email_templates':
        for (const id of snap.ids) tasks.add(snap.pool, async () => commitSnapshot(await fetchEmailTemplateRows(ctx.client, id), 1));
        break;
      case 'content_blocks': {
        const inclusion = ctx.pipeline.streams.content_blocks?.inclusionData ?? false;
        for (const id of snap.ids) {
          tasks.add(snap.pool, async () => {
            try {
              await commitSnapshot(await fetchContentBlockRows(ctx.client, id, inclusion), 1);
            } catch (err) {
              // A block deleted in the dashboard must not break the nightly run: keep its last stored row, say so.
              if (!(err instanceof FatalApiError && err.status === 400 && /deleted/i.test(err.message))) throw err;
              ctx.warn({ code: 'content_block_deleted', stream: 'content_blocks', message: `content block ${id} has been deleted upstream; its stored row is kept as it was (remove it from the pipeline file to silence this)` });
              ctx.tick('content_blocks', 1, 0);
            }
          });
        }
        break;
      }
      default:
        throw new FatalError(`internal: no extractor for snapshot stream ${snap.stream}`);
    }
  }
}
