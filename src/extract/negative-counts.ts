// Counts the platform sent below zero. A count (a BIGINT value column: sends, opens, sizes, sessions) cannot be
// negative, yet the platform's word is what is stored — a correction may explain it — so it is kept as sent and warned
// about once per table and column, naming the first row, for a person to check at the source.
import { anyColumn } from '../load/column-test.js';
import type { TableSpec } from '../load/table-definition.js';
import type { ExtractedRows, RowNotice } from './extracted-rows.js';

const isNegative = (value: unknown): boolean => typeof value === 'number' && value < 0;

/** A table's count columns, and whether a row has one below zero. */
const countsOf = new WeakMap<TableSpec, { columns: string[]; negative: (row: Record<string, unknown>) => boolean }>();

function counts(spec: TableSpec) {
  let found = countsOf.get(spec);
  if (found === undefined) {
    const columns = spec.columns.filter((c) => c.type === 'BIGINT' && !spec.key.includes(c.name)).map((c) => c.name);
    countsOf.set(spec, (found = { columns, negative: anyColumn(columns, isNegative) }));
  }
  return found;
}

/** One notice per table and count column holding a value below zero in `rows`. */
export function negativeCountNotices(tables: readonly TableSpec[], rows: ExtractedRows): RowNotice[] {
  const notices: RowNotice[] = [];
  for (const { table, rows: values } of rows.upserts) {
    const spec = tables.find((t) => t.name === table);
    if (!spec) continue;
    const { columns, negative } = counts(spec);
    // Almost never: the rows are read once, and column by column only when one has a count below zero.
    if (!values.some(negative)) continue;
    for (const column of columns) {
      const row = values.find((r) => isNegative(r[column]));
      if (!row) continue;
      const where = spec.key.map((k) => `${k} ${formatKey(row[k])}`).join(', ');
      notices.push({
        code: 'negative_count',
        key: `${table}.${column}`,
        message: `${table}.${column}: the platform sent ${String(row[column])} (${where}); a count below zero is stored as sent — check it at the source`,
      });
    }
  }
  return notices;
}

function formatKey(value: unknown): string {
  return value instanceof Date ? value.toISOString() : (JSON.stringify(value) ?? String(value));
}
