// Peak RSS of `engage-etl query` exporting 1M and 10M rows (DATE, TIMESTAMP, INTERVAL, DOUBLE, VARCHAR) to stdout: the
// writer streams, so the figure stays flat as the row count grows tenfold.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { Warehouse } from '../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../src/streams/table-specs.js';
import type { QueryChildResult } from './query-child.js';

export interface QueryRssResult extends QueryChildResult {
  rows: number;
  format: string;
  bytes: number;
}

/** A throwaway database with table "t"; the read-only opener checks the warehouse tables exist, so it holds them too (empty). */
async function makeDb(file: string, rows: number): Promise<void> {
  // The warehouse is opened (and closed) once first: it creates its tables as `engage-etl run` would.
  await (await Warehouse.open(file, WAREHOUSE_TABLES)).close();
  const instance = await DuckDBInstance.create(file);
  const conn = await instance.connect();
  try {
    await conn.run(`CREATE TABLE "t" AS SELECT range AS "id", DATE '2024-01-01' + CAST(range % 1000 AS INTEGER) AS "day",
      TIMESTAMP '2024-01-01' + INTERVAL (range % 86400) SECOND AS "time", INTERVAL (range % 3600) SECOND AS "wait",
      'app_' || (range % 7) AS "app_id", (range % 10007) / 7.0 AS "revenue" FROM range(${rows})`);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

async function runChild(db: string, format: string): Promise<{ child: QueryChildResult; bytes: number }> {
  const child = spawn(process.execPath, [join(import.meta.dirname, 'query-child.js'), db, format], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let bytes = 0;
  let err = '';
  child.stdout.on('data', (c: Buffer) => (bytes += c.length));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await new Promise<number | null>((ok) => child.on('close', ok));
  if (code !== 0) throw new Error(`query child exited ${String(code)}: ${err.slice(-500)}`);
  return { child: JSON.parse(err.trim().split('\n').at(-1)!) as QueryChildResult, bytes };
}

export async function measureQueryRss(sizes: readonly number[], format = 'csv'): Promise<QueryRssResult[]> {
  const dir = await mkdtemp(join(tmpdir(), 'engage-bench-query-'));
  try {
    const results: QueryRssResult[] = [];
    for (const rows of sizes) {
      const db = join(dir, `q${rows}.duckdb`);
      await makeDb(db, rows);
      const { child, bytes } = await runChild(db, format);
      results.push({ ...child, rows, format, bytes });
      await rm(db, { force: true });
    }
    return results;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
