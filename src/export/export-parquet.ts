// Parquet export of the warehouse through DuckDB COPY, in the layout of parquet-layout.ts — year partitions
// (`<table>/year=YYYY/…parquet`) for tables with a time column, one file for the rest — published into a Place (a local
// folder or an object-store prefix; the export does not know which). Per table: the changed partitions are written to
// a staging folder and put in place (in parallel, bounded), the manifest follows, then the files the manifest no longer
// names are deleted, and only then are the exported months cleared from `_etl_dirty_partitions`. A table still in the
// old `_month=` layout is rewritten whole and its old files removed. The COPY statements that write Parquet, and the
// read of a placed file's row count, are the export's own SQL and live here; the book of partitions it reads and clears
// is load/partition-book.ts.
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FatalError } from '../errors.js';
import { PartitionBook, inYearSql } from '../load/partition-book.js';
import { columnsOfTable } from '../load/stored-tables.js';
import type { Warehouse } from '../load/warehouse.js';
import {
  PARTITION_COLUMN,
  TABLE_SPECS,
  WHOLE_TABLE_PARTITION,
  ident,
  sqlString,
  storedColumns,
  tableSpec,
} from '../streams/table-specs.js';
import type { TableName, TableSpec } from '../streams/table-specs.js';
import { crashPoint } from '../process/crash-point.js';
import { isProcessAlive } from '../process/process-alive.js';
import { LocalPlace } from '../store/local-place.js';
import { eachLimited } from '../store/place.js';
import { placeOfWorkspace } from '../store/workspace-place.js';
import type { Place, PlaceObject } from '../store/place.js';
import { assertWritableDir } from './assert-writable-dir.js';
import { findDamage } from './damaged-files.js';
import { claimLake } from './lake-owner.js';
import { partitionsDisagreeing } from './manifest-disagreement.js';
import {
  BOOKKEEPING_EXPORTS,
  DATA_FILE,
  DATA_FILE_NAME,
  LEGACY_MANIFEST,
  LEGACY_MONTH_FOLDER,
  MANIFEST_DIR,
  PARQUET_PARTITION_COLUMN,
  YEAR_FOLDER,
  yearFolder,
} from './parquet-layout.js';
import { MANIFEST_TEMP, inspectManifest, writeManifest } from './table-manifest.js';
import type { ManifestFile, ManifestReading } from './table-manifest.js';

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
  /** The place written: a folder path or `s3://bucket/prefix`. */
  outDir: string;
  /** Damage found and repaired by this export. */
  repaired: ExportRepair[];
  /** Tables whose files or manifest were touched. */
  tables: TableExport[];
  filesWritten: number;
  filesRemoved: number;
  rowsWritten: number;
  /** Files (Parquet and manifests) put into the place, and their bytes. */
  put: { objects: number; bytes: number };
}

const STAGING_PREFIX = '.staging-';
const MONTH = /^\d{4}-\d{2}$/;
/** Files put into the place at once. */
const PUTS_IN_FLIGHT = 4;

// Staging folders of exports still running in this process: a stale-folder sweep must not remove them.
const ACTIVE_STAGING = new Set<string>();

// The probe file of assertWritableDir: `.engage-etl-write-test-<pid>`.
const WRITE_PROBE = /^\.engage-etl-write-test-(\d+)$/;

/**
 * Remove what killed runs left in the scratch folder (a local output folder itself): staging folders, half-written
 * manifest temp files and write probes whose process is gone (or is this process and no export of it uses them).
 * Without this a run killed at the wrong moment leaves temp files forever.
 */
