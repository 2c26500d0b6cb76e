// Parquet export of the warehouse through DuckDB COPY: month partitions (`<out>/<table>/_month=YYYY-MM/data.parquet`) for
// series tables, one `data.parquet` for the rest. Files are written into a staging folder and renamed into place, the
// manifest follows, and only then are the exported partitions cleared from `_etl_dirty_partitions`.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { FatalError } from '../errors.js';
import { crashPoint } from '../load/crash-point.js';
import type { Warehouse } from '../load/warehouse.js';
import { PARTITION_COLUMN, TABLE_SPECS, WHOLE_TABLE_PARTITION, ident, tableSpec } from '../load/table-specs.js';
import type { TableName, TableSpec } from '../load/table-specs.js';
import { assertWritableDir } from './assert-writable-dir.js';
import { findDamage } from './damaged-files.js';
import { readManifest, writeManifest } from './table-manifest.js';
import type { ManifestFile } from './table-manifest.js';
import { isProcessAlive } from '../load/process-alive.js';

export interface ExportOptions {
  /** 'dirty' rewrites only the partitions commits have marked since the last export; 'all' rewrites every partition. */
  scope: 'dirty' | 'all';
  /**
   * Tables to export.
   * @default every table of the registry
   */
  tables?: TableName[];
}

export interface TableExport {
  table: TableName;
  filesWritten: number;
  /** Files of partitions that became empty. */
  filesRemoved: number;
  rowsWritten: number;
}

/** A table whose files were damaged outside the export (manifest, Parquet file) and rewritten from DuckDB. */
export interface ExportRepair {
  table: TableName;
  /** What was wrong, one phrase per problem. */
  problems: string[];
}

export interface ExportSummary {
  outDir: string;
  /** Damage found and repaired by this export. */
  repaired: ExportRepair[];
  /** Tables whose files or manifest were touched. */
  tables: TableExport[];
  filesWritten: number;
  filesRemoved: number;
  rowsWritten: number;
}

const DATA_FILE = 'data.parquet';
const STAGING_PREFIX = '.staging-';
const MONTH = /^\d{4}-\d{2}$/;
const MONTH_DIR = /^_month=(\d{4}-\d{2})$/;

// Staging folders of exports still running in this process: a stale-folder sweep must not remove them.
const ACTIVE_STAGING = new Set<string>();

const sqlString = (text: string): string => `'${text.replaceAll("'", "''")}'`;


// A manifest being written: `<MANIFEST_NAME>.<pid>-<hex>.tmp` (the temp suffix exportParquet hands to writeManifest).
const MANIFEST_TEMP = /^_manifest\.json\.(\d+)-[0-9a-f]+\.tmp$/;
// The probe file of assertWritableDir: `.engage-etl-write-test-<pid>`.
const WRITE_PROBE = /^\.engage-etl-write-test-(\d+)$/;

/**
 * Remove what killed runs left in the output folder: staging folders, half-written manifest temp files and write
 * probes whose process is gone (or is this process and no export of it uses them). Without this a run killed at the wrong moment leaves temp files forever.
 */
async function removeStaleStaging(outDir: string): Promise<void> {
  const stale = (pid: number) => !(pid !== process.pid && Number.isInteger(pid) && isProcessAlive(pid));
  for (const entry of await readdir(outDir, { withFileTypes: true })) {
    const path = join(outDir, entry.name);
    const probe = WRITE_PROBE.exec(entry.name)?.[1];
    if (entry.name.startsWith(STAGING_PREFIX)) {
      const pid = Number(/^\.staging-(\d+)-/.exec(entry.name)?.[1]);
      if (!ACTIVE_STAGING.has(path) && stale(pid)) await rm(path, { recursive: true, force: true });
    } else if (probe !== undefined) {
      if (Number(probe) !== process.pid && stale(Number(probe))) await rm(path, { force: true });
    } else if (entry.isDirectory()) {
      for (const name of await readdir(path)) {
        const pid = MANIFEST_TEMP.exec(name)?.[1];
        if (pid !== undefined && Number(pid) !== process.pid && stale(Number(pid))) await rm(join(path, name), { force: true });
      }
    }
  }
}

function relativeFile(spec: TableSpec, partition: string): string {
  return spec.partitionSource ? `${PARTITION_COLUMN}=${partition}/${DATA_FILE}` : DATA_FILE;
}

