// The fetch tasks of a planned run, queued per limit pool, one kind of task per stream kind: a series window, a paged list,
// an object by id. Each task fetches, hands its rows (with the watermark and hole changes they allow) to the committer,
// and reports progress. Nothing here knows a stream by name: the declarations say what to fetch and how rows look.
import type { DateTime } from 'luxon';
import type { ApiClient } from '../api/api-client.js';
import type { ExtractedRows, RowNotice } from '../extract/extracted-rows.js';
import {
  CursorProgress,
  holeChanges,
  isQuiet,
  isWanted,
  LAG_MS,
  laggingStart,
  orderedWindows,
} from '../extract/incremental-cursor.js';
import type { CursorPlan } from '../extract/incremental-cursor.js';
import { negativeCountNotices } from '../extract/negative-counts.js';
import { fetchSeriesWindow } from '../extract/series-extractor.js';
import type { Window } from '../extract/windows.js';
import type { HoleUpdate, SeriesStateUpdate } from '../load/series-state-commit.js';
import { SNAPSHOT } from '../load/series-state-commit.js';
import { streamDeclaration } from '../streams/registry.js';
import type { StreamName } from '../streams/registry.js';
import type { Committer } from './committer.js';
import type { Discovery } from './discover.js';
import { DetailsReads } from './details-reads.js';
import { moneyNotices } from './money-notices.js';
import type { Plan, SeriesPlan } from './plan.js';
import type { RunWarning } from './run-events.js';
import type { Task, TaskGroup, TaskQueues } from './task-queues.js';

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
  /** The list entries of the objects whose details a series may read (Discovery.detailsDue). */
  detailsDue: Discovery['detailsDue'];
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
function takeNotices(
  ctx: FetchTaskContext,
  seen: Set<string>,
  stream: StreamName,
  rows: ExtractedRows,
): Omit<ExtractedRows, 'notices'> {
  for (const n of [
    ...(rows.notices ?? []),
    ...moneyNotices(rows),
    ...negativeCountNotices(streamDeclaration(stream).tables, rows),
  ]) {
    const id = JSON.stringify([stream, n.code, n.key]);
    if (seen.has(id)) continue;
    seen.add(id);
    ctx.warn({ code: n.code, stream, message: n.message });
  }
  return { upserts: rows.upserts, replaces: rows.replaces };
}

/** The group of a series: failing, it fails alone. */
export function seriesGroup(sp: SeriesPlan): TaskGroup {
  const name = sp.stream.name;
  return { stream: name, series: `${name}\u0000${sp.seriesKey}`, key: sp.seriesKey, ids: sp.instance.dims };
}

function objectGroup(stream: string, id: string): TaskGroup {
  return { stream, series: `${stream}\u0000id=${id}`, key: `id=${id}`, ids: { id } };
}

function listGroup(stream: string): TaskGroup {
  return { stream, series: `${stream}\u0000list`, key: 'list', ids: {} };
}

/**
 * Queues every request of the plan, series after series, each series' windows in its backfill order (newest first, or
 * oldest first), so that a time budget cuts each series after a contiguous run of its windows from that end: the next run
 * extends the loaded range from its low (or high) watermark. Series after series, not round after round: a series
 * started is a series whose look-back every later night re-reads, so starting them all on the first night would cost
 * one request per series and night more. The tasks are made as the pools' workers take them: a series' windows and
 * progress exist from its first request to its last.
 */