async function removeStaleStaging(dir: string): Promise<void> {
  const stale = (pid: number) => !(pid !== process.pid && Number.isInteger(pid) && isProcessAlive(pid));
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const probe = WRITE_PROBE.exec(entry.name)?.[1];
    if (entry.name.startsWith(STAGING_PREFIX)) {
      const pid = Number(/^\.staging-(\d+)-/.exec(entry.name)?.[1]);
      if (!ACTIVE_STAGING.has(path) && stale(pid)) await rm(path, { recursive: true, force: true });
    } else if (probe !== undefined) {
      if (Number(probe) !== process.pid && stale(Number(probe))) await rm(path, { force: true });
    } else if (entry.isDirectory() && entry.name === MANIFEST_DIR) {
      for (const name of await readdir(path)) {
        const pid = MANIFEST_TEMP.exec(name)?.[1];
        if (pid !== undefined && Number(pid) !== process.pid && stale(Number(pid)))
          await rm(join(path, name), { force: true });
      }
    }
  }
}

/** One export's names: its staging folder and the name its new files get in a place with versioned names. */
interface ExportRun {
  place: Place;
  /** The id of the database being exported, written into every manifest (lake-owner.ts). */
  database: string;
  staging: string;
  /** `data.parquet`, or `data-<UTC time>-<hex>.parquet` where each publish writes new names. */
  fileName: string;
  put: { objects: number; bytes: number };
}

/** A partition's file, relative to its table's folder. */
function relativeFile(spec: TableSpec, partition: string, name: string): string {
  return spec.partitionSource ? `${yearFolder(partition)}/${name}` : name;
}

/** The partition a path relative to the table's folder belongs to, or undefined when it is no data file of the layout. */
function partitionOfPath(spec: TableSpec, path: string, place: Place): string | undefined {
  const parts = path.split('/');
  const name = parts.at(-1)!;
  const isData = place.versionedNames ? DATA_FILE_NAME.test(name) : name === DATA_FILE;
  if (!isData) return undefined;
  if (!spec.partitionSource) return parts.length === 1 ? WHOLE_TABLE_PARTITION : undefined;
  return parts.length === 2 ? YEAR_FOLDER.exec(parts[0]!)?.[1] : undefined;
}

/** A month folder, the manifest, or a manifest temp file a killed export of that layout left. */
const isLegacy = (name: string): boolean => name.startsWith(LEGACY_MANIFEST) || LEGACY_MONTH_FOLDER.test(name);

/** What the place holds of one table: data files by partition, and files of the old layout. */
interface TableObjects {
  /** Data files per partition (one, except where a killed publish of versioned names left more). */
  data: Map<string, (PlaceObject & { path: string })[]>;
  legacy: string[];
}

async function tableObjects(place: Place, spec: TableSpec): Promise<TableObjects> {
  const prefix = `${spec.name}/`;
  const out: TableObjects = { data: new Map(), legacy: [] };
  for (const obj of await place.list(prefix)) {
    const path = obj.key.slice(prefix.length);
    if (isLegacy(path.split('/')[0]!)) {
      out.legacy.push(obj.key);
      continue;
    }
    const partition = partitionOfPath(spec, path, place);
    if (partition === undefined) continue;
    out.data.set(partition, [...(out.data.get(partition) ?? []), { ...obj, path }]);
  }
  return out;
}

/** The year (or the whole-table partition) a dirty month lands in. */
function filePartition(spec: TableSpec, dirtyPartition: string): string {
  return spec.partitionSource ? dirtyPartition.slice(0, 4) : dirtyPartition;
}

async function partitionsToWrite(
  wh: Warehouse,
  spec: TableSpec,
  existing: Iterable<string>,
  scope: 'dirty' | 'all',
  dirty: readonly string[],
): Promise<string[]> {
  const found = new Set<string>(dirty.map((p) => filePartition(spec, p)));
  if (scope === 'all') {
    if (!spec.partitionSource) found.add(WHOLE_TABLE_PARTITION);
    else {
      for (const year of await new PartitionBook(wh).years(spec)) found.add(year);
      for (const year of existing) found.add(year);
    }
  }
  return [...found].sort();
}

