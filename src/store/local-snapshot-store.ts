// A database file on this machine as a SnapshotStore: the published file, its working copy beside it
// (published-snapshot.ts) and the lock file `<db>.lock` (run-lock.ts).
import { existsSync } from 'node:fs';
import { NoDatabaseError } from '../errors.js';
import { RunLock, isLiveHolder } from './run-lock.js';
import { checkDatabaseFile, checkEngageTables } from '../load/database-file.js';
import {
  openPublished,
  openWorkingCopy,
  publishSnapshot,
  readLastRunNote,
  snapshotFiles,
  writeLastRunNote,
} from './published-snapshot.js';
import type { LastRunNote, SnapshotNote } from './published-snapshot.js';
import type { KeptProgress } from './checkpointer.js';
import type { DbLock, LockHolderView, SnapshotStore } from './snapshot-store.js';
import type { Warehouse } from '../load/warehouse.js';
import { WAREHOUSE_TABLES } from '../streams/table-specs.js';

/** A database file on this machine: the published file, its working copy beside it, and the lock file `<db>.lock`. */
export class LocalSnapshotStore implements SnapshotStore {
  readonly description: string;

  constructor(path: string) {
    this.description = path;
  }

  async requireDatabase(): Promise<void> {
    const files = snapshotFiles(this.description);
    // A working copy alone is a first run that has not published yet: what it committed is a database to export.
    const file = [files.published, files.working].find((f) => existsSync(f));
    if (file === undefined)
      throw new NoDatabaseError(
        `no database at ${files.published}; check --db (a typo?) or run \`engage-etl run\` first — nothing was changed`,
      );
    await checkDatabaseFile(file, files.published);
    await checkEngageTables(file, files.published, WAREHOUSE_TABLES);
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
      throw new NoDatabaseError(
        `no database at ${files.published}; check --db (a typo?) or run \`engage-etl run\` first`,
      );
    }
    if (existsSync(files.published)) {
      await checkDatabaseFile(files.published, files.published);
      await checkEngageTables(files.published, files.published, WAREHOUSE_TABLES);
    }
    return openPublished(this.description, opts);
  }

  async openResumePoint(
    opts: { memoryLimit?: string } = {},
  ): Promise<{ warehouse: Warehouse; from: 'published' | 'checkpoint' }> {
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
    return (
      holder && {
        pid: holder.pid,
        host: holder.host,
        startedAt: holder.startedAt,
        command: holder.command,
        live: isLiveHolder(holder),
      }
    );
  }

  async close(): Promise<void> {}
}
