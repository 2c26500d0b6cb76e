// The lake's book of partitions in DuckDB: which partitions of each table commits marked dirty (dirty-partitions.ts)
// and which partitions a table's rows fall in, with their counts, as the export writes them (a year `YYYY` of its
// partition source, or WHOLE_TABLE_PARTITION for a single-file table). The export reads and clears it through here.
import { CLEAR_DIRTY_SQL, READ_DIRTY_SQL } from './dirty-partitions.js';
import { WHOLE_TABLE_PARTITION, ident, sqlString } from './table-definition.js';
import type { TableSpec } from './table-definition.js';
import type { Warehouse } from './warehouse.js';

/** SQL of the year (`YYYY`) of the partition source read as `source`: `year()`, several times cheaper than strftime. */
function yearOf(source: string): string {
  return `lpad(CAST(year(${source}) AS VARCHAR), 4, '0')`;
}

/**
 * SQL true for the rows of `spec` in year partition `year` (`YYYY`): a range of the partition source, which DuckDB
 * compares without formatting a value per row and checks against each row group's minimum and maximum first.
 */
export function inYearSql(spec: TableSpec, year: string): string {
  if (!spec.partitionSource) return 'true';
  const source = ident(spec.partitionSource);
  if (!/^\d{4}$/.test(year)) return `${yearOf(source)} = ${sqlString(year)}`;
  const next = String(Number(year) + 1).padStart(4, '0');
  return `${source} >= DATE '${year}-01-01' AND ${source} < DATE '${next}-01-01'`;
}

export class PartitionBook {
  readonly #wh: Warehouse;

  constructor(warehouse: Warehouse) {
    this.#wh = warehouse;
  }

  /** Every dirty partition, by table. */
  async dirty(): Promise<Map<string, Set<string>>> {
    const dirty = new Map<string, Set<string>>();
    for (const row of await this.#wh.query(READ_DIRTY_SQL)) {
      const table = row['table_name'] as string;
      if (!dirty.has(table)) dirty.set(table, new Set());
      dirty.get(table)!.add(row['partition'] as string);
    }
    return dirty;
  }

  /** Clear the dirty `partitions` of `table` once their files are published. */
  async clear(table: string, partitions: readonly string[]): Promise<void> {
    await this.#wh.query(CLEAR_DIRTY_SQL, [table, partitions]);
  }

  /** The years a table with a partition source holds rows of. */
  async years(spec: TableSpec): Promise<string[]> {
    if (!spec.partitionSource) return [];
    const source = ident(spec.partitionSource);
    const rows = await this.#wh.query(
      `SELECT DISTINCT ${yearOf(source)} AS p FROM ${ident(spec.name)} WHERE ${source} IS NOT NULL`,
    );
    return rows.map((row) => row['p'] as string);
  }

  /** Rows per partition (`YYYY`, or WHOLE_TABLE_PARTITION for a single-file table) as the export would write them; empty partitions are left out. */
  async rowsByPartition(spec: TableSpec): Promise<Map<string, number>> {
    const source = spec.partitionSource ? ident(spec.partitionSource) : undefined;
    const rows = source
      ? await this.#wh.query(
          `SELECT ${yearOf(source)} AS p, count(*) AS n FROM ${ident(spec.name)} WHERE ${source} IS NOT NULL GROUP BY 1`,
        )
      : await this.#wh.query(`SELECT '${WHOLE_TABLE_PARTITION}' AS p, count(*) AS n FROM ${ident(spec.name)}`);
    return new Map(rows.filter((r) => Number(r['n']) > 0).map((r) => [String(r['p']), Number(r['n'])]));
  }
}
