// The warehouse tables a set of streams writes.
import type { TableName } from '../streams/table-specs.js';
import type { StreamName } from '../streams/registry.js';
import { streamDeclaration } from '../streams/registry.js';

/** The warehouse tables of these streams, in registry order. */
export function tablesOf(streams: readonly StreamName[]): TableName[] {
  return [...new Set(streams.flatMap((s) => streamDeclaration(s).tables.map((t) => t.name as TableName)))];
}