/**
 * How every data file is written. Row groups of 32,768 rows, not DuckDB's 122,880: the writer holds a whole row group
 * of every column before it compresses it, and a 46-column table (campaign_message_series) made that most of the
 * export's memory; with the export's single thread (warehouse.ts, EXPORT_THREADS) the smaller groups halve the peak in
 * the same time (docs/decisions.md, "Memory limits of DuckDB, by stage"). Readers lose nothing that matters at these
 * sizes: each row group still has its
 * statistics, and a year of a table stays one file.
 */
const PARQUET_COPY_OPTIONS = 'FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 32768';

/**
 * The order of a partition's rows in its file: the table's first key column (its object: a Canvas, a campaign, an app),
 * then its time. A reader's filter on an object or on its days finds them in few row groups; the rest of the key (a
 * channel, a step, a variation) is left in the table's order, since comparing whole keys of text made the sort several
 * times slower (docs/decisions.md, "Each partition is one COPY").
 */
export function exportOrder(spec: TableSpec): string[] {
  const [first] = spec.key;
  const time = spec.partitionSource;
  return time && spec.key.includes(time) && first !== time ? [first!, time] : [first!];
}

/**
 * A partition is written by one sorted COPY that reads it once. DuckDB's sort spills to the database's temp folder
 * beyond the export's memory limit (EXPORT_MEMORY_LIMIT in warehouse.ts), so what it holds is that limit whatever the
 * partition's size or the shape of its ids.
 */
async function copyPartition(wh: Warehouse, spec: TableSpec, partition: string, file: string): Promise<number> {
  const order = exportOrder(spec).map(ident).join(', ');
  const columns = spec.partitionSource ? `* EXCLUDE (${ident(PARTITION_COLUMN)})` : '*';
  const where = inYearSql(spec, partition);
  // The export's own SQL: a COPY that writes Parquet, not a read of bookkeeping.
  const [row] = await wh.query(
    `COPY (SELECT ${columns} FROM ${ident(spec.name)} WHERE ${where} ORDER BY ${order}) TO ${sqlString(file)} (${PARQUET_COPY_OPTIONS})`,
  );
  return Number(row?.Count ?? 0);
}

/** Rows of a file already in the place that no manifest counts: read into the staging folder and counted there. */
async function placedFileRows(wh: Warehouse, run: ExportRun, key: string): Promise<number> {
  const bytes = await run.place.read(key);
  if (!bytes) return 0;
  const local = join(run.staging, `count-${randomBytes(4).toString('hex')}.parquet.part`);
  await writeFile(local, bytes);
  try {
    // A Parquet file's own metadata, read by DuckDB: no table of the database is involved.
    const [row] = await wh.query(`SELECT sum("num_rows") AS n FROM parquet_file_metadata(${sqlString(local)})`);
    return Number(row?.n ?? 0);
  } finally {
    await rm(local, { force: true });
  }
}

async function putFile(run: ExportRun, key: string, file: string): Promise<number> {
  const bytes = (await stat(file)).size;
  await run.place.put(key, file);
  run.put.objects += 1;
  run.put.bytes += bytes;
  return bytes;
}

/** Staged partition files waiting to be put: partition → staged path and rows. */
interface Staged {
  partition: string;
  file: string;
  rows: number;
}

/**
 * Files the manifest names that the listing lacks, confirmed by reading their last bytes at the size the manifest
 * records: a store whose LIST lags behind its writes (eventually consistent listings, some caches) must not make the
 * export take its own current files for lost ones, rewrite them, and leave them unnamed.
 */
async function addUnlistedNamedFiles(
  place: Place,
  spec: TableSpec,
  objects: TableObjects,
  reading: ManifestReading,
): Promise<void> {
  if (reading.state !== 'ok') return;
  const listed = new Set([...objects.data.values()].flat().map((f) => f.path));
  const unlisted = reading.manifest.files.filter((f) => !listed.has(f.path) && f.bytes >= 8);
  await eachLimited(unlisted, PUTS_IN_FLIGHT, async (f) => {
    const partition = partitionOfPath(spec, f.path, place);
    const key = `${spec.name}/${f.path}`;
    const tail = partition === undefined ? undefined : await place.read(key, { start: f.bytes - 8, end: f.bytes });
    if (partition === undefined || tail?.length !== 8) return;
    objects.data.set(partition, [...(objects.data.get(partition) ?? []), { key, bytes: f.bytes, path: f.path }]);
  });
}