export function queueFetchTasks(plan: Plan, tasks: TaskQueues, ctx: FetchTaskContext): void {
  const seen = new Set<string>();
  const noticed = (stream: StreamName, rows: ExtractedRows) => takeNotices(ctx, seen, stream, rows);
  const details = detailsReads(plan, ctx, noticed);
  for (const pool of new Set(plan.series.map((sp) => sp.endpoint.pool))) {
    const windows = plan.series.reduce((n, sp) => (sp.endpoint.pool === pool ? n + sp.cursor.windowCount : n), 0);
    tasks.addAll(
      pool,
      flatten(plan.series, (sp) => (sp.endpoint.pool === pool ? seriesTasks(sp, ctx, noticed, details) : [])),
      windows,
    );
  }

  for (const list of plan.lists) {
    const name = list.stream.name as StreamName;
    tasks.add(list.stream.endpoint.pool, listGroup(name), async () => {
      const rows = await list.stream.fetch(ctx.client, list.options, ctx.until.toJSDate());
      await ctx.committer.add({
        ...noticed(name, rows),
        state: [snapshotState(name, ctx, countRows(rows))],
        holes: [],
      });
      ctx.tick(name, rows.pages, countRows(rows));
    });
  }

  // Listings (their rows came with discovery) and id-by-id streams whose listed objects are all unchanged are current as
  // of --until all the same: their snapshot is recorded without a request.
  for (const stream of [...plan.listings, ...plan.perId.filter((p) => p.ids.length === 0).map((p) => p.stream)]) {
    tasks.add(stream.endpoint.pool, listGroup(stream.name), () =>
      ctx.committer.add({
        upserts: [],
        replaces: [],
        state: [snapshotState(stream.name as StreamName, ctx, 0)],
        holes: [],
      }),
    );
  }

  for (const p of plan.perId) {
    const name = p.stream.name as StreamName;
    // The stream's snapshot is as of --until once its last id is in: that commit records it.
    let left = p.ids.length;
    const done = (rows: number) => (--left === 0 ? [snapshotState(name, ctx, rows)] : []);
    tasks.addAll(
      p.stream.endpoint.pool,
      flatten(p.ids, (id) => [
        {
          group: objectGroup(name, id),
          work: async () => {
            let rows: ExtractedRows;
            try {
              rows = await details.forStream(p.stream, id, () =>
                p.stream.fetch(ctx.client, id, p.options, p.listed?.get(id)),
              );
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
          },
        },
      ]),
      p.ids.length,
    );
  }
}

/**
 * The run's reads of activity details (DetailsReads): rows of an object no stream of the run reads are stored under the
 * series' name, the request is a follow-up of its window, and an unreadable object is told once per stream.
 */
function detailsReads(
  plan: Plan,
  ctx: FetchTaskContext,
  noticed: (stream: StreamName, rows: ExtractedRows) => Omit<ExtractedRows, 'notices'>,
): DetailsReads {
  const told = new Set<string>();
  return new DetailsReads(plan, {
    commit: (sp, rows) => ctx.committer.add({ ...noticed(sp.stream.name as StreamName, rows), state: [], holes: [] }),
    extraRequest: () => ctx.extraRequests(1),
    listed: (stream, id) => ctx.detailsDue.get(stream as StreamName)?.get(id),
    unreadable: (sp, error) => {
      const name = sp.stream.name as StreamName;
      if (told.has(name)) return;
      told.add(name);
      const a = sp.stream.activity!;
      ctx.warn({
        code: 'activity_details_unreadable',
        stream: name,
        message: `${name} ${sp.seriesKey}: the ${a.details.name} details (${a.details.endpoint.method} ${a.details.endpoint.path}${a.details.endpoint.permission ? `, permission ${a.details.endpoint.permission}` : ''}) could not be read, so its days left out stay holes instead of being told quiet from its ${a.first} and ${a.last}: ${error instanceof Error ? error.message : String(error)}. Other objects of the stream that fail the same way are not named again`,
      });
    },
  });
}

/** The tasks `tasksOf` gives for each item, in order, each item's made only when the previous ones are taken. */
function* flatten<T>(items: readonly T[], tasksOf: (item: T) => Iterable<Task>): Generator<Task> {
  for (const item of items) yield* tasksOf(item);
}

/**
 * A daily window asked in the platform's own days: `ending_at` is the last second of its last date at the offset the
 * platform writes that series with (`2024-03-05T23:59:59+02:00`), so a server whose days are local days returns the
 * dates asked for. Without a known offset (a first run, hours, bare dates) the UTC form stands: the edge follow-up covers
 * a server whose days turn out not to be UTC days, and the offset it writes is used from the next window on.
 */
function localWindow(window: Window, offset: string | undefined): Window {
  if (window.unit !== 'day' || offset === undefined || offset === '+00:00') return window;
  return { ...window, endingAt: `${window.endingAt.slice(0, 10)}T23:59:59${offset}` };
}

/** True when a unit the window left out would open (or keep) a hole: complete, not quiet, not confirmed absent. */
function opensHole(plan: CursorPlan, ms: number): boolean {
  return ms < plan.completeEndMs && !isQuiet(plan, ms) && plan.holes.get(ms)?.status !== 'confirmed_absent';
}

/**
 * The state row of a list or id-by-id stream: its "watermark" is the instant its snapshot was taken as of (--until),
 * so `status`, freshness checks and metrics cover these streams as they do series.
 */
function snapshotState(stream: StreamName, ctx: FetchTaskContext, rows: number): SeriesStateUpdate {
  return { stream, seriesKey: SNAPSHOT, unit: SNAPSHOT, watermark: ctx.until.toJSDate(), rowsLoaded: rows };
}

/** The window tasks of one series, in its backfill order; its windows and progress are made when its first one is taken. */
function* seriesTasks(
  sp: SeriesPlan,
  ctx: FetchTaskContext,
  noticed: (stream: StreamName, rows: ExtractedRows) => Omit<ExtractedRows, 'notices'>,
  details: DetailsReads,
): Generator<Task> {
  const name = sp.stream.name as StreamName;
  const { cursor, instance } = sp;
  const windows = orderedWindows(cursor);
  const progress = new CursorProgress(cursor, windows);
  const source = {
    endpoint: sp.endpoint.path,
    seriesKey: sp.seriesKey,
    unit: instance.unit,
    maxUnits: sp.maxUnits,
    fetch: (client: ApiClient, w: Window) => instance.fetch(client, w),
  };
  const group = seriesGroup(sp);
  // The offset the platform writes this series' days with, as last seen: the days it asks for end at its own midnight.
  let offset = sp.utcOffset;
  // The object's activity as the plan knew it, until its details are read this run.
  let known: CursorPlan = cursor;
  for (const planned of windows) {
    yield { group, work: () => fetchWindow(planned) };
  }

  async function fetchWindow(planned: Window): Promise<void> {
    const window = localWindow(planned, offset);
    const result = await fetchSeriesWindow(
      ctx.client,
      source,
      window,
      (ms) => isWanted(cursor, ms),
      (ms) => isWanted(cursor, ms) && !isQuiet(known, ms),
    );
    const notices: RowNotice[] = [];
    for (const seen of result.offsets) {
      if (offset !== undefined && seen !== offset) {
        notices.push({
          code: 'series_offset_changed',
          key: '',
          message: `${sp.endpoint.path} wrote the days of ${sp.seriesKey} with offset ${seen}, where earlier days came with ${offset} (a daylight-saving change, or the workspace's time zone changed); each day is kept under the date the platform wrote, and later requests end at its midnight in ${seen}`,
        });
      }
      offset = seen;
    }
    ctx.extraRequests(result.followUps);
    // Days left out that the known activity does not explain: details not stored, or stored before the object changed,
    // may (read once a run, and only for such an object).
    if (sp.detailsDue && result.missing.some((m) => opensHole(known, m.startMs))) {
      const read = await details.forSeries(sp, ctx.client);
      if (read) known = { ...cursor, active: read };
    }
    if (result.outside.count > 0) {
      ctx.warn({
        code: 'points_outside_window',
        stream: name,
        message: `${sp.endpoint.path} returned ${result.outside.count} point(s) outside the window asked for ${sp.seriesKey} (${window.start.toISO()} to ${window.end.toISO()}, e.g. time ${JSON.stringify(result.outside.example)}); they were ignored`,
      });
    }
    const inProgress = result.missing.filter((m) => m.startMs >= cursor.completeEndMs && !isQuiet(known, m.startMs));
    if (inProgress.length > 0) {
      ctx.warn({
        code: 'in_progress_units_absent',
        stream: name,
        message: `${name} ${sp.seriesKey}: ${inProgress.length} unit(s) between ${window.start.toISO()} and ${window.end.toISO()} were not returned even after a follow-up request; they are still in progress at --until and are asked again next run`,
      });
    }
    const rows = mergeRows([...result.points].map(([ms, value]) => instance.rows(new Date(ms), value)));
    // A source a day or two behind --until is waited for: its tail is asked again next run, not opened as holes.
    const lagFrom = laggingStart(known, result.missing);
    if (lagFrom !== undefined) {
      progress.hold(lagFrom);
      notices.push({
        code: 'source_lagging',
        key: '',
        message: `${sp.endpoint.path} has no data yet for ${sp.seriesKey} from ${new Date(lagFrom).toISOString()} on (less than ${LAG_MS / 86_400_000} days before --until): the source lags, so those units are asked again by the next runs and become holes only if still missing once more than ${LAG_MS / 86_400_000} days old`,
      });
    }
    rows.notices = [...notices, ...(rows.notices ?? [])];
    const missing = lagFrom === undefined ? result.missing : result.missing.filter((m) => m.startMs < lagFrom);
    const holes: HoleUpdate[] = holeChanges(known, new Set(result.points.keys()), missing, ctx.holeRetries).map(
      (h) => ({
        stream: name,
        seriesKey: sp.seriesKey,
        unit: instance.unit,
        unitStart: new Date(h.startMs),
        status: h.status,
        attempts: h.attempts,
        reason: h.reason,
      }),
    );
    const rowCount = countRows(rows);
    // rows_loaded counts the main table's rows (one per unit), whatever breakdowns ride along.
    progress.finish(
      window.start.toMillis(),
      rows.upserts.find((u) => u.table === sp.stream.tables[0]?.name)?.rows.length ?? 0,
    );
    const advanced = progress.advance() ?? progress.settle();
    await ctx.committer.add({
      ...noticed(name, rows),
      state:
        advanced === undefined
          ? []
          : [
              {
                stream: name,
                seriesKey: sp.seriesKey,
                unit: instance.unit,
                watermark: new Date(advanced.watermarkMs),
                rowsLoaded: advanced.rows,
                ...(advanced.lowMs === undefined ? {} : { lowWatermark: new Date(advanced.lowMs) }),
                ...(offset === undefined ? {} : { utcOffset: offset }),
              },
            ],
      holes,
    });
    if (holes.length > 0) ctx.holes(name, sp.seriesKey, holes);
    ctx.tick(name, 1, rowCount);
  }
}
