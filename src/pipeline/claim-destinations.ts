// The first phase of a run: claim where its results go before anything is fetched.
import type { RunOptions } from '../config/run-options.js';
import { openSnapshotStore } from '../store/open-snapshot-store.js';
import type { DbLock, SnapshotStore } from '../store/snapshot-store.js';
import { openPlace } from '../store/open-place.js';
import type { OpenedPlace } from '../store/open-place.js';

/**
 * The Parquet place (a folder checked writable, or a bucket prefix listed once), the database's store and its lock. What
 * was opened is closed again when a later step fails.
 */
export async function claimDestinations(
  opts: RunOptions,
  command: string,
): Promise<{ out: OpenedPlace; snapshots: SnapshotStore; lock: DbLock }> {
  const workDir = opts.workDir ? { workDir: opts.workDir } : {};
  const out = await openPlace(opts.out, workDir);
  const snapshots = await openSnapshotStore(opts.db, {
    ...workDir,
    ...(opts.checkpointEveryMs !== undefined ? { checkpointEveryMs: opts.checkpointEveryMs } : {}),
  });
  try {
    return { out, snapshots, lock: await snapshots.lock(command) };
  } catch (err) {
    await snapshots.close();
    await out.close();
    throw err;
  }
}
