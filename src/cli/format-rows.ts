// Renders rows for a terminal: an aligned table with numbers right-aligned (status, and query's table format).
import { printable } from '../text/printable-text.js';

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object')
    return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  return printable(String(value));
}

/**
 * An aligned text table: a header, a rule, the rows (cells cut at 60 characters), and `footer` below. Numeric columns
 * are right-aligned so digits line up.
 */
export function renderTable(
  columns: readonly string[],
  rows: readonly (readonly string[])[],
  numeric: readonly boolean[],
  footer: string,
): string {
  if (columns.length === 0) return '(no columns)\n';
  const widths = columns.map((c, i) => Math.min(60, Math.max(c.length, ...rows.map((t) => t[i]!.length))));
  const line = (values: readonly string[]) =>
    values
      .map((v, i) => {
        const w = widths[i]!;
        const text = v.length > w ? `${v.slice(0, w - 1)}…` : v;
        return numeric[i] ? text.padStart(w) : text.padEnd(w);
      })
      .join('  ')
      .trimEnd();
  return [line(columns), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line), footer].join('\n') + '\n';
}

export function formatRows(rows: readonly Record<string, unknown>[]): string {
  const columns = rows.length > 0 ? Object.keys(rows[0]!) : [];
  if (columns.length === 0) return '(no rows)\n';
  const numeric = columns.map((c) =>
    rows.every((r) => r[c] === null || typeof r[c] === 'number' || typeof r[c] === 'bigint'),
  );
  return renderTable(
    columns,
    rows.map((r) => columns.map((c) => cell(r[c]))),
    numeric,
    `(${rows.length} row${rows.length === 1 ? '' : 's'})`,
  );
}
