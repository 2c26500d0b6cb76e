// Checks an output folder can be written before a run spends time loading: a bad --out fails at start, not at the end.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { FatalError } from '../errors.js';

/** Create `path` if needed and prove a file can be written in it; FatalError naming the path and the fix otherwise. */
export async function assertWritableDir(path: string): Promise<void> {
  const dir = resolve(path);
  const probe = join(dir, `.engage-etl-write-test-${process.pid}`);
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(probe, '');
    await rm(probe, { force: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    const why =
      code === 'ENOTDIR' || code === 'EEXIST'
        ? 'a file is in the way of the folder'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : (err as Error).message;
    throw new FatalError(
      `cannot write Parquet output to ${dir}: ${why} (${code}); pass a writable --out or fix the folder's permissions`,
      { cause: err },
    );
  }
}
