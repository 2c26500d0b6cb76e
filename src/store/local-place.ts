// A place that is a local folder (`--out data/parquet`): `put` renames a file staged in the folder itself into place, so
// a reader sees the old file or the new one; a file keeps its name across publishes (Place.versionedNames is false).
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, open, readdir, readFile, rename, rm, rmdir, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { ListOptions, Place, PlaceObject } from './place.js';

export class LocalPlace implements Place {
  readonly root: string;
  readonly versionedNames = false;

  constructor(root: string) {
    this.root = resolve(root);
  }

  get description(): string {
    return this.root;
  }

  get scratchDir(): string {
    return this.root;
  }

  #path(key: string): string {
    return join(this.root, ...key.split('/'));
  }

  async put(key: string, file: string): Promise<void> {
    const target = this.#path(key);
    await mkdir(dirname(target), { recursive: true });
    try {
      await rename(file, target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      // Staged on another file system: copied beside the target first, so the target still changes in one rename.
      const part = `${target}.${process.pid}-${randomBytes(4).toString('hex')}.part`;
      try {
        await copyFile(file, part);
        await rename(part, target);
      } finally {
        await rm(part, { force: true });
        await rm(file, { force: true });
      }
    }
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<PlaceObject[]> {
    const folder = this.#path(prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '');
    const out: PlaceObject[] = [];
    const walk = async (dir: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR')
          return;
        throw err;
      }
      for (const entry of entries) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          if (dir !== folder || !opts.skipFolders?.test(entry.name)) await walk(path);
        } else if (entry.isFile()) {
          const key = relative(this.root, path).split(sep).join('/');
          if (key.startsWith(prefix)) out.push({ key, bytes: (await stat(path)).size });
        }
      }
    };
    await walk(folder);
    return out.sort((a, b) => a.key.localeCompare(b.key));
  }

  async read(key: string, range?: { start: number; end: number }): Promise<Buffer | undefined> {
    try {
      if (!range) return await readFile(this.#path(key));
      const handle = await open(this.#path(key), 'r');
      try {
        const buffer = Buffer.alloc(Math.max(0, range.end - range.start));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, range.start);
        return buffer.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /** Removes the files, then their folders left empty (below the top level: a table's folder stays). */
  async delete(keys: readonly string[]): Promise<void> {
    for (const key of keys) {
      await rm(this.#path(key), { force: true });
      const parts = key.split('/');
      for (let depth = parts.length - 1; depth >= 2; depth -= 1) {
        const removed = await rmdir(this.#path(parts.slice(0, depth).join('/'))).then(
          () => true,
          () => false,
        );
        if (!removed) break;
      }
    }
  }
}
