// Where a run's results go: a place that can put a local file under a key, list a prefix, read and delete. A local folder
// and an object-store prefix are its two implementations (local-place.ts, s3-place.ts); the Parquet publish and the
// database snapshot are written against this interface and never ask which one they have.

/** An object (or file) of a place: its key relative to the place's root, with `/` separators, and its size. */
export interface PlaceObject {
  key: string;
  bytes: number;
}

export interface ListOptions {
  /**
   * Folders directly below the prefix's folder (`revenue/` → `revenue/NAME/`) whose NAME matches are skipped whole: not
   * listed, not walked, not returned — how the layout without workspace stays out of every `workspace=…/` folder.
   * @default none skipped
   */
  skipFolders?: RegExp;
}

export interface Place {
  /** How messages name the place: a folder path or `s3://bucket/prefix`. */
  readonly description: string;
  /**
   * Whether a replaced file gets a new name at each publish. An object store has no rename: a manifest-following reader
   * must never meet a file newer than its manifest, so each publish writes new keys and deletes the old ones after the
   * manifests. A folder renames a file over its old self, so one name per partition keeps globbing readers from seeing
   * a partition twice (docs/decisions.md, "Object storage").
   */
  readonly versionedNames: boolean;
  /** A local folder for files about to be put: beside a local place's files (so `put` is a rename), a temp folder otherwise. */
  readonly scratchDir: string;
  /** Place the local `file` under `key` whole (readers see the old object or the new one); the local file is consumed. */
  put(key: string, file: string): Promise<void>;
  /** Every object whose key starts with `prefix` (outside the folders `opts.skipFolders` names, which are not even listed). */
  list(prefix: string, opts?: ListOptions): Promise<PlaceObject[]>;
  /** The object's bytes (those of `range`, end exclusive, when given), or undefined when there is no such object. */
  read(key: string, range?: { start: number; end: number }): Promise<Buffer | undefined>;
  /** Remove these objects; a missing one is no error. */
  delete(keys: readonly string[]): Promise<void>;
}

/** Run `task` on each item with at most `limit` at once; the first failure is thrown after the others settle. */
export async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const errors: unknown[] = [];
  const worker = async () => {
    while (next < items.length && errors.length === 0) {
      const item = items[next++]!;
      await task(item).catch((err: unknown) => void errors.push(err));
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (errors.length > 0) throw errors[0];
}
