// Every column of every declared table has a description (the dbt package and docs show it): a stream that adds a
// column without one fails here, naming it.
import { describe, expect, it } from 'vitest';
import { columnDescription } from '../../src/load/column-descriptions.js';
import { PARTITION_COLUMN, TABLE_SPECS, allColumnNames } from '../../src/streams/table-specs.js';

describe('column descriptions', () => {
  it('describe every column of every table, the bookkeeping and partition columns included', () => {
    const missing = TABLE_SPECS.flatMap((spec) =>
      allColumnNames(spec)
        .filter((c) => columnDescription(spec.name, c) === undefined)
        .map((c) => `${spec.name}.${c}`),
    );
    expect(missing).toEqual([]);
    expect(TABLE_SPECS.some((s) => allColumnNames(s).includes(PARTITION_COLUMN))).toBe(true);
  });

  it("prefer a table's own line where a name means different things in different tables", () => {
    expect(columnDescription('canvases', 'name')).toBe("The Canvas's name.");
    expect(columnDescription('segments', 'name')).toBe("The segment's name.");
    expect(columnDescription('revenue', 'time')).toContain('start of the unit');
    expect(columnDescription('revenue', 'no_such_column')).toBeUndefined();
  });
});
