// The snapshot store of a `--db`: a local file (local-snapshot-store.ts) or an object (s3-snapshot-store.ts), and the
// read-only openers the readers use. Callers get a SnapshotStore and never ask which one they have.
import { parseDbLocation } from './location.js';
import { LocalSnapshotStore } from './local-snapshot-store.js';
import type { SnapshotStore } from './snapshot-store.js';
import type { Warehouse } from '../load/warehouse.js';

/**
 * Open the published state of `db` read-only, hand it to `use`, close it (and remove a downloaded copy). `query`,
 * `status`, `report` and `plan` read through it, a local file or an object alike.
 */
export async function withPublishedDatabase<T>(
  db: string,
  use: (wh: Warehouse, store: SnapshotStore) => Promise<T>,
  opts: { memoryLimit?: string } = {},
): Promise<T> {
  const store = await openSnapshotStore(db);
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
export async function withResumePoint<T>(
  db: string,
  use: (wh: Warehouse, from: 'published' | 'checkpoint') => Promise<T>,
): Promise<T> {
  const store = await openSnapshotStore(db);
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

export interface SnapshotStoreOptions {
  /**
   * Local folder for the downloaded database and its working copy, where the database is an object.
   * @default a new temp folder, removed by close()
   */
  workDir?: string;
  /** With an object: the least time between two checkpoints of a run's progress. @default DEFAULT_CHECKPOINT_EVERY_MS */
  checkpointEveryMs?: number;
}

/**
 * The store of `db`: a local path or an `s3://BUCKET/KEY` URL. The object store's SDK is loaded only for an object (it
 * is a third of the CLI's start-up).
 */
export async function openSnapshotStore(db: string, opts: SnapshotStoreOptions = {}): Promise<SnapshotStore> {
  const location = parseDbLocation(db);
  if (location.kind === 's3') {
    const [{ createS3Client }, { S3SnapshotStore }] = await Promise.all([
      import('./s3-client.js'),
      import('./s3-snapshot-store.js'),
    ]);
    return new S3SnapshotStore({
      client: createS3Client(),
      bucket: location.bucket,
      key: location.key,
      ...(opts.workDir ? { workDir: opts.workDir } : {}),
      ...(opts.checkpointEveryMs !== undefined ? { checkpointEveryMs: opts.checkpointEveryMs } : {}),
    });
  }
  return new LocalSnapshotStore(location.path);
}
