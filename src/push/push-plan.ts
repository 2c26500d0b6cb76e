// Deciding what a push sends: every source row is read and validated by its target, then compared with the ledger —
// unchanged rows and rejected rows whose data did not change are left out; --mirror adds the pairs that left the source.
import type { LedgerEntry } from './push-ledger.js';
import { ledgerKey } from './push-ledger.js';
import type { PlannedRow, PushTarget, SourceRow, TargetContext } from './push-target.js';
import { hashValues } from './row-values.js';
import type { SourceRows } from './row-source.js';

export interface InvalidRow {
  index: number;
  /** Known when the row was readable enough to name its destination and key. */
  destination?: string;
  key?: string;
  hash?: string;
  error: string;
}

/** A row left out because the platform refused these very values before (or they were invalid) and they did not change. */
export interface StillRefusedRow {
  index: number;
  destination: string;
  key: string;
  status: 'rejected' | 'invalid';
  error: string;
  /** The push that recorded the refusal. */
  runId: string;
}

export interface PushPlan {
  rowsRead: number;
  planned: PlannedRow[];
  invalid: InvalidRow[];
  stillRefused: StillRefusedRow[];
  unchanged: number;
}

export interface PlanOptions {
  mappingHash: string;
  /** Rows the ledger holds (accepted, same mapping) that left the source are sent as `leftSource` says. @default false */
  mirror: boolean;
}

export function planPush(
  target: PushTarget,
  source: SourceRows,
  ledger: ReadonlyMap<string, LedgerEntry>,
  ctx: TargetContext,
  opts: PlanOptions,
): PushPlan {
  const invalid: InvalidRow[] = [];
  const readable: SourceRow[] = [];
  const firstAt = new Map<string, number>();
  source.rows.forEach((raw, index) => {
    const row = target.readRow(raw, index, ctx);
    if (typeof row === 'string') {
      invalid.push({ index, error: row });
      return;
    }
    const id = ledgerKey(row.destination, row.key);
    const first = firstAt.get(id);
    if (first !== undefined) {
      invalid.push({
        index,
        error: `duplicate of source row ${first} (same ${row.destination} / ${row.key}); keep one row per key, e.g. with QUALIFY row_number() OVER (PARTITION BY …) = 1`,
      });
      return;
    }
    firstAt.set(id, index);
    readable.push(row);
  });
  const crossRow = target.checkRows?.(readable) ?? new Map<number, string>();

  const planned: PlannedRow[] = [];
  const stillRefused: StillRefusedRow[] = [];
  let unchanged = 0;
  for (const row of readable) {
    const hash = hashValues(row.values);
    const problem = crossRow.get(row.index);
    if (problem !== undefined) {
      invalid.push({ index: row.index, destination: row.destination, key: row.key, hash, error: problem });
      continue;
    }
    const stored = ledger.get(ledgerKey(row.destination, row.key));
    // A change of mapping makes the ledger's entry meaningless: the row counts as never pushed.
    const entry = stored && stored.mappingHash === opts.mappingHash ? stored : undefined;
    if (entry && (entry.status === 'rejected' || entry.status === 'invalid') && entry.attemptedHash === hash) {
      stillRefused.push({
        index: row.index,
        destination: row.destination,
        key: row.key,
        status: entry.status,
        error: entry.error ?? 'refused',
        runId: entry.runId,
      });
      continue;
    }
    if (entry && entry.ackedHash === hash) {
      unchanged++;
      continue;
    }
    const change = target.plan(row, entry?.ackedValues, ctx);
    if (!change) {
      unchanged++;
      continue;
    }
    planned.push({ index: row.index, destination: row.destination, key: row.key, values: row.values, hash, ...change });
  }

  if (opts.mirror && target.leftSource) {
    for (const [id, entry] of ledger) {
      if (firstAt.has(id) || entry.mappingHash !== opts.mappingHash || entry.ackedValues === undefined) continue;
      const left = target.leftSource(entry.destination, entry.key, entry.ackedValues);
      if (!left) continue;
      planned.push({
        index: null,
        destination: entry.destination,
        key: entry.key,
        hash: hashValues(left.values),
        ...left,
      });
    }
  }
  return { rowsRead: source.rows.length, planned, invalid, stillRefused, unchanged };
}
