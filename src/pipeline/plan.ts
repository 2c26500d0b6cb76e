// The request plan of a run, computed before anything is fetched, from the stream registry alone: per series its cursor
// (range, open holes, the fewest windows covering them), per paged list an estimate, per id-by-id stream its ids, and the
// totals per stream and per limit pool.
import { DateTime } from 'luxon';
import type { EndpointSpec, PoolId } from '../api/endpoints.js';
import type { PipelineDefinition } from '../config/pipeline-definition.js';
import type { ActiveSpan, CursorPlan, StoredHole } from '../extract/incremental-cursor.js';
import { planCursor, seriesKey } from '../extract/incremental-cursor.js';
import type { StreamName } from '../streams/registry.js';
import { streamDeclaration } from '../streams/registry.js';
import type {
  ListingStream,
  PagedListStream,
  PerIdStream,
  Reconciliation,
  SeriesInstance,
  SeriesStream,
} from '../streams/stream-declaration.js';
import { activityTable } from '../streams/stream-declaration.js';
import type { ListedObject } from '../streams/workspace-lists.js';
import type { DiscoveredList, Discovery } from './discover.js';
import { reconciliationWindow } from './reconciliation-window.js';
import type { EffectiveLookback, LookbackEvidence } from './auto-lookback.js';
import { effectiveLookback } from './auto-lookback.js';

export interface SeriesPlan {
  stream: SeriesStream;
  /** The endpoint this series asks (the instance's, else the stream's). */
  endpoint: EndpointSpec;
  maxUnits: number;
  instance: SeriesInstance;
  seriesKey: string;
  cursor: CursorPlan;
  /** The offset its daily points were last written with (`+02:00`), when a run saw one. */
  utcOffset: string | undefined;
  /**
   * Present when the stream's activity details of this series' object are not stored at the version the list shows (or,
   * without a list, not stored at all): a window that leaves out days they would explain reads them (see
   * SeriesActivity): `listed` when discovery listed the object (its entry, stored with them, is the discovery's
   * `detailsDue`, looked up when read: the plan holds no list entry), `named` for an object named in the file.
   */
  detailsDue?: 'listed' | 'named';
}

/** A list read whole every run: its page count is only known as an estimate (unless `plan --discover` read it). */
export interface ListPlan {
  stream: PagedListStream;
  options: unknown;
  estimatedRequests: number;
}

/** Objects fetched one request per id. */
export interface PerIdPlan {
  stream: PerIdStream;
  options: unknown;
  /** The ids to fetch: listed objects unchanged since stored are left out. */
  ids: readonly string[];
  /** List entries of discovered ids, handed to each fetch. */
  listed?: ReadonlyMap<string, ListedObject>;
}

/** How plan rows name a list discovery reads: `discovery: canvases`. */
export type DiscoveryLabel = `discovery: ${string}`;

export interface StreamPlanSummary {
  stream: StreamName | DiscoveryLabel;
  series: number;
  requests: number;
  /** The fewest requests that can fetch the stream's units: what no client could go below. */
  minimum: number;
  pool: PoolId;
  /** True for paged lists (data integrations) and, for `plan` without --discover, the lists: their page count is only known once fetched. */
  estimated: boolean;
  /** Open holes the plan re-requests. */
  holes: number;
  /** Listed objects whose details are stored at the version the list shows: not re-read (what discovery saves). */
  unchanged?: number;
  /** Reconciliation requests included in `requests` (one per reconciled series). */
  reconciliations: number;
}

/** The reconciliations of one stream, run after its series are loaded. */
export interface ReconciliationPlan {
  stream: SeriesStream;
  checks: Reconciliation[];
  /** The stream's look-back in this run: its checks reconcile that many complete days (see reconciliationWindow). */
  lookbackDays: number;
}

/** The look-back a series stream re-reads in this run, and why: recorded with the run, shown by `status`. */
export interface StreamLookback extends EffectiveLookback {
  stream: StreamName;
}

export interface Plan {
  /** The workspace lists read at the start of the run (pages known for a run, estimated for `plan`). */
  discovery: DiscoveredList[];
  series: SeriesPlan[];
  reconciliations: ReconciliationPlan[];
  /** Per series stream planned, the look-back it re-reads in this run. */
  lookbacks: StreamLookback[];
  lists: ListPlan[];
  perId: PerIdPlan[];
  /** Lists stored as they are: their rows come with discovery, so they cost nothing here. */
  listings: ListingStream[];
  streams: StreamPlanSummary[];
  byPool: Partial<Record<PoolId, number>>;
  requests: number;
  minimum: number;
  /** True when some count is an estimate (a paged list whose size is unknown until fetched). */
  estimated: boolean;
}

