// Amounts finer than a cent. The platform documents its amounts in USD, so the load stores every amount to the cent
// (DECIMAL, row-package.ts). A float's own noise (3531.0199999999995 for 3531.02) is rounded away silently; a value with
// a real digit past the cent (1.005) is rounded too, and the run says so, once per table and column, with an example:
// that digit is not in the warehouse.
import type { ExtractedRows, RowNotice } from '../extract/extracted-rows.js';
import { anyColumn } from '../load/column-test.js';
import { MONEY, MONEY_SCALE } from '../load/table-definition.js';
import { isTableName, tableSpec } from '../streams/table-specs.js';

const FACTOR = 10 ** MONEY_SCALE;

/**
 * Whether `value` has a digit past the cent that is not the float's noise: its distance to the nearest cent is more than a
 * millionth of a cent and more than a relative 1e-12 (sums of thousands of floats stay far below both).
 */
export function beyondCents(value: number): boolean {
  const cents = value * FACTOR;
  return Math.abs(cents - Math.round(cents)) > Math.max(1e-6, Math.abs(cents) * 1e-12);
}

const isBeyondCents = (value: unknown): boolean => typeof value === 'number' && beyondCents(value);

/** A table's money columns, and whether a row has an amount in one finer than the cent. */
const moneyColumnsOf = new Map<string, { columns: string[]; beyond: (row: Record<string, unknown>) => boolean }>();

function moneyColumns(table: string) {
  let found = moneyColumnsOf.get(table);
  if (found === undefined) {
    const columns = isTableName(table)
      ? tableSpec(table)
          .columns.filter((c) => c.type === MONEY)
          .map((c) => c.name)
      : [];
    moneyColumnsOf.set(table, (found = { columns, beyond: anyColumn(columns, isBeyondCents) }));
  }
  return found;
}

/** One notice per money column of `rows` holding an amount with a digit past the cent. */
export function moneyNotices(rows: ExtractedRows): RowNotice[] {
  const notices: RowNotice[] = [];
  for (const { table, rows: list } of rows.upserts) {
    const { columns, beyond } = moneyColumns(table);
    if (columns.length === 0 || !list.some(beyond)) continue;
    for (const column of columns) {
      const found = list.find((row) => isBeyondCents(row[column]));
      if (found === undefined) continue;
      notices.push({
        code: 'amount_beyond_cents',
        key: `${table}.${column}`,
        message: `${table}.${column}: the server sent ${String(found[column])}, finer than the cent the platform documents for USD amounts; stored rounded to the cent (${MONEY}). Every such value of the run is rounded the same way`,
      });
    }
  }
  return notices;
}
