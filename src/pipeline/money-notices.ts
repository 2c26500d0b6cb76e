// Amounts finer than a cent. The platform documents its amounts in USD, so the load stores every amount to the cent
// (DECIMAL, row-package.ts). A float's own noise (3531.0199999999995 for 3531.02) is rounded away silently; a value with
// a real digit past the cent (1.005) is rounded too, and the run says so, once per table and column, with an example:
// that digit is not in the warehouse.
import type { ExtractedRows, RowNotice } from '../extract/extracted-rows.js';
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

const moneyColumnsOf = new Map<string, string[]>();

function moneyColumns(table: string): string[] {
  let columns = moneyColumnsOf.get(table);
  if (columns === undefined) {
    columns = isTableName(table)
      ? tableSpec(table)
          .columns.filter((c) => c.type === MONEY)
          .map((c) => c.name)
      : [];
    moneyColumnsOf.set(table, columns);
  }
  return columns;
}

/** One notice per money column of `rows` holding an amount with a digit past the cent. */
export function moneyNotices(rows: ExtractedRows): RowNotice[] {
  const notices: RowNotice[] = [];
  for (const { table, rows: list } of rows.upserts) {
    for (const column of moneyColumns(table)) {
      const found = list.find((row) => typeof row[column] === 'number' && beyondCents(row[column] as number));
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