async function exportTable(
  wh: Warehouse,
  spec: TableSpec<TableName>,
  run: ExportRun,
  scope: 'dirty' | 'all',
  dirty: Map<string, Set<string>>,
  repaired: ExportRepair[],
): Promise<TableExport | undefined> {
  const { place } = run;
  const dirtyHere = [...(dirty.get(spec.name) ?? [])];
  for (const p of dirtyHere) {
    if (spec.partitionSource ? !MONTH.test(p) : p !== WHOLE_TABLE_PARTITION) {
      const expected = spec.partitionSource ? 'a YYYY-MM month' : "'' (the table is one file)";
      throw new FatalError(
        `_etl_dirty_partitions names partition "${p}" of ${spec.name}, expected ${expected}; delete that row and export with scope 'all'`,
      );
    }
  }
  const objects = await tableObjects(place, spec);
  const reading = await inspectManifest(place, spec.name);
  await addUnlistedNamedFiles(place, spec, objects, reading);
  const named = new Set(reading.state === 'ok' ? reading.manifest.files.map((f) => f.path) : []);
  // The current file of each partition: the one the manifest names; where the manifest names none, the single file of a
  // folder (keeping one name per partition) — more than one unnamed file is a killed publish's, rewritten below.
  const current = new Map<string, PlaceObject & { path: string }>();
  const unsure = new Set<string>();
  for (const [partition, files] of objects.data) {
    const chosen = files.find((f) => named.has(f.path)) ?? (place.versionedNames ? undefined : files[0]);
    if (chosen) current.set(partition, chosen);
    else unsure.add(partition);
  }
  // A table in the old layout is rewritten whole in the new one; its old files go once the new manifest is in place.
  const legacy = objects.legacy.length > 0;
  const planned = await partitionsToWrite(wh, spec, objects.data.keys(), legacy ? 'all' : scope, dirtyHere);
  // A table being migrated is rewritten whole anyway: what its new-layout files look like meanwhile is no damage.
  const damage = legacy
    ? undefined
    : await findDamage(place, spec.name, current, reading, new Set(planned), (path) =>
        partitionOfPath(spec, path, place),
      );
  if (damage && reading.state === 'ok') {
    for (const [partition, problem] of await partitionsDisagreeing(
      wh,
      spec,
      reading.manifest,
      new Set([...planned, ...damage.partitions]),
    )) {
      damage.partitions.add(partition);
      damage.problems.push(problem);
    }
  }
  if (damage && damage.problems.length > 0) repaired.push({ table: spec.name, problems: damage.problems });
  const partitions = [...new Set([...planned, ...(damage?.partitions ?? []), ...unsure])].sort();
  // Files no manifest will name: left by a publish killed before its manifest, or replaced by one killed before its deletes.
  const orphans = [...objects.data.values()]
    .flat()
    .filter((f) => place.versionedNames && !named.has(f.path))
    .map((f) => f.key);
  if (partitions.length === 0 && !damage?.manifestDamaged) {
    if (orphans.length > 0) await place.delete(orphans);
    return undefined;
  }
  const result: TableExport = { table: spec.name, filesWritten: 0, filesRemoved: 0, rowsWritten: 0 };
  const written = new Map<string, ManifestFile>();
  // Partitions that became empty: their files go only after the new manifest stops naming them, so no reader ever finds
  // a manifest that names a missing file.
  const emptied = new Set<string>();
  const stagedTable = join(run.staging, spec.name);
  await mkdir(stagedTable, { recursive: true });

  const staged: Staged[] = [];
  for (const partition of partitions) {
    // The staged name does not end in .parquet, so no `*.parquet` glob ever reads a half-written file.
    const file = join(stagedTable, `${partition || 'table'}.${DATA_FILE}.part`);
    const rows = await copyPartition(wh, spec, partition, file);
    if (rows === 0) {
      await rm(file, { force: true });
      if (objects.data.has(partition)) emptied.add(partition);
      continue;
    }
    crashPoint('parquet-staged');
    staged.push({ partition, file, rows });
  }
  await eachLimited(staged, PUTS_IN_FLIGHT, async ({ partition, file, rows }) => {
    const rel = relativeFile(spec, partition, run.fileName);
    const bytes = await putFile(run, `${spec.name}/${rel}`, file);
    crashPoint('parquet-placed');
    written.set(partition, { path: rel, partition: spec.partitionSource ? partition : null, rows, bytes });
    result.filesWritten += 1;
    result.rowsWritten += rows;
  });

  // A table never exported and still empty gets no files at all.
  if (objects.data.size === 0 && objects.legacy.length === 0 && written.size === 0 && reading.state === 'missing') {
    await clearDirty(wh, spec, dirtyHere);
    return result;
  }

  // The manifest lists exactly the table's current files: rewritten ones, plus untouched ones carried over (recounted
  // when the old manifest does not know them or their size changed).
  const previous = new Map(reading.state === 'ok' ? reading.manifest.files.map((f) => [f.path, f]) : []);
  const files: ManifestFile[] = [...written.values()];
  for (const [partition, file] of current) {
    if (emptied.has(partition) || written.has(partition)) continue;
    const old = previous.get(file.path);
    files.push(
      old && old.bytes === file.bytes
        ? old
        : {
            path: file.path,
            partition: spec.partitionSource ? partition : null,
            rows: await placedFileRows(wh, run, file.key),
            bytes: file.bytes,
          },
    );
  }
  files.sort((a, b) => a.path.localeCompare(b.path));
  await writeManifest(
    place,
    {
      table: spec.name,
      format: 'parquet',
      compression: 'zstd',
      partitionColumn: spec.partitionSource ? PARQUET_PARTITION_COLUMN : null,
      columns: storedColumns(spec).map((col) => ({ name: col.name, type: col.type })),
      files,
      updatedAt: new Date().toISOString(),
      database: run.database,
    },
    run.staging,
  );
  run.put.objects += 1;
  crashPoint('manifest-written');
  // Now that the manifest names the new files: the files of emptied partitions, the replaced ones (under their old
  // names) and any a killed publish left go.
  const keep = new Set(files.map((f) => `${spec.name}/${f.path}`));
  const obsolete = [...objects.data.values()]
    .flat()
    .map((f) => f.key)
    .filter((key) => !keep.has(key));
  await place.delete([...obsolete, ...objects.legacy]);
  result.filesRemoved += [...emptied].length;

  await clearDirty(wh, spec, dirtyHere);
  return result;
}

