// Where the database lives between runs: a local file (`--db data/engage.duckdb`, published-snapshot.ts) or an object
// (`--db s3://lake/state/engage.duckdb`, s3-snapshot-store.ts). A run takes the store's lock, opens a working copy,
// and on success publishes it whole; readers open the published state read-only. What a run committed but did not publish
// is kept for the next run: locally in the working copy, for an object in a checkpoint beside it. The run never asks
// which store it has: this file holds the interface, open-snapshot-store.ts picks the implementation.
import type { KeptProgress } from './checkpointer.js';
import type { LastRunNote, SnapshotNote } from './published-snapshot.js';
import type { Warehouse } from '../load/warehouse.js';

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
