// Where the database lives between runs: a local file (`--db data/engage.duckdb`, published-snapshot.ts) or an object
// (`--db s3://lake/state/engage.duckdb`, s3-snapshot-store.ts). A run takes the store's lock, opens a working copy,
// and on success publishes it whole; readers open the published state read-only. What a run committed but did not publish
// is kept for the next run: locally in the working copy, for an object in a checkpoint beside it. The run never asks
// which store it has.
import { existsSync } from 'node:fs';
import { NoDatabaseError } from '../errors.js';
import { RunLock, isLiveHolder } from './run-lock.js';
import { parseDbLocation } from './location.js';
import { createS3Client } from './s3-client.js';
import { checkDatabaseFile, checkEngageTables } from '../load/database-file.js';
import { openPublished, openWorkingCopy, publishSnapshot, readLastRunNote, snapshotFiles, writeLastRunNote } from './published-snapshot.js';
import type { LastRunNote, SnapshotNote } from './published-snapshot.js';
import type { KeptProgress } from './checkpointer.js';
import { S3SnapshotStore } from './s3-snapshot-store.js';
import type { Warehouse } from '../load/warehouse.js';

/**
 * Open the published state of `db` read-only, hand it to `use`, close it (and remove a downloaded copy). `query`,
 * `status`, `report` and `plan` read through it, a local file or an object alike.
 */
export async function withPublishedDatabase<T>(db: string, use: (wh: Warehouse, store: SnapshotStore) => Promise<T>, opts: { memoryLimit?: string } = {}): Promise<T> {
  const store = openSnapshotStore(db);
  try {
    const wh = await store.openPublished(opts);
    try {
      return await use(wh, store);
    } finally {
      await wh.close();
    }
  } finally {
    await store.close();
  }
}

/**
 * Open what the next run of `db` would start from, read-only (`plan`): like withPublishedDatabase, except that a newer
 * checkpoint of an interrupted run beside an object is read instead of the published database.
 */
export async function withResumePoint<T>(db: string, use: (wh: Warehouse, from: 'published' | 'checkpoint') => Promise<T>): Promise<T> {
  const store = openSnapshotStore(db);
  try {
    const { warehouse, from } = await store.openResumePoint();
    try {
      return await use(warehouse, from);
    } finally {
      await warehouse.close();
    }
  } finally {
    await store.close();
  }
}

/** The one-run-at-a-time lock of a database, held from the start of a run to its end (failure too). */
export interface DbLock {
  /** The sentence telling the user a stale lock was taken over, when one was. */
  readonly staleNote: string | undefined;
  release(): Promise<void>;
}

/** The run holding a database's lock, as `status` shows it. */
export interface LockHolderView {
  pid: number;
  host: string;
  startedAt: string;
  command: string;
  /** False when the holder is gone (killed): the next run takes the lock over. */
  live: boolean;
}

export interface SnapshotStore {
  /** How messages name the database: its path or `s3://` URL. */
  readonly description: string;
  /**
   * Refuse (before anything is created: no lock, no file, no object) a database that does not exist — NoDatabaseError,
   * exit 2 — or is not a DuckDB database engage-etl wrote. `export` calls it first: re-exporting an empty warehouse
   * would empty the lake.
   */
  requireDatabase(): Promise<void>;
  /** Take the lock; LockedError naming the holder when another live run has it. */
  lock(command: string): Promise<DbLock>;
  /** Make the working copy ready and open it for writing. Call while holding the lock. */
  openWorkingCopy(): Promise<{ warehouse: Warehouse; notes: SnapshotNote[] }>;
  /**
   * A commit landed in the working copy. An object's store uploads a checkpoint of it when the checkpoint interval has
   * passed (in the background: the run goes on); a local working copy is already where the next run finds it.
   */
  committed(): void;
  /**
   * The run stops without publishing (failed, interrupted), after its last commit: keep what it committed where the next
   * run — on this machine or another — resumes from, and say whether that worked.
   */
  keepCommitted(): Promise<KeptProgress>;
  /** Publish the working copy whole in place of the previous database (and of any checkpoint, now stale). */
  publish(working: Warehouse): Promise<{ bytes: number; notes: SnapshotNote[] }>;
  /** The published state, read-only (downloaded first where it is an object). */
  openPublished(opts?: { memoryLimit?: string }): Promise<Warehouse>;
  /**
   * What the next run would start from, read-only, for `plan`: an object's newer checkpoint when there is one, else the
   * published state. Never for readers of the data: they see only published databases.
   */
  openResumePoint(opts?: { memoryLimit?: string }): Promise<{ warehouse: Warehouse; from: 'published' | 'checkpoint' }>;
  writeLastRunNote(note: LastRunNote): Promise<void>;
  readLastRunNote(): Promise<LastRunNote | undefined>;
  /** Who holds the lock now, without touching it. */
  lockHolder(): Promise<LockHolderView | undefined>;
  /** Remove what the store downloaded. Call after closing the warehouses it opened. */
  close(): Promise<void>;
}

