// The database readers open and the one the writer works on. `--db data/engage.duckdb` is a published, read-only-in-spirit
// snapshot of the last successful run; `run`, `export` and `push` write a private working copy beside it
// (`data/.engage.duckdb.work`) and publish it atomically when they succeed, so a BI tool's open connection never blocks
// the writer and the writer never blocks readers (docs/decisions.md, "Readers beside the nightly run").
import { randomBytes } from 'node:crypto';
import { constants, existsSync } from 'node:fs';
import { copyFile, link, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { FatalError, NoSnapshotError } from '../errors.js';
import { crashPoint } from '../process/crash-point.js';
import { isProcessAlive } from '../process/process-alive.js';
import { checkDatabaseFile } from '../load/database-file.js';
import { Warehouse } from '../load/warehouse.js';
import { WAREHOUSE_TABLES } from '../streams/table-specs.js';
import { writeFileAtomically } from '../process/write-file-atomically.js';

/** The files of one database: what readers open, what the writer works on, and the record of the last publish. */
export interface SnapshotFiles {
  /** `--db`: the file users and BI tools open; replaced whole after each successful run, export or push. */
  published: string;
  /** `.<name>.work` beside it: the writer's own file, holding everything committed, successful run or not. */
  working: string;
  /** `.<name>.published`: size, mtime and inode of the published file as the last publish left it. */
  stamp: string;
  /** `.<name>.last-run.json`: the outcome of the latest run, failed ones included (the published file shows successes). */
  lastRun: string;
}

/** Something the writer did to the files on its own and tells the user (a run reports it as a warning). */
export interface SnapshotNote {
  code: 'snapshot_adopted' | 'snapshot_replaced' | 'checkpoint_resumed' | 'checkpoint_discarded' | 'checkpoint_failed';
  message: string;
}

export function snapshotFiles(db: string): SnapshotFiles {
  const published = resolve(db);
  const hidden = join(dirname(published), `.${basename(published)}`);
  return { published, working: `${hidden}.work`, stamp: `${hidden}.published`, lastRun: `${hidden}.last-run.json` };
}

// A copy in progress: `.<name>.<pid>-<hex>.part`, renamed into place when complete (the working copy or the published file).
function partPattern(files: SnapshotFiles): RegExp {
  const name = basename(files.published).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^\\.${name}\\.(\\d+)-[0-9a-f]+\\.part$`);
}

function partPath(files: SnapshotFiles): string {
  return join(
    dirname(files.published),
    `.${basename(files.published)}.${process.pid}-${randomBytes(4).toString('hex')}.part`,
  );
}

async function fileStamp(path: string): Promise<string> {
  const s = await stat(path);
  return `${s.size}:${s.mtimeMs}:${s.ino}`;
}

/** The stamps of the published file the last publish left (two while a publish is between recording and renaming). */
async function recordedStamps(files: SnapshotFiles): Promise<string[] | undefined> {
  try {
    const value = JSON.parse(await readFile(files.stamp, 'utf8')) as { published?: unknown };
    return Array.isArray(value.published) ? value.published.map(String) : undefined;
  } catch {
    return undefined;
  }
}

async function writeStamp(files: SnapshotFiles, stamps: string[]): Promise<void> {
  await writeFileAtomically(files.stamp, `${JSON.stringify({ published: stamps })}\n`, partPath(files));
}

/** True when the published file is not what the last publish left: another program wrote to it since. */
async function changedSincePublish(files: SnapshotFiles): Promise<boolean> {
  const recorded = await recordedStamps(files);
  return recorded !== undefined && !recorded.includes(await fileStamp(files.published));
}

async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Copy `from` to `to` so that `to` is, at every moment and after any crash, either its old self or a complete copy:
 * copied to a `.part` file beside it (a reflink where the file system offers one), flushed, renamed, folder flushed.
 */
async function copyAtomically(
  files: SnapshotFiles,
  from: string,
  to: string,
  beforeRename?: (part: string) => Promise<void>,
): Promise<void> {
  const part = partPath(files);
  try {
    await copyFile(from, part, constants.COPYFILE_FICLONE);
    await fsyncPath(part);
    await beforeRename?.(part);
    crashPoint('snapshot-copied');
    await rename(part, to);
  } catch (err) {
    await unlink(part).catch(() => undefined);
    throw err;
  }
  await fsyncPath(dirname(to));
}

function refuseWal(files: SnapshotFiles): void {
  const wal = `${files.published}.wal`;
  if (existsSync(wal)) {
    throw new FatalError(
      `${files.published} has an unfinished write-ahead log (${wal}): another program is writing to it or crashed while writing; ` +
        'close that program (or open the file once with duckdb and quit, which finishes the log) and run again',
    );
  }
}

/** Remove copies left by a writer that was killed mid-copy. Call only while holding the run lock. */
async function removeDeadParts(files: SnapshotFiles): Promise<void> {
  const pattern = partPattern(files);
  for (const entry of await readdir(dirname(files.published))) {
    const pid = Number(pattern.exec(entry)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || isProcessAlive(pid)) continue;
    await unlink(join(dirname(files.published), entry)).catch(() => undefined);
  }
}

/** Refuse, before copying anything, a --db that is a folder or not a DuckDB database. */
const checkPublishedFile = (files: SnapshotFiles): Promise<void> => checkDatabaseFile(files.published, files.published);

/** Make a copy of the published file the working copy. */
async function adopt(files: SnapshotFiles): Promise<void> {
  await checkPublishedFile(files);
  refuseWal(files);
  // The old working copy's log belongs to the file being replaced: left there, DuckDB would replay it into the new one.
  await unlink(`${files.working}.wal`).catch(() => undefined);
  await copyAtomically(files, files.published, files.working);
  await writeStamp(files, [await fileStamp(files.published)]);
}

/**
 * Make the working copy ready for a writer and return its path. Call while holding the run lock of `db`, before opening
 * it. A database from before published snapshots (only `db` exists) is adopted as the working copy; so is a published
 * file another program wrote to since the last publish (its changes — e.g. a table of your own — are kept; what failed
 * runs had committed since is fetched again). Otherwise the working copy carries on where the last writer stopped.
 */
export async function prepareWorkingCopy(db: string): Promise<{ files: SnapshotFiles; notes: SnapshotNote[] }> {
  const files = snapshotFiles(db);
  const notes: SnapshotNote[] = [];
  await removeDeadParts(files);
  if (!existsSync(files.published)) return { files, notes };
  if (existsSync(files.working)) await checkPublishedFile(files);
  if (!existsSync(files.working)) {
    await adopt(files);
    notes.push({
      code: 'snapshot_adopted',
      message: `adopted ${files.published} as the working copy ${files.working}; readers keep opening ${files.published}`,
    });
  } else if (await changedSincePublish(files)) {
    await adopt(files);
    notes.push({
      code: 'snapshot_adopted',
      message: `${files.published} was changed by another program since engage-etl last published it; adopted it as the working copy so those changes are kept (anything a failed run had loaded since is fetched again)`,
    });
  }
  return { files, notes };
}

/** Open the working copy for writing: prepareWorkingCopy, then Warehouse.open on it. Call while holding the run lock. */
export async function openWorkingCopy(
  db: string,
): Promise<{ warehouse: Warehouse; files: SnapshotFiles; notes: SnapshotNote[] }> {
  const { files, notes } = await prepareWorkingCopy(db);
  return { warehouse: await Warehouse.open(files.working, WAREHOUSE_TABLES), files, notes };
}

/**
 * Publish the working copy: CHECKPOINT (everything into the main file, the WAL emptied), copy it beside `db`, flush,
 * rename over `db`. A reader holding the old file keeps reading it whole; one opening `db` afterwards sees the new state.
 * A published file another program changed during the run is kept as `<db>.replaced-<time>` instead of being lost.
 */
export async function publishSnapshot(
  working: Warehouse,
  db: string,
): Promise<{ bytes: number; notes: SnapshotNote[] }> {
  const files = snapshotFiles(db);
  if (working.path !== files.working) {
    throw new FatalError(
      `publishing ${files.published} needs its working copy ${files.working} open, not ${working.path}; open it with openWorkingCopy`,
    );
  }
  const notes: SnapshotNote[] = [];
  await working.checkpoint();
  if (existsSync(files.published) && (await changedSincePublish(files))) {
    const aside = `${files.published}.replaced-${new Date()
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z')}`;
    await link(files.published, aside);
    notes.push({
      code: 'snapshot_replaced',
      message: `${files.published} was changed by another program during this run; that version is kept as ${aside}`,
    });
  }
  // A WAL beside the published file belongs to the file being replaced: left there, DuckDB would replay it into the new one.
  await unlink(`${files.published}.wal`).catch(() => undefined);
  // The new file's stamp is recorded before the rename (a rename keeps size, mtime and inode), alongside the old one: a
  // kill between the two leaves a stamp that still matches whichever file is in place.
  const before = existsSync(files.published) ? [await fileStamp(files.published)] : [];
  await copyAtomically(files, files.working, files.published, async (part) =>
    writeStamp(files, [...before, await fileStamp(part)]),
  );
  await writeStamp(files, [await fileStamp(files.published)]);
  return { bytes: (await stat(files.published)).size, notes };
}

/**
 * Open the published file read-only, as `query`, `status` and `plan` do: it never waits for, nor blocks, a writer. Says
 * so when the first run has not published anything yet.
 */
export async function openPublished(db: string, opts: { memoryLimit?: string } = {}): Promise<Warehouse> {
  const files = snapshotFiles(db);
  if (!existsSync(files.published) && existsSync(files.working)) {
    throw new NoSnapshotError(
      `no published database at ${files.published} yet: the first run has not finished; wait for it to succeed, then try again`,
    );
  }
  return Warehouse.open(files.published, WAREHOUSE_TABLES, {
    readOnly: true,
    ...(opts.memoryLimit ? { memoryLimit: opts.memoryLimit } : {}),
  });
}

/** The outcome of one run, as `status` shows it next to the published (last successful) state. */
export interface LastRunNote {
  runId: string;
  status: 'succeeded' | 'completed_with_holes' | 'incomplete' | 'failed' | 'interrupted';
  startedAt: string;
  finishedAt: string;
  /** One-line reason of a failed or interrupted run (already free of credentials, like every run error). */
  error?: string;
}

/** Record the outcome of the latest run beside the database; a failed run is otherwise only in the working copy. */
export async function writeLastRunNote(db: string, note: LastRunNote): Promise<void> {
  const files = snapshotFiles(db);
  await writeFileAtomically(files.lastRun, `${JSON.stringify(note)}\n`, partPath(files));
}

/** The latest run's outcome, or undefined when none was recorded (or the note is unreadable). */
export async function readLastRunNote(db: string): Promise<LastRunNote | undefined> {
  try {
    const value = JSON.parse(await readFile(snapshotFiles(db).lastRun, 'utf8')) as Partial<LastRunNote>;
    const known = ['succeeded', 'completed_with_holes', 'incomplete', 'failed', 'interrupted'];
    return typeof value.runId === 'string' && known.includes(String(value.status)) ? (value as LastRunNote) : undefined;
  } catch {
    return undefined;
  }
}
