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

/** The table's current manifest, or undefined when there is none (or it cannot be parsed: it is rebuilt from the files). */
export async function readManifest(tableDir: string): Promise<TableManifest | undefined> {
  try {
    return JSON.parse(await readFile(join(tableDir, MANIFEST_NAME), 'utf8')) as TableManifest;
  } catch {
    return undefined;
  }
}

export async function writeManifest(tableDir: string, manifest: TableManifest, tempSuffix: string): Promise<void> {
  const tmp = join(tableDir, `${MANIFEST_NAME}.${tempSuffix}.tmp`);
  await writeFile(tmp, `${JSON.stringify(manifest, null, 2)}\n`);
  await rename(tmp, join(tableDir, MANIFEST_NAME));
}
