// What a person or a failed disk did to an exported table behind the export's back: a manifest that is not JSON or not of
// its shape, a Parquet file cut short or overwritten, a file the manifest names that is gone. Found cheaply (the listing's
// sizes and 12 bytes per file) on every export, so the next `run` rewrites them from DuckDB instead of failing on them.
import type { Place, PlaceObject } from '../store/place.js';
import { eachLimited } from '../store/place.js';
import type { ManifestReading } from './table-manifest.js';
import { manifestName } from './table-manifest.js';

/** What is wrong with one table's files: partitions to rewrite from DuckDB, and whether its manifest must be rebuilt. */
export interface TableDamage {
  /** Partitions (`YYYY`, or '' for a single-file table) whose file must be rewritten. */
  partitions: Set<string>;
  manifestDamaged: boolean;
  /** One phrase per problem, for the run's warning. */
  problems: string[];
}

const MAGIC = 'PAR1';
const CHECKS_IN_FLIGHT = 8;

/** Why the object is not a whole Parquet file (magic bytes at both ends, a footer that fits), or undefined when it is. */
async function parquetFileProblem(place: Place, file: PlaceObject): Promise<string | undefined> {
  const size = file.bytes;
  if (size < 12) return `${size} bytes, too short for Parquet`;
  const head = await place.read(file.key, { start: 0, end: 4 });
  const tail = await place.read(file.key, { start: size - 8, end: size });
  if (!head || !tail || tail.length < 8) return 'gone or shorter than listed while it was checked';
  if (head.toString('latin1') !== MAGIC || tail.subarray(4).toString('latin1') !== MAGIC)
    return 'no Parquet magic bytes at its start or end (truncated or overwritten)';
  if (tail.readUInt32LE(0) > size - 12) return 'its footer is longer than the file (truncated)';
  return undefined;
}

/**
 * Damage in `table`, given its current files (partition → the object in the place, `path` its key relative to the
 * table's folder; `partitionOf` reads a partition from such a path, undefined for a path outside the layout), its manifest as read, and the partitions already dirty (about to be rewritten anyway: a size that
 * differs from the manifest is then a killed export, not damage).
 */
export async function findDamage(
  place: Place,
  table: string,
  current: ReadonlyMap<string, PlaceObject & { path: string }>,
  reading: ManifestReading,
  dirty: ReadonlySet<string>,
  partitionOf: (path: string) => string | undefined,
): Promise<TableDamage> {
  const damage: TableDamage = { partitions: new Set(), manifestDamaged: false, problems: [] };
  const checked = [...current];
  const problems = new Map<string, string>();
  await eachLimited(checked, CHECKS_IN_FLIGHT, async ([partition, file]) => {
    const problem = await parquetFileProblem(place, file);
    if (problem) problems.set(partition, `${file.path}: ${problem}`);
  });
  for (const [partition] of checked) {
    const problem = problems.get(partition);
    if (problem) {
      damage.partitions.add(partition);
      damage.problems.push(problem);
    }
  }
  const manifest = manifestName(table);
  if (reading.state === 'damaged') {
    damage.manifestDamaged = true;
    damage.problems.push(reading.reason);
  } else if (reading.state === 'missing' && current.size > 0) {
    damage.manifestDamaged = true;
    damage.problems.push(`${manifest} is missing`);
  } else if (reading.state === 'ok') {
    const byPath = new Map([...current].map(([p, f]) => [f.path, { partition: p, file: f }]));
    for (const file of reading.manifest.files) {
      const found = byPath.get(file.path);
      if (found === undefined) {
        // A file the manifest names is gone: the partition is rewritten when DuckDB still has its rows, and dropped otherwise.
        damage.manifestDamaged = true;
        const partition = partitionOf(file.path);
        if (partition !== undefined) damage.partitions.add(partition);
        damage.problems.push(`${file.path} is named by ${manifest} but missing`);
      } else if (
        !dirty.has(found.partition) &&
        !damage.partitions.has(found.partition) &&
        found.file.bytes !== file.bytes
      ) {
        damage.partitions.add(found.partition);
        damage.problems.push(`${file.path} has ${found.file.bytes} bytes, ${manifest} says ${file.bytes}`);
      }
    }
  }
  return damage;
}
