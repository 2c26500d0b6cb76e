// The folder of the engage-etl package this code ships in: the code runs from src/ (vitest) and from dist/src/ (built),
// so the folders it ships beside (sql/, pipelines/) are found by walking up to package.json, not by a fixed relative path.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FatalError } from '../errors.js';

/** The nearest folder above `fromUrl` that holds a package.json. */
export function findPackageDir(fromUrl: string = import.meta.url): string {
  const start = dirname(fileURLToPath(fromUrl));
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir)
      throw new FatalError(`no package.json above ${start}; engage-etl must run from its package folder`);
  }
}

/** A folder the package ships (`sql`, `pipelines`), or a FatalError saying to reinstall. */
export function findShippedDir(name: string, fromUrl: string = import.meta.url): string {
  const root = findPackageDir(fromUrl);
  const dir = join(root, name);
  if (!existsSync(dir)) throw new FatalError(`the package at ${root} has no ${name}/ folder; reinstall engage-etl`);
  return dir;
}
