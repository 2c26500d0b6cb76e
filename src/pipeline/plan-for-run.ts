// The plan of one run from its RunOptions and what the warehouse holds: shared by `engage-etl run` (before fetching) and
// `engage-etl plan` (which opens the database read-only, or plans a first run when there is no database yet).
import type { ApiClient } from '../api/api-client.js';
import type { PipelineDefinition } from '../config/pipeline-definition.js';
import type { RunOptions } from '../config/run-options.js';
import { NoSnapshotError } from '../errors.js';
import { withResumePoint } from '../store/open-snapshot-store.js';
import { SeriesStateStore } from '../load/series-state-store.js';
import { datesById, rowCount } from '../load/stored-tables.js';
import type { Warehouse } from '../load/warehouse.js';
import { STREAMS, streamDeclaration } from '../streams/registry.js';
import type { StreamName } from '../streams/registry.js';
import type { Discovery } from './discover.js';
import { discover } from './discover.js';
import type { Plan, PlanInput, PlannedHole, PlannedState } from './plan.js';
import { activityKey, buildPlan } from './plan.js';
import type { ActiveSpan } from '../extract/incremental-cursor.js';
import { activeSpan } from '../extract/incremental-cursor.js';
import { activityTable } from '../streams/stream-declaration.js';
import { lookbackEvidence } from '../load/audit-store.js';
import { AUTO_LOOKBACK_EVIDENCE_DAYS } from './auto-lookback.js';

/** What the warehouse tells the planner: stored watermarks, holes, and the size of the paged lists' tables. */
export interface StoredPlanState {
  states: readonly PlannedState[];
  holes: readonly PlannedHole[];
  knownRows: Partial<Record<StreamName, number>>;
  /** When each object behind a series was active, from the details stored (see activityKey). @default none */
  activity?: ReadonlyMap<string, ActiveSpan>;
  /** The objects with a details row stored, by activityKey. @default none */
  detailsStored?: ReadonlySet<string>;
  /** Per stream, the restatements seen and its last probe (see PlanInput.lookbackEvidence). @default none */
  lookbackEvidence?: PlanInput['lookbackEvidence'];
}

/** Nothing stored: a first run (or a full refresh, which forgets state before planning). */
const EMPTY_PLAN_STATE: StoredPlanState = { states: [], holes: [], knownRows: {} };

/**
 * Reads watermarks, holes, the paged lists' row counts and the look-back evidence (restatements seen by runs up to
 * AUTO_LOOKBACK_EVIDENCE_DAYS before `until`) from an open warehouse.
 */
export async function readStoredPlanState(wh: Warehouse, until: Date): Promise<StoredPlanState> {
  const knownRows: Partial<Record<StreamName, number>> = {};
  for (const stream of STREAMS) {
    if (stream.kind !== 'paged_list') continue;
    knownRows[stream.name] = await rowCount(wh, stream.tables[0].name);
  }
  const seriesState = new SeriesStateStore(wh);
  const holes = (await seriesState.holes()).map((h) => ({
    stream: h.stream,
    seriesKey: h.seriesKey,
    startMs: h.unitStart.getTime(),
    attempts: h.attempts,
    status: h.status,
  }));
  const states = await seriesState.statesWithFetchedUntil();
  const evidence = await lookbackEvidence(wh, new Date(until.getTime() - AUTO_LOOKBACK_EVIDENCE_DAYS * 86_400_000));
  return { states, holes, knownRows, lookbackEvidence: evidence, ...(await readActivity(wh)) };
}

/**
 * The days each object behind a series was active, from the details tables the series declare (see activeSpan), and
 * which objects have a details row at all (with or without a span).
 */
async function readActivity(wh: Warehouse): Promise<{ activity: Map<string, ActiveSpan>; detailsStored: Set<string> }> {
  const activity = new Map<string, ActiveSpan>();
  const detailsStored = new Set<string>();
  const read = new Set<string>();
  for (const stream of STREAMS) {
    if (stream.kind !== 'series' || !stream.activity) continue;
    const a = stream.activity;
    const table = activityTable(a);
    if (read.has(table)) continue;
    read.add(table);
    for (const row of await datesById(wh, table, a.idColumn, a.first, a.last)) {
      const key = activityKey(table, row.id);
      detailsStored.add(key);
      const span = activeSpan(row.first, row.last);
      if (span) activity.set(key, span);
    }
  }
  return { activity, detailsStored };
}

