// The dbt package folder: engage-etl owns two files in it and rewrites only those (sources and the key test), creates
// dbt_project.yml once when it is missing, and leaves every other file alone. An owned path holding a file engage-etl
// did not write (no mark on its first line) stops the command before anything is written, as git refuses to overwrite an
// untracked file.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ConfigError } from '../errors.js';
import { OWNED_MARK } from './dbt-sources.js';
import { UNIQUE_KEY_TEST, uniqueKeyTestSql } from './unique-key-test.js';

/** The files engage-etl rewrites on every run, relative to the package folder. */
export const SOURCES_FILE = 'models/engage_etl_sources.yml';
export const KEY_TEST_FILE = `macros/${UNIQUE_KEY_TEST}.sql`;
/** Created when missing, never rewritten: the project's name, profile and paths are the user's to change. */
export const PROJECT_FILE = 'dbt_project.yml';

const PROJECT_YAML = `# Created by \`engage-etl dbt\` because the folder had none; yours to edit: engage-etl never rewrites it.
# engage-etl rewrites only ${SOURCES_FILE} and ${KEY_TEST_FILE}; add your own models beside them.
name: engage_etl
version: '1.0.0'
config-version: 2
profile: engage_etl
model-paths: [models]
macro-paths: [macros]
`;

export interface PackageOutcome {
  /** Files whose content changed (or that were created), relative to the folder. */
  written: string[];
  /** Owned files already holding exactly this content (left as they were, modification time included). */
  unchanged: string[];
}

/** Write the package into `dir` (created if missing). */
export async function writeDbtPackage(dir: string, sourcesYaml: string): Promise<PackageOutcome> {
  const owned: [string, string][] = [
    [SOURCES_FILE, sourcesYaml],
    [KEY_TEST_FILE, uniqueKeyTestSql(OWNED_MARK)],
  ];
  const current = new Map<string, string | undefined>();
  for (const [path] of owned) {
    const text = await readIfThere(join(dir, path));
    if (text !== undefined && !(text.split('\n', 1)[0] ?? '').includes(OWNED_MARK)) {
      throw new ConfigError(
        '--output',
        `${join(dir, path)} exists and was not written by engage-etl dbt (its first line lacks "${OWNED_MARK}"); nothing was written. Move that file away or choose another --output`,
      );
    }
    current.set(path, text);
  }
  const outcome: PackageOutcome = { written: [], unchanged: [] };
  if ((await readIfThere(join(dir, PROJECT_FILE))) === undefined) {
    await writeAtomically(join(dir, PROJECT_FILE), PROJECT_YAML);
    outcome.written.push(PROJECT_FILE);
  }
  for (const [path, text] of owned) {
    if (current.get(path) === text) {
      outcome.unchanged.push(path);
      continue;
    }
    await writeAtomically(join(dir, path), text);
    outcome.written.push(path);
  }
  return outcome;
}

async function readIfThere(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** A reader (dbt's parser, an editor) sees the old file or the new one, never half of it. */
async function writeAtomically(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const aside = `${path}.${process.pid}.tmp`;
  await writeFile(aside, text);
  await rename(aside, path);
}
