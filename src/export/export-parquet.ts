// Parquet export of the warehouse through DuckDB COPY, in the layout of parquet-layout.ts: year partitions
// (`<out>/<table>/year=YYYY/data.parquet`) for tables with a time column, one `data.parquet` for the rest. Files are
// written into a staging folder and renamed into place, the manifest follows, and only then are the exported months
// cleared from `_etl_dirty_partitions`. A table still in the old `_month=` layout is rewritten whole and its old files removed.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { FatalError } from '../errors.js';
import { CLEAR_DIRTY_SQL, READ_DIRTY_SQL } from '../load/dirty-partitions.js';
import type { Warehouse } from '../load/warehouse.js';
import { PARTITION_COLUMN, TABLE_SPECS, WHOLE_TABLE_PARTITION, ident, sqlString, storedColumns, tableSpec } from '../load/table-specs.js';
import type { TableName, TableSpec } from '../load/table-specs.js';
import { crashPoint } from '../process/crash-point.js';
import { isProcessAlive } from '../process/process-alive.js';
import { assertWritableDir } from './assert-writable-dir.js';
import { findDamage } from './damaged-files.js';
import { BOOKKEEPING_EXPORTS, DATA_FILE, LEGACY_MANIFEST, LEGACY_MONTH_FOLDER, MANIFEST_DIR, PARQUET_PARTITION_COLUMN, YEAR_FOLDER, yearFolder } from './parquet-layout.js';
import { MANIFEST_TEMP, readManifest, writeManifest } from './table-manifest.js';
import type { ManifestFile } from './table-manifest.js';

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

const STAGING_PREFIX = '.staging-';
const MONTH = /^\d{4}-\d{2}$/;

// Staging folders of exports still running in this process: a stale-folder sweep must not remove them.
const ACTIVE_STAGING = new Set<string>();



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
    } else if (entry.isDirectory() && entry.name === MANIFEST_DIR) {
      for (const name of await readdir(path)) {
        const pid = MANIFEST_TEMP.exec(name)?.[1];
        if (pid !== undefined && Number(pid) !== process.pid && stale(Number(pid))) await rm(join(path, name), { force: true });
      }
    }
  }
}

function relativeFile(spec: TableSpec, partition: string): string {
  return spec.partitionSource ? `${yearFolder(partition)}/${DATA_FILE}` : DATA_FILE;
}

/** Whether the table's folder still holds files of the `_month=` layout. */
async function hasLegacyLayout(tableDir: string): Promise<boolean> {
  if (!existsSync(tableDir)) return false;
  return (await readdir(tableDir)).some(isLegacy);
}

/** A month folder, the manifest, or a manifest temp file a killed export of that layout left. */
const isLegacy = (name: string): boolean => name.startsWith(LEGACY_MANIFEST) || LEGACY_MONTH_FOLDER.test(name);

async function removeLegacyLayout(tableDir: string): Promise<void> {
  for (const name of await readdir(tableDir)) {
    if (isLegacy(name)) await rm(join(tableDir, name), { recursive: true, force: true });
  }
}

/** Partitions with a data file on disk. */
async function partitionsOnDisk(spec: TableSpec, tableDir: string): Promise<string[]> {
  if (!existsSync(tableDir)) return [];
  if (!spec.partitionSource) return existsSync(join(tableDir, DATA_FILE)) ? [WHOLE_TABLE_PARTITION] : [];
  const years: string[] = [];
  for (const name of await readdir(tableDir)) {
    const year = YEAR_FOLDER.exec(name)?.[1];
    if (year && existsSync(join(tableDir, name, DATA_FILE))) years.push(year);
  }
  return years;
}

/** The year (or the whole-table partition) a dirty month lands in. */
function filePartition(spec: TableSpec, dirtyPartition: string): string {
  return spec.partitionSource ? dirtyPartition.slice(0, 4) : dirtyPartition;
}