/**
 * The plan of a run with these options over this stored state, and what discovery resolved `all` into; `pagesRead` are
 * the paged lists' page counts when they were read (`plan --discover`).
 */
export function planRun(
  opts: RunOptions,
  stored: StoredPlanState,
  discovery?: Discovery,
  pagesRead: Partial<Record<StreamName, number>> = {},
): Plan {
  return buildPlan({
    pagesRead,
    pipeline: discovery?.pipeline ?? opts.pipeline,
    ...(discovery ? { discovery } : {}),
    streams: opts.streams,
    states: stored.states,
    holes: stored.holes,
    from: opts.from ?? opts.pipeline.startDate,
    until: opts.until.toUTC(),
    knownRows: stored.knownRows,
    ...(stored.activity ? { activity: stored.activity } : {}),
    ...(stored.detailsStored ? { detailsStored: stored.detailsStored } : {}),
    ...(stored.lookbackEvidence ? { lookbackEvidence: stored.lookbackEvidence } : {}),
  });
}

/**
 * The plan `engage-etl run` would follow now, without writing anything: the database is opened read-only when it exists
 * (the published snapshot: a running export does not hold it; with an s3:// --db a newer checkpoint of a run that did not
 * publish, which the run would resume from), and a missing database or --full-refresh plans from
 * nothing. Without `client` no request is sent: `all` is what the last run's lists held (a first run's lists are
 * unknown: one page each expected) and paged lists are estimated from the rows stored. With it (`plan --discover`) every
 * list whose size the plan would otherwise guess is read as the run reads it — the lists `all` needs and the paged lists
 * (data integrations) — and nothing else is sent, so the plan is exact.
 */
export async function planWithoutRunning(
  opts: RunOptions,
  client?: ApiClient,
): Promise<{
  plan: Plan;
  storedState: 'none' | 'read' | 'read (checkpoint of a run that did not publish)' | 'ignored (--full-refresh)';
}> {
  const until = opts.until.toUTC().toJSDate();
  const input = { pipeline: opts.pipeline, streams: opts.streams, until, ...(client ? { client } : {}) };
  const pagesRead = client ? await readPagedLists(client, opts.pipeline, opts.streams, until) : {};
  if (opts.fullRefresh)
    return {
      plan: planRun(opts, EMPTY_PLAN_STATE, throwFailedList(await discover(input)), pagesRead),
      storedState: 'ignored (--full-refresh)',
    };
  try {
    // The run resumes from an object's newer checkpoint: so does its plan.
    return await withResumePoint(opts.db, async (wh, from) => {
      const discovery = throwFailedList(await discover({ ...input, wh }));
      const storedState =
        from === 'checkpoint' ? ('read (checkpoint of a run that did not publish)' as const) : ('read' as const);
      return { plan: planRun(opts, await readStoredPlanState(wh, until), discovery, pagesRead), storedState };
    });
  } catch (err) {
    if (!(err instanceof NoSnapshotError)) throw err;
    return {
      plan: planRun(opts, EMPTY_PLAN_STATE, throwFailedList(await discover(input)), pagesRead),
      storedState: 'none',
    };
  }
}

/** The pages of each paged list of `streams`, read through `client` (their rows are dropped: `plan` and `init` write nothing). */
export async function readPagedLists(
  client: ApiClient,
  pipeline: PipelineDefinition,
  streams: readonly StreamName[],
  until: Date,
): Promise<Partial<Record<StreamName, number>>> {
  const pages: Partial<Record<StreamName, number>> = {};
  for (const name of streams) {
    const stream = streamDeclaration(name);
    if (stream.kind === 'paged_list') pages[name] = (await stream.fetch(client, pipeline.streams[name], until)).pages;
  }
  return pages;
}

/** `plan --discover` cannot plan a stream whose list it could not read: it says why, as the run would. */
function throwFailedList(discovery: Discovery): Discovery {
  const [first] = discovery.failed.values();
  if (discovery.failed.size > 0) throw first;
  return discovery;
}
