// One engage-etl run per database: a lock file `<db>.lock` created atomically, naming its holder. A holder whose process
// is gone (crash, kill -9) leaves a stale lock, which the next run takes over and says so.
import { randomBytes } from 'node:crypto';
import { link, mkdir, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { FatalError, LockedError } from '../errors.js';
import { isProcessAlive } from './process-alive.js';

/** What a lock file holds. */
export interface LockHolder {
  pid: number;
  /** ISO 8601. */
  startedAt: string;
  host: string;
  /** The command that took the lock, without its options (options may carry credentials). */
  command: string;
}

export interface RunLockOptions {
  /**
   * Recorded in the lock file to tell a waiting user what holds it. Never put credentials or flags here.
   * @default 'engage-etl' followed by the sub-command name from process.argv
   */
  command?: string;
}

const MAX_ATTEMPTS = 5;


function parseHolder(text: string, lockPath: string): LockHolder {
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    if (typeof value.pid === 'number' && typeof value.startedAt === 'string' && typeof value.host === 'string') {
      return { pid: value.pid, startedAt: value.startedAt, host: value.host, command: String(value.command ?? '') };
    }
  } catch {
    // fall through to the error below
  }
  throw new FatalError(`the lock file ${lockPath} is not an engage-etl lock (${JSON.stringify(text.slice(0, 80))}); if no run is active, delete it`);
}

export class RunLock {
  readonly lockPath: string;
  readonly holder: LockHolder;
  /** The holder of the stale lock this run took over, when there was one. */
  readonly tookOverFrom: LockHolder | undefined;
  #released = false;

  private constructor(lockPath: string, holder: LockHolder, tookOverFrom: LockHolder | undefined) {
    this.lockPath = lockPath;
    this.holder = holder;
    this.tookOverFrom = tookOverFrom;
  }

  /** True when acquire found a stale lock (its process gone) and took it over. */
  get tookOverStale(): boolean {
    return this.tookOverFrom !== undefined;
  }

  /**
   * Take the lock of the database at `dbPath`.
   * @throws LockedError when a live process on this host (or any process on another host) holds it.
   */
  static async acquire(dbPath: string, opts: RunLockOptions = {}): Promise<RunLock> {
    const db = resolve(dbPath);
    const lockPath = `${db}.lock`;
    const holder: LockHolder = {
      pid: process.pid,
      startedAt: new Date().toISOString(),
      host: hostname(),
      command: opts.command ?? ['engage-etl', process.argv[2]].filter(Boolean).join(' '),
    };
    await mkdir(dirname(lockPath), { recursive: true });
    await removeDeadTemps(lockPath);
    let tookOverFrom: LockHolder | undefined;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      if (await createExclusive(lockPath, JSON.stringify(holder))) return new RunLock(lockPath, holder, tookOverFrom);
      let text: string;
      try {
        text = await readFile(lockPath, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // released meanwhile: try again
        throw err;
      }
      const current = parseHolder(text, lockPath);
      if (current.host !== holder.host) {
        throw new LockedError(
          `another engage-etl run holds ${db} (pid ${current.pid} on host ${current.host}, started ${current.startedAt}); ` +
            `wait for it or stop it — if that run is gone, delete ${lockPath}`,
        );
      }
      if (isProcessAlive(current.pid)) {
        throw new LockedError(`another engage-etl run holds ${db} (pid ${current.pid}, started ${current.startedAt}); wait for it or stop it`);
      }
      if (await removeIfUnchanged(lockPath, text)) tookOverFrom = current;
    }
    throw new LockedError(`could not take the lock ${lockPath} after ${MAX_ATTEMPTS} attempts: other runs keep taking it; try again`);
  }

  /** Give the lock up; only removes the file while it still names this holder. Safe to call twice. */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    try {
      const current = parseHolder(await readFile(this.lockPath, 'utf8'), this.lockPath);
      if (current.pid === this.holder.pid && current.startedAt === this.holder.startedAt && current.host === this.holder.host) {
        await unlink(this.lockPath);
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

/**
 * Remove the temp files of lock attempts whose process is gone: `<lock>.<pid>.<hex>.tmp` (killed between writing and
 * linking) and `<lock>.stale-<pid>-<hex>` (killed while taking over a stale lock). Left alone they would stay forever.
 */
async function removeDeadTemps(lockPath: string): Promise<void> {
  const name = basename(lockPath);
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const temp = new RegExp(`^${escaped}(?:\\.(\\d+)\\.[0-9a-f]+\\.tmp|\\.stale-(\\d+)-[0-9a-f]+)$`);
  for (const entry of await readdir(dirname(lockPath))) {
    const m = temp.exec(entry);
    const pid = Number(m?.[1] ?? m?.[2]);
    if (!m || pid === process.pid || isProcessAlive(pid)) continue;
    await unlink(join(dirname(lockPath), entry)).catch(() => undefined);
  }
}

/**
 * Create `path` with `content` only if it does not exist. The content goes to a temp file first and is then hard-linked
 * into place (link fails with EEXIST like O_EXCL does), so a lock file is never seen empty or half written.
 */
async function createExclusive(path: string, content: string): Promise<boolean> {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, content, { flag: 'wx' });
  try {
    await link(tmp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

/**
 * Remove a stale lock, unless another run replaced it since we read it: the file is first moved aside (only one of two
 * racing runs can move it), then compared with what we judged stale; a fresh lock moved by mistake is put back.
 */
async function removeIfUnchanged(path: string, staleText: string): Promise<boolean> {
  const aside = `${path}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await rename(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  const moved = await readFile(aside, 'utf8');
  if (moved !== staleText) {
    await link(aside, path).catch(() => undefined);
    await unlink(aside);
    return false;
  }
  await unlink(aside);
  return true;
}

/**
 * The holder of the lock of `dbPath` while it is alive, judged as `acquire` judges it (a process on another host counts
 * as alive); undefined when there is no lock or its process is gone. `status` uses it to tell a running run from an
 * abandoned one.
 */
export async function liveLockHolder(dbPath: string): Promise<LockHolder | undefined> {
  const lockPath = `${resolve(dbPath)}.lock`;
  let text: string;
  try {
    text = await readFile(lockPath, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const holder = parseHolder(text, lockPath);
  return holder.host !== hostname() || isProcessAlive(holder.pid) ? holder : undefined;
}
