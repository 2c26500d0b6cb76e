// The lake's book of partitions in DuckDB: which partitions of each table commits marked dirty (dirty-partitions.ts)
// and which partitions a table's rows fall in, with their counts, as the export writes them (a year `YYYY` of its
// partition source, or WHOLE_TABLE_PARTITION for a single-file table). The export reads and clears it through here.
import { CLEAR_DIRTY_SQL, READ_DIRTY_SQL } from './dirty-partitions.js';
import { WHOLE_TABLE_PARTITION, ident } from './table-definition.js';
import type { TableSpec } from './table-definition.js';
import type { Warehouse } from './warehouse.js';

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
      `SELECT DISTINCT strftime(${source}, '%Y') AS p FROM ${ident(spec.name)} WHERE ${source} IS NOT NULL`,
    );
    return rows.map((row) => row['p'] as string);
  }

  /** Rows per partition (`YYYY`, or WHOLE_TABLE_PARTITION for a single-file table) as the export would write them; empty partitions are left out. */
  async rowsByPartition(spec: TableSpec): Promise<Map<string, number>> {
    const source = spec.partitionSource ? ident(spec.partitionSource) : undefined;
    const rows = source
      ? await this.#wh.query(
          `SELECT strftime(${source}, '%Y') AS p, count(*) AS n FROM ${ident(spec.name)} WHERE ${source} IS NOT NULL GROUP BY 1`,
        )
      : await this.#wh.query(`SELECT '${WHOLE_TABLE_PARTITION}' AS p, count(*) AS n FROM ${ident(spec.name)}`);
    return new Map(rows.filter((r) => Number(r['n']) > 0).map((r) => [String(r['p']), Number(r['n'])]));
  }
}
