// The manifest of an exported table, `<out>/manifests/<table>.json`: every Parquet file with its partition, rows and
// bytes. It sits outside the table's folder so a `<table>/*` glob never meets it. Written to a temp file and renamed,
// so a reader sees the old or the new manifest whole.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
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
}

export const manifestPath = (outDir: string, table: string): string => join(outDir, MANIFEST_DIR, `${table}.json`);

/** A manifest being written: `<table>.json.<pid>-<hex>.tmp` in the manifests folder. */
export const MANIFEST_TEMP = /^.+\.json\.(\d+)-[0-9a-f]+\.tmp$/;

/** The table's current manifest, or undefined when there is none (or it cannot be parsed: it is rebuilt from the files). */
export async function readManifest(outDir: string, table: string): Promise<TableManifest | undefined> {
  try {
    return JSON.parse(await readFile(manifestPath(outDir, table), 'utf8')) as TableManifest;
  } catch {
    return undefined;
  }
}

export async function writeManifest(outDir: string, manifest: TableManifest, tempSuffix: string): Promise<void> {
  const final = manifestPath(outDir, manifest.table);
  const tmp = `${final}.${tempSuffix}.tmp`;
  await mkdir(join(outDir, MANIFEST_DIR), { recursive: true });
  await writeFile(tmp, `${JSON.stringify(manifest, null, 2)}\n`);
  await rename(tmp, final);
}
