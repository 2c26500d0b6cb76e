// Load figures on the same synthetic rows: our ingestion (values checked and converted, Appender + DataChunk) against
// DuckDB's read_json of the same rows written as NDJSON; the full commit (stage, de-duplicate, detect changes, insert);
// and the Parquet export of the loaded table.
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { DuckDBInstance } from '@duckdb/node-api';
import type { DuckDBValue } from '@duckdb/node-api';
import { exportParquet } from '../src/export/export-parquet.js';
import { appendColumns } from '../src/load/append-columns.js';
import { stagingType, toDuckDBValue } from '../src/load/duckdb-values.js';
import { tableSpec, WAREHOUSE_TABLES } from '../src/streams/table-specs.js';
import { Warehouse } from '../src/load/warehouse.js';
import { PAGE_ROWS, ndjsonLine, syntheticPages } from './synthetic-rows.js';

export interface LoadFigures {
  rows: number;
  /** Rows/s of our ingestion into a plain table (conversion + Appender). */
  appenderRate: number;
  /** Rows/s of read_json into the same table, file already written. */
  readJsonRate: number;
  /** Rows/s of read_json counting the time to write the NDJSON file, which the pipeline would have to do. */
  readJsonWithWriteRate: number;
  /** Rows/s of Warehouse.commit in batches of 100,000 rows into an empty table. */
  commitRate: number;
  /** Rows/s of exportParquet over the loaded table (zstd, one file per month). */
  parquetRate: number;
  parquetFiles: number;
}

const PLAIN_TABLE =
  'CREATE TABLE t ("app_id" VARCHAR, "product" VARCHAR, "unit" VARCHAR, "time" TIMESTAMP, "purchase_quantity" BIGINT)';
const BATCH_ROWS = 100_000;

async function appenderLoad(dir: string, rows: number): Promise<number> {
  const instance = await DuckDBInstance.create(join(dir, 'appender.duckdb'));
  const conn = await instance.connect();
  try {
    await conn.run(PLAIN_TABLE);
    const spec = tableSpec('purchase_quantity');
    const types = spec.columns.map((c) => stagingType(c.type));
    const started = performance.now();
    let columns: DuckDBValue[][] = spec.columns.map(() => []);
    let inBatch = 0;
    for (const page of syntheticPages(rows)) {
      for (const row of page) {
        const record = row as unknown as Record<string, unknown>;
        for (let c = 0; c < spec.columns.length; c++)
          columns[c]!.push(toDuckDBValue(spec.columns[c]!.type, record[spec.columns[c]!.name], ''));
      }
      inBatch += page.length;
      if (inBatch >= BATCH_ROWS) {
        await appendColumns(conn, 't', types, columns, inBatch);
        columns = spec.columns.map(() => []);
        inBatch = 0;
      }
    }
    await appendColumns(conn, 't', types, columns, inBatch);
    return rows / ((performance.now() - started) / 1000);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

async function readJsonLoad(dir: string, rows: number): Promise<{ rate: number; withWrite: number }> {
  const file = join(dir, 'rows.ndjson');
  const writeStarted = performance.now();
  const stream = createWriteStream(file);
  for (const page of syntheticPages(rows)) {
    if (!stream.write(page.map(ndjsonLine).join(''))) await once(stream, 'drain');
  }
  stream.end();
  await once(stream, 'finish');
  const writeMs = performance.now() - writeStarted;
  const instance = await DuckDBInstance.create(join(dir, 'readjson.duckdb'));
  const conn = await instance.connect();
  try {
    await conn.run(PLAIN_TABLE);
    const started = performance.now();
    await conn.run(
      `INSERT INTO t SELECT * FROM read_json('${file}', format = 'newline_delimited',
         columns = {app_id: 'VARCHAR', product: 'VARCHAR', unit: 'VARCHAR', time: 'TIMESTAMP', purchase_quantity: 'BIGINT'})`,
    );
    const ms = performance.now() - started;
    return { rate: rows / (ms / 1000), withWrite: rows / ((ms + writeMs) / 1000) };
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

async function commitAndExport(
  dir: string,
  rows: number,
): Promise<{ commitRate: number; parquetRate: number; files: number }> {
  const wh = await Warehouse.open(join(dir, 'warehouse.duckdb'), WAREHOUSE_TABLES);
  try {
    let batch: Record<string, unknown>[] = [];
    const started = performance.now();
    for (const page of syntheticPages(rows)) {
      for (const row of page) batch.push(row);
      if (batch.length >= BATCH_ROWS) {
        await wh.commit({
          runId: 'bench',
          loadedAt: new Date(),
          upserts: [{ table: 'purchase_quantity', rows: batch }],
          state: [],
        });
        batch = [];
      }
    }
    if (batch.length > 0)
      await wh.commit({
        runId: 'bench',
        loadedAt: new Date(),
        upserts: [{ table: 'purchase_quantity', rows: batch }],
        state: [],
      });
    const commitRate = rows / ((performance.now() - started) / 1000);
    const exportStarted = performance.now();
    const exported = await exportParquet(wh, join(dir, 'parquet'), { scope: 'all', tables: ['purchase_quantity'] });
    return {
      commitRate,
      parquetRate: exported.rowsWritten / ((performance.now() - exportStarted) / 1000),
      files: exported.filesWritten,
    };
  } finally {
    await wh.close();
  }
}

export async function measureLoad(rows: number): Promise<LoadFigures> {
  if (rows % PAGE_ROWS !== 0) throw new RangeError(`rows must be a multiple of ${PAGE_ROWS}, got ${rows}`);
  const dir = await mkdtemp(join(tmpdir(), 'engage-bench-load-'));
  try {
    const appenderRate = await appenderLoad(dir, rows);
    const json = await readJsonLoad(dir, rows);
    const { commitRate, parquetRate, files } = await commitAndExport(dir, rows);
    return {
      rows,
      appenderRate,
      readJsonRate: json.rate,
      readJsonWithWriteRate: json.withWrite,
      commitRate,
      parquetRate,
      parquetFiles: files,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
