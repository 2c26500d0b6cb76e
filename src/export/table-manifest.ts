// The manifest of an exported table, `<out>/manifests/<table>.json`: every Parquet file with its partition, rows and
// bytes. It sits outside the table's folder so a `<table>/*` glob never meets it. Written to a temp file and renamed,
// so a reader sees the old or the new manifest whole.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MANIFEST_DIR } from './parquet-layout.js';
import { writeFileAtomically } from '../process/write-file-atomically.js';

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
}

const manifestPath = (outDir: string, table: string): string => join(outDir, MANIFEST_DIR, `${table}.json`);

/** The manifest's path as messages show it, relative to the output folder: `manifests/<table>.json`. */
export const manifestName = (table: string): string => `${MANIFEST_DIR}/${table}.json`;

/** A manifest being written: `<table>.json.<pid>-<hex>.tmp` in the manifests folder. */
export const MANIFEST_TEMP = /^.+\.json\.(\d+)-[0-9a-f]+\.tmp$/;

/** A table's manifest as found on disk: absent, present but unusable (the reason), or whole. */
export type ManifestReading = { state: 'missing' } | { state: 'damaged'; reason: string } | { state: 'ok'; manifest: TableManifest };

function shapeProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'it is not a JSON object';
  const files = (value as { files?: unknown }).files;
  if (!Array.isArray(files)) return '"files" is not a list';
  for (const [i, f] of files.entries()) {
    const file = f as Partial<ManifestFile> | null;
    const ok = typeof file === 'object' && file !== null && typeof file.path === 'string' && (file.partition === null || typeof file.partition === 'string') &&
      Number.isFinite(file.rows) && Number.isFinite(file.bytes);
    if (!ok) return `files[${i}] is not {path, partition, rows, bytes}`;
  }
  return undefined;
}

/** Read and check the table's manifest: JSON of the shape TableManifest, every file entry complete. */
export async function inspectManifest(outDir: string, table: string): Promise<ManifestReading> {
  const name = manifestName(table);
  let text: string;
  try {
    text = await readFile(manifestPath(outDir, table), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' };
    return { state: 'damaged', reason: `${name} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { state: 'damaged', reason: `${name} is not JSON` };
  }
  const problem = shapeProblem(value);
  return problem ? { state: 'damaged', reason: `${name} has the wrong shape: ${problem}` } : { state: 'ok', manifest: value as TableManifest };
}

/** The table's current manifest, or undefined when there is none or it is damaged (it is rebuilt from the files). */
export async function readManifest(outDir: string, table: string): Promise<TableManifest | undefined> {
  const reading = await inspectManifest(outDir, table);
  return reading.state === 'ok' ? reading.manifest : undefined;
}

export async function writeManifest(outDir: string, manifest: TableManifest, tempSuffix: string): Promise<void> {
  const final = manifestPath(outDir, manifest.table);
  await writeFileAtomically(final, `${JSON.stringify(manifest, null, 2)}\n`, `${final}.${tempSuffix}.tmp`);
}