/** A stored watermark, as the planner needs it. */
export interface PlannedState {
  stream: string;
  seriesKey: string;
  watermark: Date;
  /** Start of the first unit loaded; null or absent for a series loaded from the start_date (see CursorInput). */
  lowWatermark?: Date | null;
  /**
   * The --until of the run that moved the watermark last, when known. Days that were already older than the look-back
   * then are final: a backfill that stopped far behind --until resumes at its watermark, re-fetching nothing before it.
   */
  fetchedUntil?: Date;
  /** The offset the daily points were last written with. @default none */
  utcOffset?: string | null;
}

/** A stored hole of one series. */
export interface PlannedHole extends StoredHole {
  stream: string;
  seriesKey: string;
}

export interface PlanInput {
  pipeline: PipelineDefinition;
  streams: readonly StreamName[];
  /** Stored watermarks; empty for a first (or full-refresh) run. */
  states: readonly PlannedState[];
  /** Stored holes (open and confirmed absent). @default [] */
  holes?: readonly PlannedHole[];
  /** First day for series without state. */
  from: DateTime;
  until: DateTime;
  /** Rows stored in each paged list's main table, by stream, to estimate its page count. @default {} */
  knownRows?: Partial<Record<StreamName, number>>;
  /** Pages of paged lists already read (`plan --discover`), by stream: counted exactly instead of estimated. @default {} */
  pagesRead?: Partial<Record<StreamName, number>>;
  /** What discovery found (its `pipeline` must be the one planned); absent when no option says `all`. */
  discovery?: Discovery;
  /** When each object behind a series was active, by activity table and id (see activityKey). @default none known */
  activity?: ReadonlyMap<string, ActiveSpan>;
  /** The objects with a details row stored, by activityKey. @default none */
  detailsStored?: ReadonlySet<string>;
  /** Per stream, the restatements seen and its last probe: what an `auto` look-back is set from. @default none seen */
  lookbackEvidence?: ReadonlyMap<string, Omit<LookbackEvidence, 'stored'>>;
}

/** The key of an object's activity span in PlanInput.activity. */
export function activityKey(table: string, id: string): string {
  return `${table}\u0000${id}`;
}

const sep = '\u0000';

const DAY_MS = 86_400_000;

/**
 * The look-back of one series: the days before its watermark that were inside the look-back when they were fetched
 * (all of them for a nightly run, whose watermark is --until's day; none for a backfill a time budget stopped far
 * behind --until: those days were already final).
 */
function lookbackOf(lookbackDays: number, state: PlannedState | undefined): number {
  if (state?.fetchedUntil === undefined) return lookbackDays;
  const behind = Math.floor((state.fetchedUntil.getTime() - state.watermark.getTime()) / DAY_MS);
  return Math.min(lookbackDays, Math.max(0, lookbackDays - behind));
}

/**
 * Whether a series' object has details to read if its windows leave days out: listed, when its stored details are not
 * at the listed version; named in the file (no list read for it), when none are stored.
 */
function dueDetails(
  stream: StreamName,
  objectId: string,
  detailsKey: string,
  input: PlanInput,
): SeriesPlan['detailsDue'] {
  const due = input.discovery?.detailsDue.get(stream);
  if (due) return due.has(objectId) ? 'listed' : undefined;
  return input.detailsStored?.has(detailsKey) ? undefined : 'named';
}

