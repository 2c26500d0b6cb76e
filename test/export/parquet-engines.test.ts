// The Parquet tree read as other engines read it: Hive/Trino/Athena/Spark skip any path part starting with `_` or `.`,
// so a test walks the tree with that rule, and DuckDB (hive partitioning) and hyparquet must each give every table back
// exactly. Also: a tree in the old `_month=` layout moves to the new one on the next export, losing nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { exportBookkeeping, exportParquet } from '../../src/export/export-parquet.js';
import { BOOKKEEPING_EXPORTS, MANIFEST_DIR } from '../../src/export/parquet-layout.js';
import type { TableManifest } from '../../src/export/table-manifest.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { TABLE_SPECS, WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import { analystWarehouse } from '../views/analyst-fixture.js';
import type { PipelineFixture } from '../pipeline/helpers/pipeline-fixture.js';

/** Every file under `root` as a Hive-style engine lists it: a path part starting with `_` or `.` hides what is below. */
async function visibleFiles(root: string): Promise<{ visible: string[]; hidden: string[] }> {
  const visible: string[] = [];
  const hidden: string[] = [];
  for (const rel of (await readdir(root, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)))) {
    (rel.split(sep).some((part) => part.startsWith('_') || part.startsWith('.')) ? hidden : visible).push(rel);
  }
  return { visible: visible.sort(), hidden };
}

/** The table's rows as a canonical, order-free text per row, through DuckDB. */
async function duckRows(wh: Warehouse, source: string, columns: string[]): Promise<string[]> {
  const rows = await wh.query(
    `SELECT ${columns.map((c) => `CAST("${c}" AS VARCHAR) AS "${c}"`).join(', ')} FROM ${source}`,
  );
  return rows.map((r) => JSON.stringify(columns.map((c) => r[c]))).sort();
}

describe('the Parquet tree of a demo warehouse, read by the rules of other engines', () => {
  let f: PipelineFixture;
  let wh: Warehouse;

  beforeAll(async () => {
    f = await analystWarehouse();
    wh = await Warehouse.open(f.db, WAREHOUSE_TABLES);
  }, 120_000);
  afterAll(async () => {
    await wh?.close();
    await f?.close();
  });

  it('has no hidden path part, every data file in a table folder, manifests beside the tables and no tiny-file splitting', async () => {
    const { visible, hidden } = await visibleFiles(f.out);
    expect(hidden).toEqual([]);
    for (const file of visible)
      expect(file).toMatch(/^(manifests\/[a-z_]+\.json|[a-z_]+\/(year=\d{4}\/)?data\.parquet)$/);
    const tables = (await readdir(f.out)).filter((n) => n !== MANIFEST_DIR);
    for (const t of tables) expect((await readdir(join(f.out, t))).some((n) => n.endsWith('.json'))).toBe(false);
    // Two months of series cross one new year: two files per series table, not one per month.
    expect((await readdir(join(f.out, 'sessions'))).sort()).toEqual(['year=2024', 'year=2025']);
    // One file per table and year (the series tables cross one new year) and one per history table, not one per month.
    expect(visible.filter((v) => v.endsWith('.parquet')).length).toBeLessThan(46);
  });

  it('gives each table back exactly through DuckDB read_parquet(hive_partitioning = true) and through hyparquet', async () => {
    for (const spec of TABLE_SPECS) {
      const dir = join(f.out, spec.name);
      const stored = await wh.query(`SELECT count(*) AS n FROM "${spec.name}"`);
      if (!existsSync(dir)) {
        expect(stored[0]?.n, spec.name).toBe(0);
        continue;
      }
      const columns = [...spec.columns.map((c) => c.name), '_loaded_at', '_run_id'];
      const fromParquet = await duckRows(wh, `read_parquet('${dir}/**/*.parquet', hive_partitioning = true)`, columns);
      expect(fromParquet, spec.name).toEqual(await duckRows(wh, `"${spec.name}"`, columns));

      const manifest = JSON.parse(
        await readFile(join(f.out, MANIFEST_DIR, `${spec.name}.json`), 'utf8'),
      ) as TableManifest;
      let hyRows = 0;
      for (const file of manifest.files) {
        const rows = await parquetReadObjects({ file: await asyncBufferFromFile(join(dir, file.path)), compressors });
        expect(rows.length, file.path).toBe(file.rows);
        expect(Object.keys(rows[0] ?? {})).toEqual(columns);
        hyRows += rows.length;
      }
      expect(hyRows, spec.name).toBe(Number(stored[0]?.n));
    }
    for (const { table, folder } of BOOKKEEPING_EXPORTS) {
      const [n] = await wh.query(`SELECT count(*) AS n FROM "${table}"`);
      const rows = await parquetReadObjects({
        file: await asyncBufferFromFile(join(f.out, folder, 'data.parquet')),
        compressors,
      });
      expect(rows.length, folder).toBe(Number(n?.n));
    }
  });

  it('moves a tree in the old _month= layout to the new one on the next export, losing nothing', async () => {
    const old = join(f.dir, 'old-tree');
    // The layout of earlier versions: `_month=YYYY-MM/data.parquet` and `_manifest.json` inside each table folder.
    for (const spec of TABLE_SPECS.filter((s) => s.partitionSource)) {
      const [n] = await wh.query(`SELECT count(*) AS n FROM "${spec.name}"`);
      if (Number(n?.n) === 0) continue;
      await mkdir(join(old, spec.name), { recursive: true });
      await wh.query(
        `COPY (SELECT * FROM "${spec.name}") TO '${join(old, spec.name)}' (FORMAT parquet, PARTITION_BY ("_month"), FILENAME_PATTERN 'data')`,
      );
      await rename(join(f.out, MANIFEST_DIR, `${spec.name}.json`), join(old, spec.name, '_manifest.json'));
    }
    // A killed export of that layout also left a manifest temp file.
    await writeFile(join(old, 'revenue', '_manifest.json.4242-deadbeef.tmp'), '{');
    expect((await visibleFiles(old)).hidden.length).toBeGreaterThan(10);

    const summary = await exportParquet(wh, old, { scope: 'dirty' });
    await exportBookkeeping(wh, old);
    expect(summary.filesWritten).toBeGreaterThan(0);
    const { hidden } = await visibleFiles(old);
    expect(hidden).toEqual([]);
    for (const spec of TABLE_SPECS.filter((s) => s.partitionSource && existsSync(join(old, s.name)))) {
      const columns = [...spec.columns.map((c) => c.name), '_loaded_at', '_run_id'];
      expect(
        await duckRows(wh, `read_parquet('${join(old, spec.name)}/**/*.parquet', hive_partitioning = true)`, columns),
        spec.name,
      ).toEqual(await duckRows(wh, `"${spec.name}"`, columns));
      expect(existsSync(join(old, MANIFEST_DIR, `${spec.name}.json`))).toBe(true);
    }
  });
});