async function clearDirty(wh: Warehouse, spec: TableSpec, partitions: string[]): Promise<void> {
  await new PartitionBook(wh).clear(spec.name, partitions);
}

/** A place given as a folder path is a LocalPlace, checked writable first: its share without workspace. */
async function placeOf(out: Place | string): Promise<Place> {
  if (typeof out !== 'string') return out;
  await assertWritableDir(out);
  return placeOfWorkspace(new LocalPlace(out), undefined);
}

/**
 * A publish's names: new file names where the place keeps versions, a staging folder in the scratch folder. Checks first
 * that the place is this database's to publish into (lake-owner.ts): a ConfigError before anything is touched if not.
 */
async function beginExport(wh: Warehouse, place: Place): Promise<ExportRun> {
  const database = await claimLake(wh, place);
  await mkdir(place.scratchDir, { recursive: true });
  await removeStaleStaging(place.scratchDir);
  const tag = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const staging = join(place.scratchDir, `${STAGING_PREFIX}${tag}`);
  ACTIVE_STAGING.add(staging);
  await mkdir(staging);
  const time = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const fileName = place.versionedNames ? `data-${time}-${randomBytes(4).toString('hex')}.parquet` : DATA_FILE;
  return { place, database, staging, fileName, put: { objects: 0, bytes: 0 } };
}