async function partitionsToWrite(wh: Warehouse, spec: TableSpec, tableDir: string, scope: 'dirty' | 'all', dirty: readonly string[]): Promise<string[]> {
  const found = new Set<string>(dirty.map((p) => filePartition(spec, p)));
  if (scope === 'all') {
    if (!spec.partitionSource) found.add(WHOLE_TABLE_PARTITION);
    else {
      const source = ident(spec.partitionSource);
      for (const row of await wh.query(`SELECT DISTINCT strftime(${source}, '%Y') AS p FROM ${ident(spec.name)} WHERE ${source} IS NOT NULL`)) {
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
    ? `SELECT * EXCLUDE (${ident(PARTITION_COLUMN)}) FROM ${ident(spec.name)} WHERE strftime(${ident(spec.partitionSource)}, '%Y') = ${sqlString(partition)} ORDER BY ${order}`
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
  const dirtyHere = [...(dirty.get(spec.name) ?? [])];
  for (const p of dirtyHere) {
    if (spec.partitionSource ? !MONTH.test(p) : p !== WHOLE_TABLE_PARTITION) {
      const expected = spec.partitionSource ? 'a YYYY-MM month' : "'' (the table is one file)";
      throw new FatalError(`_etl_dirty_partitions names partition "${p}" of ${spec.name}, expected ${expected}; delete that row and export with scope 'all'`);
    }
  }
  // A table in the old layout is rewritten whole in the new one; its old files go once the new manifest is in place.
  const legacy = await hasLegacyLayout(tableDir);
  const planned = await partitionsToWrite(wh, spec, tableDir, legacy ? 'all' : scope, dirtyHere);
  // A table being migrated is rewritten whole anyway: what its new-layout files look like meanwhile is no damage.
  const damage = legacy ? undefined : await findDamage(outDir, spec.name, tableDir, await partitionsOnDisk(spec, tableDir), new Set(planned), (p) => relativeFile(spec, p));
  if (damage && damage.problems.length > 0) repaired.push({ table: spec.name, problems: damage.problems });
  const partitions = [...new Set([...planned, ...(damage?.partitions ?? [])])].sort();
  if (partitions.length === 0 && !damage?.manifestDamaged) return undefined;
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
    await mkdir(spec.partitionSource ? join(tableDir, yearFolder(partition)) : tableDir, { recursive: true });
    await rename(staged, finalPath);
    crashPoint('parquet-placed');
    const bytes = (await stat(finalPath)).size;
    written.set(rel, { path: rel, partition: spec.partitionSource ? partition : null, rows, bytes });
    result.filesWritten += 1;
    result.rowsWritten += rows;
  }

  // A table never exported and still empty gets no folder at all.
  if (!existsSync(tableDir)) {
    await clearDirty(wh, spec, dirtyHere);
    return result;
  }

  // The manifest lists exactly the files on disk: rewritten ones, plus untouched ones carried over (recounted when the
  // old manifest does not know them or their size changed).
  const previous = new Map((await readManifest(outDir, spec.name))?.files.map((f) => [f.path, f]) ?? []);
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
    outDir,
    {
      table: spec.name,
      format: 'parquet',
      compression: 'zstd',
      partitionColumn: spec.partitionSource ? PARQUET_PARTITION_COLUMN : null,
      columns: storedColumns(spec).map((col) => ({ name: col.name, type: col.type })),
      files,
      updatedAt: new Date().toISOString(),
    },
    runTag,
  );
  crashPoint('manifest-written');
  for (const partition of emptied) {
    await rm(join(tableDir, relativeFile(spec, partition)), { force: true });
    result.filesRemoved += 1;
    if (spec.partitionSource) await rmdir(join(tableDir, yearFolder(partition))).catch(() => undefined);
  }
  if (legacy) await removeLegacyLayout(tableDir);

  await clearDirty(wh, spec, dirtyHere);
  return result;
}

async function clearDirty(wh: Warehouse, spec: TableSpec, partitions: string[]): Promise<void> {
  await wh.query(CLEAR_DIRTY_SQL, [spec.name, partitions]);
}

/**
 * Export the warehouse to Parquet under `outDir`. Readers of `<out>/<table>/**\/*.parquet` see each file old or new, never
 * half of one; a killed export leaves its partitions dirty, so the next export redoes them.
 */
export async function exportParquet(wh: Warehouse, outDir: string, opts: ExportOptions): Promise<ExportSummary> {
  const out = resolve(outDir);
  await assertWritableDir(out);
  await removeStaleStaging(out);
  // A run's merges leave replaced rows' versions in memory until a checkpoint; under the writer's 64 MB limit a sorted
  // COPY of a wide year (campaign_message_series of the demo's second run) then ran out of memory. Checkpoint first.
  await wh.query('CHECKPOINT');
  const tables = (opts.tables ?? TABLE_SPECS.map((s) => s.name)).map(tableSpec);
  const dirty = new Map<string, Set<string>>();
  for (const row of await wh.query(READ_DIRTY_SQL)) {
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


/**
 * Export the loader's bookkeeping tables (series watermarks, run log) whole, as `<out>/etl_series_state/data.parquet`
 * and `<out>/etl_runs/data.parquet`: they are small, and with them the freshness views read the same over Parquet.
 * Call it after the run's end is recorded, so the run log shows the run's outcome.
 */
export async function exportBookkeeping(wh: Warehouse, outDir: string): Promise<void> {
  const out = resolve(outDir);
  const runTag = `${process.pid}-${randomBytes(4).toString('hex')}`;
  // Staged like the tables' files, so a killed export's leftovers are swept by the next export's stale-staging pass.
  const stagingDir = join(out, `${STAGING_PREFIX}${runTag}`);
  ACTIVE_STAGING.add(stagingDir);
  try {
    await mkdir(stagingDir, { recursive: true });
    for (const { table, folder } of BOOKKEEPING_EXPORTS) {
      const staged = join(stagingDir, `${folder}.${DATA_FILE}.part`);
      const [row] = await wh.query(`COPY (SELECT * FROM ${ident(table)}) TO ${sqlString(staged)} (FORMAT parquet, COMPRESSION zstd)`);
      const file = join(out, folder, DATA_FILE);
      await mkdir(join(out, folder), { recursive: true });
      await rename(staged, file);
      const columns = await wh.query(`SELECT "column_name", "data_type" FROM information_schema.columns WHERE "table_schema" = 'main' AND "table_name" = $1 ORDER BY "ordinal_position"`, [table]);
      await writeManifest(out, {
        table: folder, format: 'parquet', compression: 'zstd', partitionColumn: null,
        columns: columns.map((c) => ({ name: c.column_name as string, type: c.data_type as string })),
        files: [{ path: DATA_FILE, partition: null, rows: Number(row?.Count ?? 0), bytes: (await stat(file)).size }],
        updatedAt: new Date().toISOString(),
      }, runTag);
    }
  } finally {
    await rm(stagingDir, { recursive: true, force: true });
    ACTIVE_STAGING.delete(stagingDir);
  }
}
