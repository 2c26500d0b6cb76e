// Renders query results for a terminal (aligned table), for spreadsheets (CSV) or for programs (JSON).
export type RowFormat = 'table' | 'csv' | 'json';

export const ROW_FORMATS: readonly RowFormat[] = ['table', 'csv', 'json'];

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  return String(value);
}

export function formatRows(rows: readonly Record<string, unknown>[], format: RowFormat): string {
  if (format === 'json') {
    return `${JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`;
  }
  const columns = rows.length > 0 ? Object.keys(rows[0]!) : [];
  if (format === 'csv') {
    const quote = (s: string) => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
    return [columns.map(quote).join(','), ...rows.map((r) => columns.map((c) => quote(cell(r[c]))).join(','))].join('\n') + '\n';
  }
  if (columns.length === 0) return '(no rows)\n';
  const text = rows.map((r) => columns.map((c) => cell(r[c])));
  const widths = columns.map((c, i) => Math.min(60, Math.max(c.length, ...text.map((t) => t[i]!.length))));
  const line = (values: string[]) => values.map((v, i) => (v.length > widths[i]! ? `${v.slice(0, widths[i]! - 1)}…` : v.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(columns), widths.map((w) => '-'.repeat(w)).join('  '), ...text.map(line), `(${rows.length} row${rows.length === 1 ? '' : 's'})`].join('\n') + '\n';
}
