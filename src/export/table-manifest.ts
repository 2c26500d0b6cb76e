// The manifest of an exported table, `<out>/manifests/<table>.json`: every Parquet file with its partition, rows and
// bytes. It sits outside the table's folder so a `<table>/*` glob never meets it. Staged as a file and put into its
// place whole (a rename in a folder, one PUT in an object store), so a reader sees the old or the new manifest.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Place } from '../store/place.js';
import { MANIFEST_DIR } from './parquet-layout.js';

export interface ManifestFile {
  /** Relative to the table's folder, with `/` separators, e.g. `year=2024/data.parquet`. */
  path: string;
  /** `YYYY` of a year partition; null for a table exported as one file. */
  partition: string | null;
  rows: number;
  bytes: number;
}

export interface TableManifest {
  table: string;
  format: 'parquet';
  compression: 'zstd';
  /** The hive partition column (`year`), or null for a single-file table. */
  partitionColumn: string | null;
  columns: { name: string; type: string }[];
  files: ManifestFile[];
  /** ISO 8601 time of the export that wrote this manifest. */
  updatedAt: string;
  /**
   * Id of the database that published it (lake-owner.ts): another database's export refuses to replace these files.
   * Absent in manifests written before the id existed.
   */
  database?: string;
}

/** The manifest's key in its place (and its path as messages show it): `manifests/<table>.json`. */
export const manifestName = (table: string): string => `${MANIFEST_DIR}/${table}.json`;

/** A manifest being written by earlier versions: `<table>.json.<pid>-<hex>.tmp` in the manifests folder (swept). */
export const MANIFEST_TEMP = /^.+\.json\.(\d+)-[0-9a-f]+\.tmp$/;

/** A table's manifest as found on disk: absent, present but unusable (the reason), or whole. */
export type ManifestReading =
  | { state: 'missing' }
  | { state: 'damaged'; reason: string }
  | { state: 'ok'; manifest: TableManifest };

function shapeProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'it is not a JSON object';
  const database = (value as { database?: unknown }).database;
  if (database !== undefined && typeof database !== 'string') return '"database" is not a string';
  const files = (value as { files?: unknown }).files;
  if (!Array.isArray(files)) return '"files" is not a list';
  for (const [i, f] of files.entries()) {
    const file = f as Partial<ManifestFile> | null;
    const ok =
      typeof file === 'object' &&
      file !== null &&
      typeof file.path === 'string' &&
      (file.partition === null || typeof file.partition === 'string') &&
      Number.isFinite(file.rows) &&
      Number.isFinite(file.bytes);
    if (!ok) return `files[${i}] is not {path, partition, rows, bytes}`;
  }
  return undefined;
}

/** Read and check the table's manifest: JSON of the shape TableManifest, every file entry complete. */
export async function inspectManifest(place: Place, table: string): Promise<ManifestReading> {
  const name = manifestName(table);
  let text: string;
  try {
    const bytes = await place.read(name);
    if (bytes === undefined) return { state: 'missing' };
    text = bytes.toString('utf8');
  } catch (err) {
    return {
      state: 'damaged',
      reason: `${name} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { state: 'damaged', reason: `${name} is not JSON` };
  }
  const problem = shapeProblem(value);
  return problem
    ? { state: 'damaged', reason: `${name} has the wrong shape: ${problem}` }
    : { state: 'ok', manifest: value as TableManifest };
}

/** The table's current manifest, or undefined when there is none or it is damaged (it is rebuilt from the files). */
export async function readManifest(place: Place, table: string): Promise<TableManifest | undefined> {
  const reading = await inspectManifest(place, table);
  return reading.state === 'ok' ? reading.manifest : undefined;
}

/** Stage the manifest in `stagingDir` and put it in its place. */
export async function writeManifest(place: Place, manifest: TableManifest, stagingDir: string): Promise<void> {
  const staged = join(stagingDir, `${manifest.table}.json.part`);
  await writeFile(staged, `${JSON.stringify(manifest, null, 2)}\n`);
  await place.put(manifestName(manifest.table), staged);
}