/** Partitions with a data file on disk. */
async function partitionsOnDisk(spec: TableSpec, tableDir: string): Promise<string[]> {
  if (!existsSync(tableDir)) return [];
  if (!spec.partitionSource) return existsSync(join(tableDir, DATA_FILE)) ? [WHOLE_TABLE_PARTITION] : [];
  const months: string[] = [];
  for (const name of await readdir(tableDir)) {
    const month = MONTH_DIR.exec(name)?.[1];
    if (month && existsSync(join(tableDir, name, DATA_FILE))) months.push(month);
  }
  return months;
}

async function partitionsToWrite(wh: Warehouse, spec: TableSpec, tableDir: string, scope: 'dirty' | 'all', dirty: Map<string, Set<string>>): Promise<string[]> {
  const found = new Set<string>(dirty.get(spec.name) ?? []);
  if (scope === 'all') {
    if (!spec.partitionSource) found.add(WHOLE_TABLE_PARTITION);
    else {
      for (const row of await wh.query(`SELECT DISTINCT ${ident(PARTITION_COLUMN)} AS p FROM ${ident(spec.name)} WHERE ${ident(PARTITION_COLUMN)} IS NOT NULL`)) {
        found.add(row.p as string);
      }
      for (const month of await partitionsOnDisk(spec, tableDir)) found.add(month);
    }
  }
  return [...found].sort();
}

async function copyPartition(wh: Warehouse, spec: TableSpec, partition: string, file: string): Promise<number> {
  const order = spec.key.map(ident).join(', ');
  const select = spec.partitionSource
    ? `SELECT * EXCLUDE (${ident(PARTITION_COLUMN)}) FROM ${ident(spec.name)} WHERE ${ident(PARTITION_COLUMN)} = ${sqlString(partition)} ORDER BY ${order}`
    : `SELECT * FROM ${ident(spec.name)} ORDER BY ${order}`;
  const [row] = await wh.query(`COPY (${select}) TO ${sqlString(file)} (FORMAT parquet, COMPRESSION zstd)`);
  return Number(row?.Count ?? 0);
}

async function fileRows(wh: Warehouse, file: string): Promise<number> {
  const [row] = await wh.query(`SELECT sum("num_rows") AS n FROM parquet_file_metadata(${sqlString(file)})`);
  return Number(row?.n ?? 0);
}

