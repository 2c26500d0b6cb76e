// One workspace's share of a lake that several workspaces publish into: every table's objects under
// `<table>/workspace=NAME/…` and the manifests under `manifests/workspace=NAME/`; the share of a pipeline without
// `workspace:` is the same layout without that folder, minus every `workspace=…` folder. The publish writes through it as
// through any place, without knowing; whatever it puts, lists or deletes stays inside its share — a share never even
// lists another's folders — so a publish never touches another workspace's objects.
import { WORKSPACE_PARTITION_COLUMN } from '../export/parquet-layout.js';
import { FatalError } from '../errors.js';
import type { ListOptions, Place, PlaceObject } from './place.js';

/** A path part naming a workspace's folder: `workspace=NAME`. */
const WORKSPACE_FOLDER = new RegExp(`^${WORKSPACE_PARTITION_COLUMN}=`);

export class WorkspacePlace implements Place {
  readonly #inner: Place;
  /** `workspace=NAME`: the path part after each top-level folder; undefined for the share without workspace. */
  readonly #part: string | undefined;

  constructor(inner: Place, workspace: string | undefined) {
    this.#inner = inner;
    this.#part = workspace === undefined ? undefined : `${WORKSPACE_PARTITION_COLUMN}=${workspace}`;
  }

  get description(): string {
    return this.#part === undefined ? this.#inner.description : `${this.#inner.description} (${this.#part})`;
  }

  get versionedNames(): boolean {
    return this.#inner.versionedNames;
  }

  get scratchDir(): string {
    return this.#inner.scratchDir;
  }

  /** `revenue/year=2025/data.parquet` → `revenue/workspace=NAME/year=2025/data.parquet`. */
  #in(key: string): string {
    if (this.#part === undefined) {
      // The share without workspace never writes into a workspace's folder: a key that would is a bug, stopped here.
      if (this.#out(key) === undefined)
        throw new FatalError(
          `${key} lies in a workspace's folder; the layout without workspace never writes or deletes there`,
        );
      return key;
    }
    const slash = key.indexOf('/');
    return slash < 0 ? `${this.#part}/${key}` : `${key.slice(0, slash)}/${this.#part}${key.slice(slash)}`;
  }

  /** The reverse of #in; undefined for an object outside this share. */
  #out(key: string): string | undefined {
    const parts = key.split('/');
    if (this.#part === undefined)
      return parts.slice(0, 2).some((p, i) => WORKSPACE_FOLDER.test(p) && i < parts.length - 1) ? undefined : key;
    if (parts.length >= 3 && parts[1] === this.#part) return [parts[0], ...parts.slice(2)].join('/');
    if (parts.length === 2 && parts[0] === this.#part) return parts[1];
    return undefined;
  }

  put(key: string, file: string): Promise<void> {
    return this.#inner.put(this.#in(key), file);
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<PlaceObject[]> {
    const inner =
      this.#part === undefined
        ? await this.#inner.list(prefix, { skipFolders: WORKSPACE_FOLDER })
        : await this.#inner.list(prefix.includes('/') ? this.#in(prefix) : prefix, opts);
    return inner.flatMap((o) => {
      const key = this.#out(o.key);
      return key?.startsWith(prefix) ? [{ ...o, key }] : [];
    });
  }

  read(key: string, range?: { start: number; end: number }): Promise<Buffer | undefined> {
    return this.#inner.read(this.#in(key), range);
  }

  delete(keys: readonly string[]): Promise<void> {
    return this.#inner.delete(keys.map((k) => this.#in(k)));
  }
}

/** The place a database's Parquet goes to: its workspace's share of the lake, or the share without workspace. */
export function placeOfWorkspace(place: Place, workspace: string | undefined): Place {
  return new WorkspacePlace(place, workspace);
}
