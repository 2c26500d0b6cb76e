// Sends one batch and turns every answer into row outcomes. A request refused as a whole (4xx) is not the end of its
// rows: rows the refusal names are set apart and the others resent; when it names none, the batch is halved until the
// bad rows stand alone, so good rows still go through. Every answered request is checkpointed before the next is sent.
import type { ApiClient } from '../api/api-client.js';
import { FatalApiError } from '../errors.js';
import type { PlannedRow, PushTarget, RowOutcome, TargetContext } from './push-target.js';
import { serverMessage } from './server-message.js';

/** Receives the outcomes of each answered request; the next request waits until it resolves (the checkpoint). */
export type OnAnswered = (outcomes: RowOutcome[]) => Promise<void>;

/** Statuses that refuse the credential or the route, not the rows: splitting cannot help, the push stops. */
const WHOLE_PUSH_STATUSES = new Set([401, 403, 405]);

/** Split planned rows into requests: rows of one group key together, at most `size` per request, source order kept. */
export function batchRows(
  target: PushTarget,
  ctx: TargetContext,
  rows: readonly PlannedRow[],
  size: number,
): PlannedRow[][] {
  const groups = new Map<string, PlannedRow[]>();
  for (const row of rows) {
    const key = target.groupKey(row, ctx);
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  const batches: PlannedRow[][] = [];
  const limit = Math.min(size, target.maxBatchSize);
  for (const group of groups.values()) {
    for (let start = 0; start < group.length; start += limit) batches.push(group.slice(start, start + limit));
  }
  return batches;
}

function rowsRefusable(error: unknown): error is FatalApiError {
  return (
    error instanceof FatalApiError &&
    error.status !== undefined &&
    error.status >= 400 &&
    error.status < 500 &&
    !WHOLE_PUSH_STATUSES.has(error.status)
  );
}

/**
 * Send `rows` as one request (splitting as described above). Rejects with the client's error when the push cannot go
 * on: retries exhausted (RetriableApiError), credential or route refused, or a refusal of the whole push by the target.
 */
export async function sendBatch(
  client: ApiClient,
  target: PushTarget,
  ctx: TargetContext,
  rows: readonly PlannedRow[],
  onAnswered: OnAnswered,
): Promise<void> {
  let outcomes: RowOutcome[];
  try {
    const response = await client.request<unknown>(target.call(rows, ctx));
    outcomes = target.read(response, rows);
  } catch (error) {
    if (!rowsRefusable(error)) throw error;
    const pinned = target.pin?.(error, rows) ?? new Map();
    if (pinned.size > 0) {
      await onAnswered([...pinned].map(([row, p]) => ({ row, status: p.status, error: p.error })));
      const rest = rows.filter((r) => !pinned.has(r));
      if (rest.length > 0) await sendBatch(client, target, ctx, rest, onAnswered);
      return;
    }
    // A 404 for many rows at once is a missing route or container, not bad rows: halving would only repeat it.
    if (rows.length > 1 && error.status !== 404) {
      const half = Math.ceil(rows.length / 2);
      await sendBatch(client, target, ctx, rows.slice(0, half), onAnswered);
      await sendBatch(client, target, ctx, rows.slice(half), onAnswered);
      return;
    }
    if (rows.length > 1) throw error;
    outcomes = [{ row: rows[0]!, status: 'rejected', error: `${error.status}: ${serverMessage(error)}` }];
  }
  await onAnswered(outcomes);
}
