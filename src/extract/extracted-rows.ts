// What an extractor hands to the loader: rows to upsert per table, and the scopes those rows replace. Table names are
// plain strings here (the loader checks them against the registry), so extract does not depend on load.
import { parseUtcMs } from '../time/utc-time.js';

export interface ExtractedRows {
  upserts: { table: string; rows: Record<string, unknown>[] }[];
  /** Stored rows in these scopes that the upserts do not carry are deleted (a step removed from a Canvas, say). */
  replaces: { table: string; columns: string[]; values: unknown[][] }[];
  /** What the run should be told about these rows; the fetch machinery warns once per run, stream, code and key. @default none */
  notices?: RowNotice[];
}

/**
 * Something the rows of a stream kept without understanding it (a field this version does not know): warned once per
 * run, whatever the number of rows or days that carry it.
 */
export interface RowNotice {
  /** Stable, for machines: the warning's `code`. */
  code: string;
  /** What makes two notices the same (`ios_push.new_metric`); the message may vary with the first row seen. */
  key: string;
  message: string;
}

/** An ISO 8601 timestamp from a metadata body as a UTC Date; absent or unparsable → null (the column is nullable). */
export function timestampOrNull(raw: unknown): Date | null {
  if (typeof raw !== 'string' || raw.trim() === '') return null;
  const ms = parseUtcMs(raw);
  return ms === undefined ? null : new Date(ms);
}

/** A string-or-absent field as a nullable column value. */
export function stringOrNull(raw: unknown): string | null {
  return typeof raw === 'string' ? raw : raw === undefined || raw === null ? null : String(raw);
}

/** A list of strings (tags, channels); anything else → an empty list. */
export function stringList(raw: unknown): string[] {
  return Array.isArray(raw) ? raw.map((v) => String(v)) : [];
}
