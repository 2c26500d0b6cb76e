// Bulk load of column arrays into a table through the Appender, one DataChunk (at most 2048 rows) at a time: the fastest
// measured path into DuckDB (about 0.8 M rows/s here, against 3.5 k rows/s for prepared INSERTs in one transaction).
import { DuckDBDataChunk } from '@duckdb/node-api';
import type { DuckDBConnection, DuckDBType, DuckDBValue } from '@duckdb/node-api';

/** DuckDB's vector size: a DataChunk holds at most this many rows. */
const CHUNK_ROWS = 2048;

/**
 * Append `rowCount` rows given column by column (every array `rowCount` long, in the table's column order).
 * The rows are visible to the connection once this returns (the appender is closed, which flushes it).
 */
export async function appendColumns(
  conn: DuckDBConnection,
  table: string,
  types: readonly DuckDBType[],
  columns: readonly (readonly DuckDBValue[])[],
  rowCount: number,
): Promise<void> {
  if (rowCount === 0) return;
  const appender = await conn.createAppender(table);
  try {
    for (let start = 0; start < rowCount; start += CHUNK_ROWS) {
      const end = Math.min(start + CHUNK_ROWS, rowCount);
      const chunk = DuckDBDataChunk.create(types, end - start);
      chunk.setColumns(columns.map((col) => col.slice(start, end)));
      appender.appendDataChunk(chunk);
    }
    appender.flushSync();
  } finally {
    appender.closeSync();
  }
}
