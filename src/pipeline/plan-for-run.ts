// The plan of one run from its RunOptions and what the warehouse holds: shared by `engage-etl run` (before fetching) and
// `engage-etl plan` (which opens the database read-only, or plans a first run when there is no database yet).
import type { RunOptions } from '../config/run-options.js';
import { NoSnapshotError } from '../errors.js';
import { withPublishedDatabase } from '../load/snapshot-store.js';
import { ident } from '../load/table-definition.js';
import { tableSpec } from '../load/table-specs.js';
import type { Warehouse } from '../load/warehouse.js';
import { STREAMS, streamDeclaration } from '../streams/registry.js';
import type { StreamName } from '../streams/registry.js';
import type { Discovery } from './discover.js';
import { discover } from './discover.js';
import type { Plan, PlannedHole, PlannedState } from './plan.js';
import { buildPlan } from './plan.js';

/** What the warehouse tells the planner: stored watermarks, holes, and the size of the paged lists' tables. */
export interface StoredPlanState {
  states: readonly PlannedState[];
  holes: readonly PlannedHole[];
  knownRows: Partial<Record<StreamName, number>>;
  /** The stored values each stream of the run `reads` (event names for `events: all`). */
  storedValues: Partial<Record<StreamName, readonly string[]>>;
}

/** Nothing stored: a first run (or a full refresh, which forgets state before planning). */
const EMPTY_PLAN_STATE: StoredPlanState = { states: [], holes: [], knownRows: {}, storedValues: {} };

/** Reads watermarks, holes, the paged lists' row counts and the values the run's streams read from an open warehouse. */
export async function readStoredPlanState(wh: Warehouse, opts: RunOptions): Promise<StoredPlanState> {
  const storedValues: Partial<Record<StreamName, readonly string[]>> = {};
  for (const name of opts.streams) {
    const stream = streamDeclaration(name);
    const reads = stream.kind === 'series' ? stream.reads?.(opts.pipeline.streams[name] as never) : undefined;
    if (!reads) continue;
    const table = ident(tableSpec(reads.table).name);
    const latest = reads.latest ? ` WHERE ${ident(reads.latest)} = (SELECT max(${ident(reads.latest)}) FROM ${table})` : '';
    const rows = await wh.query(`SELECT DISTINCT ${ident(reads.column)} AS v FROM ${table}${latest} ORDER BY 1`);
    storedValues[name] = rows.map((r) => String(r['v']));
  }
  const knownRows: Partial<Record<StreamName, number>> = {};
  for (const stream of STREAMS) {
    if (stream.kind !== 'paged_list') continue;
    const [row] = await wh.query(`SELECT count(*) AS n FROM ${ident(stream.tables[0].name)}`);
    knownRows[stream.name] = Number(row?.['n'] ?? 0);
  }
  const holes = (await wh.readHoles()).map((h) => ({ stream: h.stream, seriesKey: h.seriesKey, startMs: h.unitStart.getTime(), attempts: h.attempts, status: h.status }));
  return { states: await wh.readSeriesState(), holes, knownRows, storedValues };
}

/** The plan of a run with these options over this stored state, and what discovery resolved `all` into. */
export function planRun(opts: RunOptions, stored: StoredPlanState, discovery?: Discovery): Plan {
  return buildPlan({
    pipeline: discovery?.pipeline ?? opts.pipeline,
    ...(discovery ? { discovery } : {}),
    streams: opts.streams,
    states: stored.states,
    holes: stored.holes,
    from: opts.from ?? opts.pipeline.startDate,
    until: opts.until.toUTC(),
    knownRows: stored.knownRows,
    storedValues: stored.storedValues,
  });
}

/**
 * The plan `engage-etl run` would follow now, without sending a request or writing anything: the database is opened
 * read-only when it exists (the published snapshot: a running export does not hold it), and a missing
 * database or --full-refresh plans from nothing.
 */
export async function planWithoutRunning(opts: RunOptions): Promise<{ plan: Plan; storedState: 'none' | 'read' | 'ignored (--full-refresh)' }> {
  // Without a request, `all` is what the last run's lists held; a first run's lists are unknown (one page each expected).
  const until = opts.until.toUTC().toJSDate();
  if (opts.fullRefresh) return { plan: planRun(opts, EMPTY_PLAN_STATE, await discover({ pipeline: opts.pipeline, streams: opts.streams, until })), storedState: 'ignored (--full-refresh)' };
  try {
    return await withPublishedDatabase(opts.db, async (wh) => {
      const discovery = await discover({ pipeline: opts.pipeline, streams: opts.streams, wh, until });
      return { plan: planRun(opts, await readStoredPlanState(wh, opts), discovery), storedState: 'read' as const };
    });
  } catch (err) {
    if (!(err instanceof NoSnapshotError)) throw err;
    return { plan: planRun(opts, EMPTY_PLAN_STATE, await discover({ pipeline: opts.pipeline, streams: opts.streams, until })), storedState: 'none' };
  }
}

/**
 * The streams of a run in the order they must be planned: streams whose tables another stream of the run `reads`
 * (custom_events for `events: all`) form a first phase, fetched and committed before the rest is planned from what they
 * stored. Without such a dependency there is one phase.
 */
export function runPhases(opts: RunOptions): StreamName[][] {
  const readTables = new Set<string>();
  for (const name of opts.streams) {
    const stream = streamDeclaration(name);
    const reads = stream.kind === 'series' ? stream.reads?.(opts.pipeline.streams[name] as never) : undefined;
    if (reads) readTables.add(reads.table);
  }
  const first = opts.streams.filter((name) => streamDeclaration(name).tables.some((t) => readTables.has(t.name)));
  if (first.length === 0) return [[...opts.streams]];
  return [first, opts.streams.filter((name) => !first.includes(name))];
}

/** The plans of a run's phases as one: what the run planned in all. */
export function combinePlans(plans: readonly Plan[]): Plan {
  const out: Plan = { discovery: [], series: [], lists: [], perId: [], listings: [], streams: [], reconciliations: [], byPool: {}, requests: 0, minimum: 0, estimated: false };
  for (const p of plans) {
    out.discovery.push(...p.discovery);
    out.listings.push(...p.listings);
    out.series.push(...p.series);
    out.lists.push(...p.lists);
    out.perId.push(...p.perId);
    out.streams.push(...p.streams);
    out.reconciliations.push(...p.reconciliations);
    for (const [pool, n] of Object.entries(p.byPool) as [keyof Plan['byPool'], number][]) out.byPool[pool] = (out.byPool[pool] ?? 0) + n;
    out.requests += p.requests;
    out.minimum += p.minimum;
    out.estimated ||= p.estimated;
  }
  return out;
}
