// A test of some columns of a row, generated so that each column is read by a property access with its name written in
// the code: V8 caches such a read for the rows' shape, where `row[name]` over a list of names is a lookup by a name that
// changes at every step. The run tests every row it fetches this way (counts below zero, amounts finer than the cent).
// The names come from the table declarations and are written as JSON string literals.

/** Whether `test` holds for the value of any of `columns` in a row; no columns → always false. */
export function anyColumn(
  columns: readonly string[],
  test: (value: unknown) => boolean,
): (row: Record<string, unknown>) => boolean {
  const reads = columns.map((c) => `t(row[${JSON.stringify(c)}])`);
  return new Function('t', `return (row) => ${reads.length === 0 ? 'false' : reads.join(' || ')};`)(test) as (
    row: Record<string, unknown>,
  ) => boolean;
}
