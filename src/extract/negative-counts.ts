// Counts the platform sent below zero. A count (a BIGINT value column: sends, opens, sizes, sessions) cannot be
// negative, yet the platform's word is what is stored — a correction may explain it — so it is kept as sent and warned
// about once per table and column, naming the first row, for a person to check at the source.
import type { TableSpec } from '../load/table-definition.js';
import type { ExtractedRows, RowNotice } from './extracted-rows.js';

/** One notice per table and count column holding a value below zero in `rows`. */
export function negativeCountNotices(tables: readonly TableSpec[], rows: ExtractedRows): RowNotice[] {
  const notices: RowNotice[] = [];
  for (const { table, rows: values } of rows.upserts) {
    const spec = tables.find((t) => t.name === table);
    if (!spec) continue;
    const counts = spec.columns.filter((c) => c.type === 'BIGINT' && !spec.key.includes(c.name)).map((c) => c.name);
    for (const column of counts) {
      const row = values.find((r) => typeof r[column] === 'number' && (r[column] as number) < 0);
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
