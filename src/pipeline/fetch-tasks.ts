// The fetch tasks of a planned run, queued per limit pool, one kind of task per stream kind: a series window, a paged list,
// an object by id. Each task fetches, hands its rows (with the watermark and hole changes they allow) to the committer,
// and reports progress. Nothing here knows a stream by name: the declarations say what to fetch and how rows look.
import type { DateTime } from 'luxon';
import type { ApiClient } from '../api/api-client.js';
import type { ExtractedRows, RowNotice } from '../extract/extracted-rows.js';
import { CursorProgress, holeChanges, isWanted } from '../extract/incremental-cursor.js';
import { negativeCountNotices } from '../extract/negative-counts.js';
import { fetchSeriesWindow } from '../extract/series-extractor.js';
import type { HoleUpdate, SeriesStateUpdate } from '../load/series-state-store.js';
import { SNAPSHOT } from '../load/series-state-store.js';
import { streamDeclaration } from '../streams/registry.js';
import type { StreamName } from '../streams/registry.js';
import type { Committer } from './committer.js';
import type { Plan, SeriesPlan } from './plan.js';
import type { RunWarning } from './run-events.js';
import type { TaskQueues } from './task-queues.js';

export interface FetchTaskContext {
  client: ApiClient;
  committer: Committer;
  /** The run's frozen upper bound. */
  until: DateTime;
  /** Runs that re-request a hole before it is confirmed absent. */
  holeRetries: number;
  /** Progress of a stream: requests done and rows fetched since the last call. */
  tick(stream: StreamName, requests: number, rows: number): void;
  warn(warning: RunWarning): void;
  /**
   * Follow-up requests a window needed (a server that reads windows differently). Re-asks of a conflicting answer are
   * not follow-ups: they show in `sent` beyond `planned`.
   */
  extraRequests(followUps: number): void;
  /** Hole changes committed, for the run summary. */
  holes(stream: StreamName, seriesKey: string, changes: readonly HoleUpdate[]): void;
}

function countRows(rows: ExtractedRows): number {
  return rows.upserts.reduce((n, u) => n + u.rows.length, 0);
}

/** Many parts as one: rows grouped by table, scopes and notices concatenated. */
function mergeRows(parts: readonly ExtractedRows[]): ExtractedRows {
  const byTable = new Map<string, Record<string, unknown>[]>();
  const replaces: ExtractedRows['replaces'] = [];
  const notices: RowNotice[] = [];
  for (const part of parts) {
    for (const u of part.upserts) {
      const rows = byTable.get(u.table);
      if (rows) for (const row of u.rows) rows.push(row);
      else byTable.set(u.table, [...u.rows]);
    }
    replaces.push(...part.replaces);
    if (part.notices) notices.push(...part.notices);
  }
  return { upserts: [...byTable].map(([table, rows]) => ({ table, rows })), replaces, notices };
}

/**
 * The part to commit, its notices turned into warnings of the run: the first of each stream, code and key warns; the
 * same notice from later rows, windows or series of the run does not.
 */
function takeNotices(ctx: FetchTaskContext, seen: Set<string>, stream: StreamName, rows: ExtractedRows): Omit<ExtractedRows, 'notices'> {
  for (const n of [...(rows.notices ?? []), ...negativeCountNotices(streamDeclaration(stream).tables, rows)]) {
    const id = JSON.stringify([stream, n.code, n.key]);
    if (seen.has(id)) continue;
    seen.add(id);
    ctx.warn({ code: n.code, stream, message: n.message });
  }
  return { upserts: rows.upserts, replaces: rows.replaces };
}

