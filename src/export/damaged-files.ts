// What a person or a failed disk did to an exported table behind the export's back: a manifest that is not JSON or not of
// its shape, a Parquet file cut short or overwritten, a file the manifest names that is gone. Found cheaply (a stat and
// 8 bytes per file) on every export, so the next `run` rewrites them from DuckDB instead of failing on them.
import { existsSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { inspectManifest, manifestName } from './table-manifest.js';

/** What is wrong with one table's folder: partitions to rewrite from DuckDB, and whether its manifest must be rebuilt. */
export interface TableDamage {
  /** Partitions (`YYYY`, or '' for a single-file table) whose file must be rewritten. */
  partitions: Set<string>;
  manifestDamaged: boolean;
  /** One phrase per problem, for the run's warning. */
  problems: string[];
}

const MAGIC = 'PAR1';

/** Why `path` is not a whole Parquet file (magic bytes at both ends, a footer that fits), or undefined when it is. */
async function parquetFileProblem(path: string): Promise<string | undefined> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    if (size < 12) return `${size} bytes, too short for Parquet`;
    const head = Buffer.alloc(4);
    const tail = Buffer.alloc(8);
    await handle.read(head, 0, 4, 0);
    await handle.read(tail, 0, 8, size - 8);
    if (head.toString('latin1') !== MAGIC || tail.subarray(4).toString('latin1') !== MAGIC) return 'no Parquet magic bytes at its start or end (truncated or overwritten)';
    if (tail.readUInt32LE(0) > size - 12) return 'its footer is longer than the file (truncated)';
    return undefined;
  } finally {
    await handle.close();
  }
}

/**
 * Damage in `table` (its folder `tableDir`, its manifest in `<outDir>/manifests/`), given the partitions with a file on
 * disk (`relativeFile` maps one to its path) and those already dirty (about to be rewritten anyway: a size that differs
 * from the manifest is then a killed export, not damage).
 */
export async function findDamage(outDir: string, table: string, tableDir: string, onDisk: string[], dirty: ReadonlySet<string>, relativeFile: (partition: string) => string): Promise<TableDamage> {
  const damage: TableDamage = { partitions: new Set(), manifestDamaged: false, problems: [] };
  if (!existsSync(tableDir)) return damage;
  for (const partition of onDisk) {
    const rel = relativeFile(partition);
    const problem = await parquetFileProblem(join(tableDir, rel));
    if (problem) {
      damage.partitions.add(partition);
      damage.problems.push(`${rel}: ${problem}`);
    }
  }
  const manifest = manifestName(table);
  const reading = await inspectManifest(outDir, table);
  if (reading.state === 'damaged') {
    damage.manifestDamaged = true;
    damage.problems.push(reading.reason);
  } else if (reading.state === 'missing' && onDisk.length > 0) {
    damage.manifestDamaged = true;
    damage.problems.push(`${manifest} is missing`);
  } else if (reading.state === 'ok') {
    const byPath = new Map(onDisk.map((p) => [relativeFile(p), p]));
    for (const file of reading.manifest.files) {
      const partition = byPath.get(file.path);
      if (partition === undefined) {
        // A file the manifest names is gone: the partition is rewritten when DuckDB still has its rows, and dropped otherwise.
        damage.manifestDamaged = true;
        if (relativeFile(file.partition ?? '') === file.path) damage.partitions.add(file.partition ?? '');
        damage.problems.push(`${file.path} is named by ${manifest} but missing`);
      } else if (!dirty.has(partition) && !damage.partitions.has(partition) && (await stat(join(tableDir, file.path))).size !== file.bytes) {
        damage.partitions.add(partition);
        damage.problems.push(`${file.path} has ${(await stat(join(tableDir, file.path))).size} bytes, ${manifest} says ${file.bytes}`);
      }
    }
  }
  return damage;
}
