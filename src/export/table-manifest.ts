// The `_manifest.json` of an exported table: every Parquet file with its partition, rows and bytes. Written to a temp
// file and renamed, so a reader sees the old or the new manifest whole.
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const MANIFEST_NAME = '_manifest.json';

export interface ManifestFile {
  /** Relative to the table's folder, with `/` separators, e.g. `_month=2024-03/data.parquet`. */
  path: string;
  /** `YYYY-MM` of a month partition; null for a table exported as one file. */
  partition: string | null;
  rows: number;
  bytes: number;
}

export interface TableManifest {
  table: string;
  format: 'parquet';
  compression: 'zstd';
  /** The hive partition column (`_month`), or null for a single-file table. */
  partitionColumn: string | null;
  columns: { name: string; type: string }[];
  files: ManifestFile[];
  /** ISO 8601 time of the export that wrote this manifest. */
  updatedAt: string;
}

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
export async function inspectManifest(tableDir: string): Promise<ManifestReading> {
  let text: string;
  try {
    text = await readFile(join(tableDir, MANIFEST_NAME), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' };
    return { state: 'damaged', reason: `${MANIFEST_NAME} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { state: 'damaged', reason: `${MANIFEST_NAME} is not JSON` };
  }
  const problem = shapeProblem(value);
  return problem ? { state: 'damaged', reason: `${MANIFEST_NAME} has the wrong shape: ${problem}` } : { state: 'ok', manifest: value as TableManifest };
}

/** The table's current manifest, or undefined when there is none or it is damaged (it is rebuilt from the files). */
export async function readManifest(tableDir: string): Promise<TableManifest | undefined> {
  const reading = await inspectManifest(tableDir);
  return reading.state === 'ok' ? reading.manifest : undefined;
}

export async function writeManifest(tableDir: string, manifest: TableManifest, tempSuffix: string): Promise<void> {
  const tmp = join(tableDir, `${MANIFEST_NAME}.${tempSuffix}.tmp`);
  await writeFile(tmp, `${JSON.stringify(manifest, null, 2)}\n`);
  await rename(tmp, join(tableDir, MANIFEST_NAME));
}
