// Temp folders of object-store commands (the downloaded database, files waiting for upload): named after their process,
// `engage-etl-<label>-<pid>-<random>`, so a command killed with SIGKILL leaves nothing for ever — the next one removes
// the folders of processes that are gone.
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isProcessAlive } from '../process/process-alive.js';

/** A new temp folder in `parent`, after removing those of the same label whose process is gone. */
export async function makeTempFolder(parent: string, label: string): Promise<string> {
  await mkdir(parent, { recursive: true });
  const pattern = new RegExp(`^engage-etl-${label}-(\\d+)-`);
  for (const name of await readdir(parent)) {
    const pid = Number(pattern.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid !== process.pid && !isProcessAlive(pid))
      await rm(join(parent, name), { recursive: true, force: true });
  }
  return mkdtemp(join(parent, `engage-etl-${label}-${process.pid}-`));
}
