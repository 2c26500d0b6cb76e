// The plan of one run from its RunOptions and what the warehouse holds: shared by `engage-etl run` (before fetching) and
// `engage-etl plan` (which opens the database read-only, or plans a first run when there is no database yet).
import { existsSync } from 'node:fs';
import type { RunOptions } from '../config/run-options.js';
import { openPublished } from '../load/published-snapshot.js';
import type { TableName } from '../load/table-specs.js';
import type { Warehouse } from '../load/warehouse.js';
import type { Plan } from './plan.js';
import { buildPlan } from './plan.js';

/** What the warehouse tells the planner: stored watermarks and the size of the paged snapshot tables. */
export interface StoredPlanState {
  states: Awaited<ReturnType<Warehouse['readSeriesState']>>;
  knownRows: { custom_events: number; data_integrations: number };
}

/** Nothing stored: a first run (or a full refresh, which forgets state before planning). */
export const EMPTY_PLAN_STATE: StoredPlanState = { states: [], knownRows: { custom_events: 0, data_integrations: 0 } };

/** Reads watermarks and snapshot row counts from an open warehouse. */
export async function readStoredPlanState(wh: Warehouse): Promise<StoredPlanState> {
  const count = async (table: TableName): Promise<number> => {
    const [row] = await wh.query(`SELECT count(*) AS n FROM "${table}"`);
    return Number(row?.['n'] ?? 0);
  };
  return {
    states: await wh.readSeriesState(),
    knownRows: { custom_events: await count('custom_events'), data_integrations: await count('data_integrations') },
  };
}

/** The plan of a run with these options over this stored state. */
export function planRun(opts: RunOptions, stored: StoredPlanState): Plan {
  return buildPlan({
    pipeline: opts.pipeline,
    streams: opts.streams,
    states: stored.states,
    from: opts.from ?? opts.pipeline.startDate,
    until: opts.until.toUTC(),
    knownRows: stored.knownRows,
  });
}

/**
 * The plan `engage-etl run` would follow now, without sending a request or writing anything: the database is opened
 * read-only when it exists (the published snapshot: a running export does not hold it), and a missing
 * database or --full-refresh plans from nothing.
 */
export async function planWithoutRunning(opts: RunOptions): Promise<{ plan: Plan; storedState: 'none' | 'read' | 'ignored (--full-refresh)' }> {
  if (opts.fullRefresh) return { plan: planRun(opts, EMPTY_PLAN_STATE), storedState: 'ignored (--full-refresh)' };
  if (!existsSync(opts.db)) return { plan: planRun(opts, EMPTY_PLAN_STATE), storedState: 'none' };
  const wh = await openPublished(opts.db);
  try {
    return { plan: planRun(opts, await readStoredPlanState(wh)), storedState: 'read' };
  } finally {
    await wh.close();
  }
}