async function endExport(run: ExportRun): Promise<void> {
  await rm(run.staging, { recursive: true, force: true });
  ACTIVE_STAGING.delete(run.staging);
}

/**
 * Export the warehouse to Parquet in `out` (a Place, or a local folder's path). Readers following the manifests see
 * each table's previous files or its new ones, never a mix and never half a file; readers of `<table>/**\/*.parquet` in a
 * folder see each file old or new. A killed export leaves its partitions dirty, so the next export redoes them and
 * removes what it left.
 */
export async function exportParquet(wh: Warehouse, out: Place | string, opts: ExportOptions): Promise<ExportSummary> {
  const place = await placeOf(out);
  // A run's merges leave replaced rows' versions in memory until a checkpoint, and a sorted COPY of a wide year beside
  // them can run out of the limit. Checkpoint first.
  await wh.checkpoint();
  const tables = (opts.tables ?? TABLE_SPECS.map((s) => s.name)).map(tableSpec);
  const dirty = await new PartitionBook(wh).dirty();

  const run = await beginExport(wh, place);
  const summary: ExportSummary = {
    outDir: place.description,
    repaired: [],
    tables: [],
    filesWritten: 0,
    filesRemoved: 0,
    rowsWritten: 0,
    put: run.put,
  };
  try {
    for (const spec of tables) {
      const done = await exportTable(wh, spec, run, opts.scope, dirty, summary.repaired);
      if (!done) continue;
      summary.tables.push(done);
      summary.filesWritten += done.filesWritten;
      summary.filesRemoved += done.filesRemoved;
      summary.rowsWritten += done.rowsWritten;
    }
  } finally {
    await endExport(run);
  }
  return summary;
}

/**
 * Export the loader's bookkeeping tables (series watermarks, run log, holes) whole, as `etl_series_state/…parquet`,
 * `etl_runs/…parquet` and `etl_holes/…parquet` with their manifests: they are small, and with them the freshness views
 * read the same over Parquet. Call it after the run's end is recorded, so the run log shows the run's outcome.
 */
export async function exportBookkeeping(
  wh: Warehouse,
  out: Place | string,
): Promise<{ objects: number; bytes: number }> {
  const place = await placeOf(out);
  const run = await beginExport(wh, place);
  try {
    for (const { table, folder } of BOOKKEEPING_EXPORTS) {
      // Only this folder's own data files: anything deeper (another workspace's `workspace=…/`) is not this export's.
      const before = (await place.list(`${folder}/`)).filter((o) =>
        DATA_FILE_NAME.test(o.key.slice(folder.length + 1)),
      );
      const staged = join(run.staging, `${folder}.${DATA_FILE}.part`);
      // The export's own SQL: a COPY of the whole table to Parquet, whichever store writes its rows.
      const [row] = await wh.query(
        `COPY (SELECT * FROM ${ident(table)}) TO ${sqlString(staged)} (${PARQUET_COPY_OPTIONS})`,
      );
      const bytes = await putFile(run, `${folder}/${run.fileName}`, staged);
      const columns = await columnsOfTable(wh, table);
      await writeManifest(
        place,
        {
          table: folder,
          format: 'parquet',
          compression: 'zstd',
          partitionColumn: null,
          columns,
          files: [{ path: run.fileName, partition: null, rows: Number(row?.Count ?? 0), bytes }],
          updatedAt: new Date().toISOString(),
          database: run.database,
        },
        run.staging,
      );
      run.put.objects += 1;
      // The previous file (another name where names are versioned) goes once the manifest names the new one.
      await place.delete(before.map((o) => o.key).filter((key) => key !== `${folder}/${run.fileName}`));
    }
  } finally {
    await endExport(run);
  }
  return run.put;
}
