// One engage-etl run per database: a lock file `<db>.lock` created atomically, naming its holder and when its process
// started. A holder whose process is gone (crash, kill -9) — or whose pid now belongs to a process started later (pid
// reused, e.g. after a reboot) — leaves a stale lock, which the next run takes over and says so.
import { randomBytes } from 'node:crypto';
import { link, mkdir, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { FatalError, LockedError } from '../errors.js';
import { isProcessAlive, processStartTime } from '../process/process-alive.js';

/** What a lock file holds. */
export interface LockHolder {
  pid: number;
  /** ISO 8601. */
  startedAt: string;
  host: string;
  /** The command that took the lock, without its options (options may carry credentials). */
  command: string;
  /** ISO 8601 start of the holder's process, where the system tells it (Linux): tells a reused pid from the holder. */
  processStartedAt?: string;
}

export interface RunLockOptions {
  /**
   * Recorded in the lock file to tell a waiting user what holds it. Never put credentials or flags here.
   * @default 'engage-etl' followed by the sub-command name from process.argv
   */
  command?: string;
}

const MAX_ATTEMPTS = 5;
// Start times come from /proc in clock ticks after a boot time given in whole seconds: equal within this margin.
const START_TIME_SLACK_MS = 2000;

function parseHolder(text: string, lockPath: string): LockHolder {
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    if (typeof value.pid === 'number' && typeof value.startedAt === 'string' && typeof value.host === 'string') {
      const holder: LockHolder = {
        pid: value.pid,
        startedAt: value.startedAt,
        host: value.host,
        command: String(value.command ?? ''),
      };
      if (typeof value.processStartedAt === 'string') holder.processStartedAt = value.processStartedAt;
      return holder;
    }
  } catch {
    // fall through to the error below
  }
  throw new FatalError(
    `the lock file ${lockPath} is not an engage-etl lock (${JSON.stringify(text.slice(0, 80))}); if no run is active, delete it`,
  );
}

/**
 * The start of the live process that now has the holder's pid, when that process cannot be the holder: it started at
 * another time than the lock records, or (a lock without that record) after the lock was taken.
 */
function reusedPidStart(holder: LockHolder): Date | undefined {
  const actual = processStartTime(holder.pid);
  if (!actual) return undefined;
  const recorded = holder.processStartedAt === undefined ? undefined : Date.parse(holder.processStartedAt);
  if (recorded !== undefined && Number.isFinite(recorded))
    return Math.abs(actual.getTime() - recorded) > START_TIME_SLACK_MS ? actual : undefined;
  const locked = Date.parse(holder.startedAt);
  return Number.isFinite(locked) && actual.getTime() > locked + START_TIME_SLACK_MS ? actual : undefined;
}

export class RunLock {
  readonly lockPath: string;
  readonly holder: LockHolder;
  /** The holder of the stale lock this run took over, when there was one. */
  readonly tookOverFrom: LockHolder | undefined;
  /** Why that lock was stale: its process is gone, or its pid now belongs to an unrelated process started at this time. */
  readonly staleBecause: { reason: 'process-gone' } | { reason: 'pid-reused'; processStartedAt: Date } | undefined;
  #released = false;

  private constructor(
    lockPath: string,
    holder: LockHolder,
    tookOverFrom: LockHolder | undefined,
    staleBecause: RunLock['staleBecause'],
  ) {
    this.lockPath = lockPath;
    this.holder = holder;
    this.tookOverFrom = tookOverFrom;
    this.staleBecause = staleBecause;
  }

  /** True when acquire found a stale lock (its process gone) and took it over. */
  get tookOverStale(): boolean {
    return this.tookOverFrom !== undefined;
  }

  /** The sentence telling the user a stale lock was taken over, when one was. */
  get staleNote(): string | undefined {
    const from = this.tookOverFrom;
    if (!from) return undefined;
    const reused =
      this.staleBecause?.reason === 'pid-reused'
        ? ` — the lock was taken ${from.startedAt}; that pid now belongs to an unrelated process started ${this.staleBecause.processStartedAt.toISOString()}, which was left alone`
        : '';
    return `took over a stale lock of a run that no longer exists (pid ${from.pid})${reused}`;
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
    const ownStart = processStartTime(process.pid);
    if (ownStart) holder.processStartedAt = ownStart.toISOString();
    await mkdir(dirname(lockPath), { recursive: true });
    await removeDeadTemps(lockPath);
    let tookOverFrom: LockHolder | undefined;
    let staleBecause: RunLock['staleBecause'];
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      if (await createExclusive(lockPath, JSON.stringify(holder)))
        return new RunLock(lockPath, holder, tookOverFrom, staleBecause);
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
      const reused = isProcessAlive(current.pid) ? reusedPidStart(current) : undefined;
      if (isProcessAlive(current.pid) && !reused) {
        throw new LockedError(
          `another engage-etl run holds ${db} (pid ${current.pid}, started ${current.startedAt}); wait for it or stop it`,
        );
      }
      if (await removeIfUnchanged(lockPath, text)) {
        tookOverFrom = current;
        staleBecause = reused ? { reason: 'pid-reused', processStartedAt: reused } : { reason: 'process-gone' };
      }
    }
    throw new LockedError(
      `could not take the lock ${lockPath} after ${MAX_ATTEMPTS} attempts: other runs keep taking it; try again`,
    );
  }

  /** The holder of the lock of `dbPath` when one is taken (a run, export or push may be going on), without touching it. */
  static async peek(dbPath: string): Promise<LockHolder | undefined> {
    const lockPath = `${resolve(dbPath)}.lock`;
    try {
      return parseHolder(await readFile(lockPath, 'utf8'), lockPath);
    } catch {
      return undefined;
    }
  }

  /** Give the lock up; only removes the file while it still names this holder. Safe to call twice. */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    try {
      const current = parseHolder(await readFile(this.lockPath, 'utf8'), this.lockPath);
      if (
        current.pid === this.holder.pid &&
        current.startedAt === this.holder.startedAt &&
        current.host === this.holder.host
      ) {
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
 * Whether the process a lock names is alive, judged as `acquire` judges it (a process on another host counts as alive, a
 * live pid started at another time does not). `status` uses it on the holder `RunLock.peek` read, to tell a running run
 * from an abandoned one.
 */
export function isLiveHolder(holder: LockHolder): boolean {
  return holder.host !== hostname() || (isProcessAlive(holder.pid) && !reusedPidStart(holder));
}
