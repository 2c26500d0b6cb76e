// One workspace's share of a lake that several workspaces publish into: every table's objects under
// `<table>/workspace=NAME/…` and the manifests under `manifests/workspace=NAME/`. The publish writes through it as
// through any place, without knowing; whatever it puts, lists or deletes stays inside the workspace's folders, so a
// publish never touches another workspace's objects.
import { WORKSPACE_PARTITION_COLUMN } from '../export/parquet-layout.js';
import type { Place, PlaceObject } from './place.js';

export class WorkspacePlace implements Place {
  readonly #inner: Place;
  /** `workspace=NAME`: the path part after each top-level folder. */
  readonly #part: string;

  constructor(inner: Place, workspace: string) {
    this.#inner = inner;
    this.#part = `${WORKSPACE_PARTITION_COLUMN}=${workspace}`;
  }

  get description(): string {
    return `${this.#inner.description} (${this.#part})`;
  }

  get versionedNames(): boolean {
    return this.#inner.versionedNames;
  }

  get scratchDir(): string {
    return this.#inner.scratchDir;
  }

  /** `revenue/year=2025/data.parquet` → `revenue/workspace=NAME/year=2025/data.parquet`. */
  #in(key: string): string {
    const slash = key.indexOf('/');
    return slash < 0 ? `${this.#part}/${key}` : `${key.slice(0, slash)}/${this.#part}${key.slice(slash)}`;
  }

  /** The reverse of #in; undefined for an object outside this workspace. */
  #out(key: string): string | undefined {
    const parts = key.split('/');
    if (parts.length >= 3 && parts[1] === this.#part) return [parts[0], ...parts.slice(2)].join('/');
    if (parts.length === 2 && parts[0] === this.#part) return parts[1];
    return undefined;
  }

  put(key: string, file: string): Promise<void> {
    return this.#inner.put(this.#in(key), file);
  }

  async list(prefix: string): Promise<PlaceObject[]> {
    const objects = await this.#inner.list(prefix.includes('/') ? this.#in(prefix) : prefix);
    return objects.flatMap((o) => {
      const key = this.#out(o.key);
      return key !== undefined && key.startsWith(prefix) ? [{ ...o, key }] : [];
    });
  }

  read(key: string, range?: { start: number; end: number }): Promise<Buffer | undefined> {
    return this.#inner.read(this.#in(key), range);
  }

  delete(keys: readonly string[]): Promise<void> {
    return this.#inner.delete(keys.map((k) => this.#in(k)));
  }
}

/** The place a database's Parquet goes to: the lake itself, or its workspace's share of it. */
export function placeOfWorkspace(place: Place, workspace: string | undefined): Place {
  return workspace === undefined ? place : new WorkspacePlace(place, workspace);
}
