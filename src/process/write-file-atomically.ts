// Files readers may open at any moment (the last-run note, the publish stamp, manifests, the metrics file, the report)
// are written aside and renamed into place: a reader sees the old file or the new one, never half of one.
import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Writes `text` to `tmp` beside `target` (its folder created), then renames it over `target`; a failed write leaves no
 * temp file. `tmp` defaults to `<target>.<pid>.<hex>.tmp`; callers whose leftovers a sweep recognizes pass their own.
 */
export async function writeFileAtomically(
  target: string,
  text: string,
  tmp = `${target}.${process.pid}.${randomBytes(3).toString('hex')}.tmp`,
): Promise<void> {
  await mkdir(dirname(target), { recursive: true });
  try {
    await writeFile(tmp, text);
    await rename(tmp, target);
  } finally {
    await rm(tmp, { force: true });
  }
}