export interface SnapshotStoreOptions {
  /**
   * Local folder for the downloaded database and its working copy, where the database is an object.
   * @default a new temp folder, removed by close()
   */
  workDir?: string;
  /** With an object: the least time between two checkpoints of a run's progress. @default DEFAULT_CHECKPOINT_EVERY_MS */
  checkpointEveryMs?: number;
}

/** The store of `db`: a local path or an `s3://BUCKET/KEY` URL. */
export function openSnapshotStore(db: string, opts: SnapshotStoreOptions = {}): SnapshotStore {
  const location = parseDbLocation(db);
  if (location.kind === 's3') {
    return new S3SnapshotStore({
      client: createS3Client(), bucket: location.bucket, key: location.key,
      ...(opts.workDir ? { workDir: opts.workDir } : {}),
      ...(opts.checkpointEveryMs !== undefined ? { checkpointEveryMs: opts.checkpointEveryMs } : {}),
    });
  }
  return new LocalSnapshotStore(location.path);
}

/** A database file on this machine: the published file, its working copy beside it, and the lock file `<db>.lock`. */
class LocalSnapshotStore implements SnapshotStore {
  readonly description: string;

  constructor(path: string) {
    this.description = path;
  }

  async requireDatabase(): Promise<void> {
    const files = snapshotFiles(this.description);
    // A working copy alone is a first run that has not published yet: what it committed is a database to export.
    const file = [files.published, files.working].find((f) => existsSync(f));
    if (file === undefined) throw new NoDatabaseError(`no database at ${files.published}; check --db (a typo?) or run \`engage-etl run\` first — nothing was changed`);
    await checkDatabaseFile(file, files.published);
    await checkEngageTables(file, files.published);
  }

  async lock(command: string): Promise<DbLock> {
    return RunLock.acquire(this.description, { command });
  }

  async openWorkingCopy(): Promise<{ warehouse: Warehouse; notes: SnapshotNote[] }> {
    const { warehouse, notes } = await openWorkingCopy(this.description);
    return { warehouse, notes };
  }

  committed(): void {
    // DuckDB made the commit durable in the working copy, the file the next run on this machine carries on from.
  }

  async keepCommitted(): Promise<KeptProgress> {
    return { kept: true };
  }

  async publish(working: Warehouse): Promise<{ bytes: number; notes: SnapshotNote[] }> {
    return publishSnapshot(working, this.description);
  }

  async openPublished(opts: { memoryLimit?: string } = {}): Promise<Warehouse> {
    const files = snapshotFiles(this.description);
    if (!existsSync(files.published) && !existsSync(files.working)) {
      throw new NoDatabaseError(`no database at ${files.published}; check --db (a typo?) or run \`engage-etl run\` first`);
    }
    if (existsSync(files.published)) {
      await checkDatabaseFile(files.published, files.published);
      await checkEngageTables(files.published, files.published);
    }
    return openPublished(this.description, opts);
  }

  async openResumePoint(opts: { memoryLimit?: string } = {}): Promise<{ warehouse: Warehouse; from: 'published' | 'checkpoint' }> {
    return { warehouse: await this.openPublished(opts), from: 'published' };
  }

  writeLastRunNote(note: LastRunNote): Promise<void> {
    return writeLastRunNote(this.description, note);
  }

  readLastRunNote(): Promise<LastRunNote | undefined> {
    return readLastRunNote(this.description);
  }

  async lockHolder(): Promise<LockHolderView | undefined> {
    const holder = await RunLock.peek(this.description);
    return holder && { pid: holder.pid, host: holder.host, startedAt: holder.startedAt, command: holder.command, live: isLiveHolder(holder) };
  }

  async close(): Promise<void> {
  }
}
