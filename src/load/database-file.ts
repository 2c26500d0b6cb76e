// What a `--db` file must be before a command reads it, exports from it or adopts it: a DuckDB database (not a folder,
// not some other file) and, for the commands that only read or re-export, one engage-etl wrote. Checked before anything
// is created or deleted, so a wrong --db is an error naming it, never an empty warehouse published over the lake.
import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { ConfigError } from '../errors.js';
import type { WarehouseTables } from './warehouse-tables.js';

// Bytes 8–11 of every DuckDB database file.
const DUCKDB_MAGIC = 'DUCK';

/**
 * Refuse a `path` that is a folder or not a DuckDB database. `shownAs` is how messages name it: the `--db` path, or the
 * `s3://` URL of the object `path` was downloaded from (never a temp path the user cannot find).
 */
export async function checkDatabaseFile(path: string, shownAs: string): Promise<void> {
  if ((await stat(path)).isDirectory()) {
    throw new ConfigError(
      '--db',
      `the database path ${shownAs} is a folder; pass a file path with --db, e.g. --db ${join(shownAs, 'engage.duckdb')}`,
    );
  }
  const handle = await open(path, 'r');
  const header = Buffer.alloc(12);
  try {
    await handle.read(header, 0, 12, 0);
  } finally {
    await handle.close();
  }
  if (header.subarray(8, 12).toString('latin1') !== DUCKDB_MAGIC) {
    throw new ConfigError(
      '--db',
      `the database file is not a DuckDB database: ${shownAs} (move it away or pass another --db)`,
    );
  }
}

/**
 * Refuse a DuckDB database holding none of engage-etl's tables — `tables` or the run log — (someone else's database, or
 * an empty one a mistyped --db left): opened read-only, so nothing in it changes. Call after checkDatabaseFile.
 */
export async function checkEngageTables(path: string, shownAs: string, tables: WarehouseTables): Promise<void> {
  const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  let found: number;
  try {
    const conn = await instance.connect();
    try {
      const list = [...tables.all.map((s) => s.name), '_etl_runs'].map((t) => `'${t}'`).join(', ');
      const rows = (
        await conn.runAndReadAll(
          `SELECT count(*) AS n FROM duckdb_tables() WHERE "schema_name" = 'main' AND "table_name" IN (${list})`,
        )
      ).getRowObjectsJS();
      found = Number(rows[0]?.['n'] ?? 0);
    } finally {
      conn.closeSync();
    }
  } finally {
    instance.closeSync();
  }
  if (found === 0) {
    throw new ConfigError(
      '--db',
      `${shownAs} is a DuckDB database but holds no engage-etl table (no _etl_runs, no revenue, …): it was not written by engage-etl; check --db (a typo?) — nothing was changed`,
    );
  }
}