export function buildPlan(input: PlanInput): Plan {
  const states = new Map(input.states.map((s) => [`${s.stream}${sep}${s.seriesKey}`, s]));
  const holes = new Map<string, StoredHole[]>();
  for (const h of input.holes ?? []) {
    const key = `${h.stream}${sep}${h.seriesKey}`;
    holes.set(key, [...(holes.get(key) ?? []), { startMs: h.startMs, attempts: h.attempts, status: h.status }]);
  }
  const plan: Plan = {
    discovery: input.discovery?.lists ?? [],
    series: [],
    reconciliations: [],
    lookbacks: [],
    lists: [],
    perId: [],
    listings: [],
    streams: [],
    byPool: {},
    requests: 0,
    minimum: 0,
    estimated: false,
  };
  const add = (summary: StreamPlanSummary) => {
    plan.streams.push(summary);
    plan.byPool[summary.pool] = (plan.byPool[summary.pool] ?? 0) + summary.requests;
    plan.requests += summary.requests;
    plan.minimum += summary.minimum;
    plan.estimated ||= summary.estimated;
  };
  // A list's pages are the fewest requests that read it: the minimum is the count itself.
  for (const l of plan.discovery) {
    add({
      stream: `discovery: ${l.listing}`,
      series: l.objects,
      requests: l.pages,
      minimum: l.pages,
      pool: l.endpoint.pool,
      estimated: l.estimated,
      holes: 0,
      reconciliations: 0,
    });
  }

  for (const name of input.streams) {
    const options = input.pipeline.streams[name] as unknown;
    if (options === undefined) continue;
    const stream = streamDeclaration(name);
    const summary: StreamPlanSummary = {
      stream: name,
      series: 0,
      requests: 0,
      minimum: 0,
      pool: stream.endpoint.pool,
      estimated: false,
      holes: 0,
      reconciliations: 0,
    };
    switch (stream.kind) {
      case 'series': {
        const setting = input.pipeline.streamLookbacks[name] ?? input.pipeline.lookback;
        const hasState = input.states.some((s) => s.stream === name);
        const lookback = effectiveLookback(
          name,
          setting,
          { byAge: [], ...input.lookbackEvidence?.get(name), stored: hasState },
          input.until.toJSDate(),
        );
        plan.lookbacks.push({ stream: name, ...lookback });
        for (const instance of stream.series(options)) {
          const key = seriesKey(instance.unit, instance.dims);
          const state = states.get(`${name}${sep}${key}`);
          const stored = state?.watermark;
          const low = state?.lowWatermark ?? undefined;
          const seriesHoles = holes.get(`${name}${sep}${key}`) ?? [];
          const maxUnits = instance.maxUnits ?? stream.maxUnits;
          const objectId = stream.activity ? instance.dims[stream.activity.dim] : undefined;
          const detailsKey =
            stream.activity && objectId !== undefined
              ? activityKey(activityTable(stream.activity), objectId)
              : undefined;
          const active = detailsKey === undefined ? undefined : input.activity?.get(detailsKey);
          const detailsDue = detailsKey === undefined ? undefined : dueDetails(name, objectId!, detailsKey, input);
          const cursor = planCursor({
            ...(active ? { active } : {}),
            unit: instance.unit,
            maxUnits,
            from: input.from,
            until: input.until,
            lookbackDays: lookbackOf(lookback.days, state),
            order: input.pipeline.backfillOrder,
            ...(stored ? { watermark: DateTime.fromJSDate(stored, { zone: 'utc' }) } : {}),
            ...(stored && low ? { lowWatermark: DateTime.fromJSDate(low, { zone: 'utc' }) } : {}),
            holes: seriesHoles,
          });
          plan.series.push({
            stream,
            endpoint: instance.endpoint ?? stream.endpoint,
            maxUnits,
            instance,
            seriesKey: key,
            cursor,
            utcOffset: state?.utcOffset ?? undefined,
            ...(detailsDue ? { detailsDue } : {}),
          });
          summary.series++;
          // The cover of range ∪ open holes is the minimum for this series: the plan sends exactly that.
          summary.requests += cursor.windowCount;
          summary.minimum += cursor.windowCount;
          summary.holes += seriesHoles.filter((h) => h.status === 'open').length;
        }
        // A window without a complete day (a run inside the pipeline's first day) has nothing to reconcile.
        const checks = (stream.reconcile?.(options) ?? []).filter((c) =>
          reconciliationWindow(input.until, input.from, lookback.days, c.maxDays),
        );
        if (checks.length > 0) plan.reconciliations.push({ stream, checks, lookbackDays: lookback.days });
        summary.reconciliations = checks.length;
        summary.requests += checks.length;
        summary.minimum += checks.length;
        break;
      }
      case 'paged_list': {
        const read = input.pagesRead?.[name];
        const estimatedRequests = read ?? stream.estimatePages(input.knownRows?.[name] ?? 0);
        plan.lists.push({ stream, options, estimatedRequests });
        Object.assign(summary, {
          series: 1,
          requests: estimatedRequests,
          minimum: estimatedRequests,
          estimated: read === undefined,
        });
        break;
      }
      case 'per_id': {
        const discovered = input.discovery?.perId.get(name);
        const all = stream.ids(options);
        const ids = discovered ? all.filter((id) => !discovered.unchanged.has(id)) : all;
        plan.perId.push({ stream, options, ids, ...(discovered ? { listed: discovered.listed } : {}) });
        Object.assign(summary, {
          series: all.length,
          requests: ids.length,
          minimum: ids.length,
          ...(discovered ? { unchanged: all.length - ids.length } : {}),
        });
        break;
      }
      case 'listing':
        // Its rows come with discovery's pages, counted there.
        plan.listings.push(stream);
        break;
    }
    add(summary);
  }
  return plan;
}