async function exportTable(
  wh: Warehouse,
  spec: TableSpec<TableName>,
  outDir: string,
  stagingDir: string,
  scope: 'dirty' | 'all',
  dirty: Map<string, Set<string>>,
  runTag: string,
  repaired: ExportRepair[],
): Promise<TableExport | undefined> {
  const tableDir = join(outDir, spec.name);
  const planned = await partitionsToWrite(wh, spec, tableDir, scope, dirty);
  const damage = await findDamage(tableDir, await partitionsOnDisk(spec, tableDir), new Set(planned), (p) => relativeFile(spec, p));
  if (damage.problems.length > 0) repaired.push({ table: spec.name, problems: damage.problems });
  const partitions = [...new Set([...planned, ...damage.partitions])].sort();
  if (partitions.length === 0 && !damage.manifestDamaged) return undefined;
  for (const p of partitions) {
    if (spec.partitionSource ? !MONTH.test(p) : p !== WHOLE_TABLE_PARTITION) {
      const expected = spec.partitionSource ? 'a YYYY-MM month' : "'' (the table is one file)";
      throw new FatalError(`_etl_dirty_partitions names partition "${p}" of ${spec.name}, expected ${expected}; delete that row and export with scope 'all'`);
    }
  }
  const result: TableExport = { table: spec.name, filesWritten: 0, filesRemoved: 0, rowsWritten: 0 };
  const written = new Map<string, ManifestFile>();
  // Files of partitions that became empty: removed only after the new manifest stops naming them, so no reader ever
  // finds a manifest that names a missing file.
  const emptied = new Set<string>();
  const stagedTable = join(stagingDir, spec.name);
  await mkdir(stagedTable, { recursive: true });

  for (const partition of partitions) {
    const rel = relativeFile(spec, partition);
    const finalPath = join(tableDir, rel);
    // The staged name does not end in .parquet, so no `*.parquet` glob ever reads a half-written file.
    const staged = join(stagedTable, `${partition || 'table'}.${DATA_FILE}.part`);
    const rows = await copyPartition(wh, spec, partition, staged);
    if (rows === 0) {
      await rm(staged, { force: true });
      if (existsSync(finalPath)) emptied.add(partition);
      continue;
    }
    crashPoint('parquet-staged');
    await mkdir(spec.partitionSource ? join(tableDir, `${PARTITION_COLUMN}=${partition}`) : tableDir, { recursive: true });
    await rename(staged, finalPath);
    crashPoint('parquet-placed');
    const bytes = (await stat(finalPath)).size;
    written.set(rel, { path: rel, partition: spec.partitionSource ? partition : null, rows, bytes });
    result.filesWritten += 1;
    result.rowsWritten += rows;
  }

  // A table never exported and still empty gets no folder at all.
  if (!existsSync(tableDir)) {
    await clearDirty(wh, spec, partitions);
    return result;
  }

  // The manifest lists exactly the files on disk: rewritten ones, plus untouched ones carried over (recounted when the
  // old manifest does not know them or their size changed).
  const previous = new Map((await readManifest(tableDir))?.files.map((f) => [f.path, f]) ?? []);
  const files: ManifestFile[] = [];
  for (const partition of await partitionsOnDisk(spec, tableDir)) {
    if (emptied.has(partition)) continue;
    const rel = relativeFile(spec, partition);
    const fresh = written.get(rel);
    if (fresh) {
      files.push(fresh);
      continue;
    }
    const path = join(tableDir, rel);
    const bytes = (await stat(path)).size;
    const old = previous.get(rel);
    files.push(old && old.bytes === bytes ? old : { path: rel, partition: spec.partitionSource ? partition : null, rows: await fileRows(wh, path), bytes });
  }
  files.sort((a, b) => a.path.localeCompare(b.path));
  await writeManifest(
    tableDir,
    {
      table: spec.name,
      format: 'parquet',
      compression: 'zstd',
      partitionColumn: spec.partitionSource ? PARTITION_COLUMN : null,
      columns: [...spec.columns.map((col) => ({ name: col.name, type: col.type })), { name: '_loaded_at', type: 'TIMESTAMP' }, { name: '_run_id', type: 'VARCHAR' }],
      files,
      updatedAt: new Date().toISOString(),
    },
    runTag,
  );
  crashPoint('manifest-written');
  for (const partition of emptied) {
    await rm(join(tableDir, relativeFile(spec, partition)), { force: true });
    result.filesRemoved += 1;
    if (spec.partitionSource) await rmdir(join(tableDir, `${PARTITION_COLUMN}=${partition}`)).catch(() => undefined);
  }

  await clearDirty(wh, spec, partitions);
  return result;
}

async function clearDirty(wh: Warehouse, spec: TableSpec, partitions: string[]): Promise<void> {
  await wh.query(`DELETE FROM "_etl_dirty_partitions" WHERE "table_name" = $1 AND list_contains($2, "partition")`, [spec.name, partitions]);
}

/**
 * Export the warehouse to Parquet under `outDir`. Readers of `<out>/<table>/**\/*.parquet` see each file old or new, never
 * half of one; a killed export leaves its partitions dirty, so the next export redoes them.
 */
export async function exportParquet(wh: Warehouse, outDir: string, opts: ExportOptions): Promise<ExportSummary> {
  const out = resolve(outDir);
  await assertWritableDir(out);
  await removeStaleStaging(out);
  const tables = (opts.tables ?? TABLE_SPECS.map((s) => s.name)).map(tableSpec);
  const dirty = new Map<string, Set<string>>();
  for (const row of await wh.query(`SELECT "table_name", "partition" FROM "_etl_dirty_partitions"`)) {
    const table = row.table_name as string;
    if (!dirty.has(table)) dirty.set(table, new Set());
    dirty.get(table)!.add(row.partition as string);
  }

  const runTag = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const stagingDir = join(out, `${STAGING_PREFIX}${runTag}`);
  ACTIVE_STAGING.add(stagingDir);
  const summary: ExportSummary = { outDir: out, repaired: [], tables: [], filesWritten: 0, filesRemoved: 0, rowsWritten: 0 };
  try {
    await mkdir(stagingDir);
    for (const spec of tables) {
      const done = await exportTable(wh, spec, out, stagingDir, opts.scope, dirty, runTag, summary.repaired);
      if (!done) continue;
      summary.tables.push(done);
      summary.filesWritten += done.filesWritten;
      summary.filesRemoved += done.filesRemoved;
      summary.rowsWritten += done.rowsWritten;
    }
  } finally {
    await rm(stagingDir, { recursive: true, force: true });
    ACTIVE_STAGING.delete(stagingDir);
  }
  return summary;
}

