// What a push target is: how one source row becomes part of a request to one write endpoint, and how the answer maps
// back to per-row outcomes. The runner (run-push.ts) owns the ledger, batching, splitting and checkpoints.
import type { ApiCall, ApiResponse } from '../api/api-call.js';
import type { EndpointSpec } from '../api/endpoints.js';
import type { FatalApiError } from '../errors.js';
import type { Json, RowValues } from './row-values.js';

export const TARGET_NAMES = [
  'subscriptions',
  'user-attributes',
  'external-id-renames',
  'external-id-removals',
  'catalog-items',
  'preference-center',
  'schedule-cancellations',
  'email-suppressions',
  'dashboard-user-deletions',
] as const;

export type TargetName = (typeof TARGET_NAMES)[number];

/** What a row asks of the platform; counted per endpoint by --dry-run. */
export type Operation = 'create' | 'update' | 'unsubscribe' | 'delete' | 'set';

/** Status of a row after a push. `unchanged` rows are not sent and not logged. */
export type RowStatus = 'accepted' | 'rejected' | 'invalid' | 'transient';

/** Mapping options of a push (every one of them feeds the mapping hash, so changing one resets the ledger). */
export interface MappingOptions {
  /** user-attributes: integer columns pushed as `{"inc": delta}`. @default [] */
  incColumns: readonly string[];
  /** catalog-items: edit items one by one (PATCH) instead of creating them in bulk (POST). @default false */
  update: boolean;
  /** catalog-items: the catalog's name. */
  catalog: string | undefined;
}

/** Facts about the whole push a target may need while building requests. */
export interface TargetContext {
  mapping: MappingOptions;
  /** user-attributes: the push sends more objects than one request holds, so requests carry `X-Braze-Bulk: true`. */
  bulk: boolean;
}

/** A source row after the target read it: where it goes, its identity, and the values the ledger keeps once accepted. */
export interface SourceRow {
  /** Position of the row in the source, from 0. */
  index: number;
  /** e.g. the subscription group id, the catalog name, or a fixed name such as `users`. */
  destination: string;
  /** Identity of the row within its destination, e.g. `external_id:user_1`. */
  key: string;
  values: RowValues;
}

/** A row that will be sent. */
export interface PlannedRow {
  /** Position in the source; null for rows that left the source (--mirror unsubscribes). */
  index: number | null;
  destination: string;
  key: string;
  /** Values the ledger records once the platform accepts the row. */
  values: RowValues;
  hash: string;
  operation: Operation;
  /** The part of a request this row contributes: an attributes object, an email, an item. */
  payload: Json;
}

/** What the platform said about one sent row (`invalid` never comes from the platform). */
export interface RowOutcome {
  row: PlannedRow;
  status: Exclude<RowStatus, 'invalid'>;
  error?: string;
}

/** What the platform said about single rows of a whole-request refusal. */
export type PinnedRows = Map<PlannedRow, { status: 'rejected' | 'transient'; error: string }>;

export interface PushTarget {
  readonly name: TargetName;
  /** One line for `--help` and docs. */
  readonly summary: string;
  /** Cannot be undone: needs --confirm (SCIM deletions, external-ID removals, suppressions, schedule cancellations). */
  readonly irreversible: boolean;
  /** Rows per request: the spec's maximum, which is also the default. */
  readonly maxBatchSize: number;
  /** Smallest --batch-size accepted. */
  readonly minBatchSize: number;
  /** The endpoint a row of this operation goes to. */
  endpointFor(operation: Operation, ctx: TargetContext): EndpointSpec;
  /** Why the source's columns cannot feed this target (missing or unknown column), or undefined. Checked before any row. */
  columnsProblem(columns: readonly string[], ctx: TargetContext): string | undefined;
  /** Validate one source row; a string is the reason it is invalid (names column, value and fix). */
  readRow(row: Record<string, unknown>, index: number, ctx: TargetContext): SourceRow | string;
  /** Problems that only show across rows, by row index. */
  checkRows?(rows: readonly SourceRow[]): Map<number, string>;
  /**
   * What to send for a row given the values the platform last accepted (undefined: never accepted), or undefined when
   * nothing needs sending.
   */
  plan(
    row: SourceRow,
    acked: RowValues | undefined,
    ctx: TargetContext,
  ): { operation: Operation; payload: Json } | undefined;
  /** The rows a ledger entry that left the source turns into (--mirror), or undefined. */
  leftSource?(
    destination: string,
    key: string,
    acked: RowValues,
  ): { values: RowValues; operation: Operation; payload: Json } | undefined;
  /** Rows that may share one request (same endpoint and path; same body-level fields). */
  groupKey(row: PlannedRow, ctx: TargetContext): string;
  call(rows: readonly PlannedRow[], ctx: TargetContext): ApiCall;
  /** Per-row outcomes of a 2xx answer. */
  read(response: ApiResponse<unknown>, rows: readonly PlannedRow[]): RowOutcome[];
  /**
   * Rows a refused request (4xx) names, so the others can be resent without them; the runner halves the batch when
   * nothing is pinned. May throw a FatalError when the refusal concerns the whole push (unknown catalog).
   */
  pin?(error: FatalApiError, rows: readonly PlannedRow[]): PinnedRows;
}
