// `_etl_dirty_partitions`: the Parquet partitions whose rows changed and that the next export must rewrite. Marked in
// the transaction that changes the rows, cleared once the new files are published; the SQL of both lives here.

/**
 * Marks dirty every partition `source` names (a query with a `"partition"` column) for the table `tableParam` (a SQL
 * parameter or literal naming the table), skipping those already marked.
 */
export function markDirtySql(tableParam: string, source: string): string {
  return `INSERT INTO "_etl_dirty_partitions" SELECT DISTINCT ${tableParam}, m."partition" FROM (${source}) m
     WHERE m."partition" IS NOT NULL AND NOT EXISTS (
       SELECT 1 FROM "_etl_dirty_partitions" d WHERE d."table_name" = ${tableParam} AND d."partition" = m."partition")`;
}

/** Every dirty partition: rows of `table_name`, `partition`. */
export const READ_DIRTY_SQL = `SELECT "table_name", "partition" FROM "_etl_dirty_partitions"`;

/** Clears the partitions `$2` (a list) of the table `$1` once exported. */
export const CLEAR_DIRTY_SQL = `DELETE FROM "_etl_dirty_partitions" WHERE "table_name" = $1 AND list_contains($2, "partition")`;