export function queueFetchTasks(plan: Plan, tasks: TaskQueues, ctx: FetchTaskContext): void {
  const seen = new Set<string>();
  const noticed = (stream: StreamName, rows: ExtractedRows) => takeNotices(ctx, seen, stream, rows);
  for (const sp of plan.series) queueSeries(sp, tasks, ctx, noticed);

  for (const list of plan.lists) {
    const name = list.stream.name as StreamName;
    tasks.add(list.stream.endpoint.pool, name, async () => {
      const rows = await list.stream.fetch(ctx.client, list.options, ctx.until.toJSDate());
      await ctx.committer.add({ ...noticed(name, rows), state: [snapshotState(name, ctx, countRows(rows))], holes: [] });
      ctx.tick(name, rows.pages, countRows(rows));
    });
  }

  // Listings (their rows came with discovery) and id-by-id streams whose listed objects are all unchanged are current as
  // of --until all the same: their snapshot is recorded without a request.
  for (const stream of [...plan.listings, ...plan.perId.filter((p) => p.ids.length === 0).map((p) => p.stream)]) {
    tasks.add(stream.endpoint.pool, stream.name, () => ctx.committer.add({ upserts: [], replaces: [], state: [snapshotState(stream.name as StreamName, ctx, 0)], holes: [] }));
  }

  for (const p of plan.perId) {
    const name = p.stream.name as StreamName;
    // The stream's snapshot is as of --until once its last id is in: that commit records it.
    let left = p.ids.length;
    const done = (rows: number) => (--left === 0 ? [snapshotState(name, ctx, rows)] : []);
    for (const id of p.ids) {
      tasks.add(p.stream.endpoint.pool, name, async () => {
        let rows: ExtractedRows;
        try {
          rows = await p.stream.fetch(ctx.client, id, p.options, p.listed?.get(id));
        } catch (err) {
          const tolerated = p.stream.tolerate?.(err, id);
          if (tolerated === undefined) throw err;
          ctx.warn({ code: 'object_unavailable', stream: name, message: tolerated });
          await ctx.committer.add({ upserts: [], replaces: [], state: done(0), holes: [] });
          ctx.tick(name, 1, 0);
          return;
        }
        await ctx.committer.add({ ...noticed(name, rows), state: done(countRows(rows)), holes: [] });
        ctx.tick(name, 1, countRows(rows));
      });
    }
  }
}

/**
 * The state row of a list or id-by-id stream: its "watermark" is the instant its snapshot was taken as of (--until),
 * so `status`, freshness checks and metrics cover these streams as they do series.
 */
function snapshotState(stream: StreamName, ctx: FetchTaskContext, rows: number): SeriesStateUpdate {
  return { stream, seriesKey: SNAPSHOT, unit: SNAPSHOT, watermark: ctx.until.toJSDate(), rowsLoaded: rows };
}

function queueSeries(sp: SeriesPlan, tasks: TaskQueues, ctx: FetchTaskContext, noticed: (stream: StreamName, rows: ExtractedRows) => Omit<ExtractedRows, 'notices'>): void {
  const name = sp.stream.name as StreamName;
  const { cursor, instance } = sp;
  const progress = new CursorProgress(cursor);
  const source = { endpoint: sp.endpoint.path, seriesKey: sp.seriesKey, unit: instance.unit, maxUnits: sp.maxUnits, fetch: instance.fetch };
  for (const window of cursor.windows) {
    tasks.add(sp.endpoint.pool, name, async () => {
      const result = await fetchSeriesWindow(ctx.client, source, window, (ms) => isWanted(cursor, ms));
      ctx.extraRequests(result.followUps);
      if (result.outside.count > 0) {
        ctx.warn({
          code: 'points_outside_window', stream: name,
          message: `${sp.endpoint.path} returned ${result.outside.count} point(s) outside the window asked for ${sp.seriesKey} (${window.start.toISO()} to ${window.end.toISO()}, e.g. time ${JSON.stringify(result.outside.example)}); they were ignored`,
        });
      }
      const inProgress = result.missing.filter((m) => m.startMs >= cursor.completeEnd.toMillis());
      if (inProgress.length > 0) {
        ctx.warn({
          code: 'in_progress_units_absent', stream: name,
          message: `${name} ${sp.seriesKey}: ${inProgress.length} unit(s) between ${window.start.toISO()} and ${window.end.toISO()} were not returned even after a follow-up request; they are still in progress at --until and are asked again next run`,
        });
      }
      const rows = mergeRows([...result.points].map(([ms, value]) => instance.rows(new Date(ms), value)));
      const holes: HoleUpdate[] = holeChanges(cursor, new Set(result.points.keys()), result.missing, ctx.holeRetries).map((h) => ({
        stream: name, seriesKey: sp.seriesKey, unit: instance.unit, unitStart: new Date(h.startMs), status: h.status, attempts: h.attempts, reason: h.reason,
      }));
      const rowCount = countRows(rows);
      // rows_loaded counts the main table's rows (one per unit), whatever breakdowns ride along.
      progress.finish(window.start.toMillis(), rows.upserts.find((u) => u.table === sp.stream.tables[0]?.name)?.rows.length ?? 0);
      const advanced = progress.advance();
      await ctx.committer.add({
        ...noticed(name, rows),
        state: advanced === undefined ? [] : [{ stream: name, seriesKey: sp.seriesKey, unit: instance.unit, watermark: new Date(advanced.watermarkMs), rowsLoaded: advanced.rows }],
        holes,
      });
      if (holes.length > 0) ctx.holes(name, sp.seriesKey, holes);
      ctx.tick(name, 1, rowCount);
    });
  }
}
