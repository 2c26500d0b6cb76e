// What `--dry-run` shows: per endpoint the rows by operation and the requests they need, sample request bodies, and the
// time the limit pools of spec section 8 impose. Built from the plan and the batches; nothing is sent.
import { fillPath } from '../api/endpoint-path.js';
import type { PoolId } from '../api/endpoints.js';
import { estimateDuration } from '../pipeline/plan-estimate.js';
import type { PushPlan } from './push-plan.js';
import type { Operation, PlannedRow, PushTarget, TargetContext } from './push-target.js';

/** Time assumed per request on top of the pools' waits (requests go one after the other). */
export const ASSUMED_SECONDS_PER_REQUEST = 0.1;
/** Elements of a list shown in a sample body; the rest is summarized. */
const SAMPLE_LIST_LENGTH = 3;

export interface EndpointPlan {
  /** e.g. `POST /users/track`. */
  endpoint: string;
  pool: PoolId;
  rows: number;
  requests: number;
  operations: Partial<Record<Operation, number>>;
  /** The first request's body (lists cut to 3 elements), with its path. */
  sample: { method: string; path: string; body: unknown };
}

export interface DryRunReport {
  target: string;
  source: string;
  rowsRead: number;
  rowsUnchanged: number;
  rowsToSend: number;
  rowsInvalid: number;
  /** Rows refused before whose values did not change: not sent again. */
  rowsStillRefused: number;
  endpoints: EndpointPlan[];
  requests: number;
  /** The push's duration under the limit pools, estimated as `plan` does (ASSUMED_SECONDS_PER_REQUEST per request, one at a time). */
  etaSeconds: number;
  /** First invalid rows with their reasons (at most 10). */
  invalidSamples: { index: number; error: string }[];
  /** Why the real push would be refused (--confirm, --max-rows), when it would. */
  refusal?: string;
}

function cutLists(value: unknown): unknown {
  if (Array.isArray(value)) {
    const head = value.slice(0, SAMPLE_LIST_LENGTH).map(cutLists);
    return value.length > SAMPLE_LIST_LENGTH ? [...head, `… ${value.length - SAMPLE_LIST_LENGTH} more`] : head;
  }
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cutLists(v)]));
  return value;
}

export function buildDryRunReport(args: {
  target: PushTarget;
  ctx: TargetContext;
  source: string;
  plan: PushPlan;
  batches: readonly (readonly PlannedRow[])[];
  refusal?: string;
}): DryRunReport {
  const { target, ctx, plan, batches } = args;
  const byEndpoint = new Map<string, EndpointPlan>();
  const perPool = new Map<PoolId, number>();
  for (const batch of batches) {
    const call = target.call(batch, ctx);
    const name = `${call.endpoint.method} ${call.endpoint.path}`;
    let entry = byEndpoint.get(name);
    if (!entry) {
      entry = {
        endpoint: name,
        pool: call.endpoint.pool,
        rows: 0,
        requests: 0,
        operations: {},
        sample: {
          method: call.endpoint.method,
          path: fillPath(call.endpoint, call.pathParams, 'show'),
          body: cutLists(call.body),
        },
      };
      byEndpoint.set(name, entry);
    }
    entry.requests++;
    entry.rows += batch.length;
    for (const row of batch) entry.operations[row.operation] = (entry.operations[row.operation] ?? 0) + 1;
    perPool.set(call.endpoint.pool, (perPool.get(call.endpoint.pool) ?? 0) + 1);
  }
  // The estimate `engage-etl plan` makes, for requests sent one at a time (push sends them in order).
  const eta = estimateDuration(Object.fromEntries(perPool), {
    latencyMs: ASSUMED_SECONDS_PER_REQUEST * 1000,
    maxInFlight: 1,
  });
  return {
    target: target.name,
    source: args.source,
    rowsRead: plan.rowsRead,
    rowsUnchanged: plan.unchanged,
    rowsToSend: plan.planned.length,
    rowsInvalid: plan.invalid.length,
    rowsStillRefused: plan.stillRefused.length,
    endpoints: [...byEndpoint.values()],
    requests: batches.length,
    etaSeconds: Math.round(eta.ms / 100) / 10,
    invalidSamples: plan.invalid.slice(0, 10).map((r) => ({ index: r.index, error: r.error })),
    ...(args.refusal ? { refusal: args.refusal } : {}),
  };
}
