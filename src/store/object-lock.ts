// One run at a time per `--db s3://…`: a lock object `<key>.lock` beside the database, created with a conditional write
// (`If-None-Match: *`: the store answers 412 when the key exists) and holding the run's id, host, pid and start. The
// holder rewrites it every minute; a lock not refreshed for STALE_AFTER_MS — or one whose process on this host is gone —
// is taken over with a warning, as the local lock does. Stores that ignore the condition (s3rver, some older
// S3-compatible stores) still get a read before the write and a read-back after it, which narrows the race to
// milliseconds but cannot close it: docs/object-storage.md says which stores enforce it.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import type { S3Client } from '@aws-sdk/client-s3';
import { FatalError, LockedError } from '../errors.js';
import { isProcessAlive } from '../process/process-alive.js';
import { describeS3Error } from './s3-errors.js';

/** What the lock object holds. */
export interface ObjectLockHolder {
  /** Tells this holder's lock from a later one's. */
  token: string;
  pid: number;
  host: string;
  /** ISO 8601: when the lock was taken. */
  startedAt: string;
  /** ISO 8601: the holder's last heartbeat. */
  refreshedAt: string;
  /** The command that took the lock, without its options (options may carry credentials). */
  command: string;
}

/** A lock not refreshed for this long belongs to a run that is gone (ten heartbeats missed). */
export const STALE_AFTER_MS = 10 * 60_000;
const HEARTBEAT_MS = 60_000;
const MAX_ATTEMPTS = 5;

const statusOf = (err: unknown): number | undefined =>
  (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;

function parseHolder(text: string, where: string): ObjectLockHolder {
  try {
    const v = JSON.parse(text) as Partial<ObjectLockHolder>;
    if (
      typeof v.token === 'string' &&
      typeof v.pid === 'number' &&
      typeof v.host === 'string' &&
      typeof v.startedAt === 'string'
    ) {
      return {
        token: v.token,
        pid: v.pid,
        host: v.host,
        startedAt: v.startedAt,
        refreshedAt: String(v.refreshedAt ?? v.startedAt),
        command: String(v.command ?? ''),
      };
    }
  } catch {
    // fall through
  }
  throw new FatalError(
    `the lock object ${where} is not an engage-etl lock (${JSON.stringify(text.slice(0, 80))}); if no run is active, delete it`,
  );
}

/** Whether the holder is a live run, judged as `acquire` judges it. */
export function isLiveObjectHolder(holder: ObjectLockHolder, now = Date.now()): boolean {
  if (holder.host === hostname() && !isProcessAlive(holder.pid)) return false;
  return now - Date.parse(holder.refreshedAt) < STALE_AFTER_MS;
}

export class ObjectLock {
  readonly url: string;
  readonly holder: ObjectLockHolder;
  /** The holder of the stale lock this run took over, when there was one. */
  readonly tookOverFrom: ObjectLockHolder | undefined;
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #key: string;
  #timer: NodeJS.Timeout | undefined;
  #released = false;

  private constructor(
    client: S3Client,
    bucket: string,
    key: string,
    holder: ObjectLockHolder,
    tookOverFrom: ObjectLockHolder | undefined,
  ) {
    this.#client = client;
    this.#bucket = bucket;
    this.#key = key;
    this.url = `s3://${bucket}/${key}`;
    this.holder = holder;
    this.tookOverFrom = tookOverFrom;
  }

  /** The sentence telling the user a stale lock was taken over, when one was. */
  get staleNote(): string | undefined {
    const from = this.tookOverFrom;
    if (!from) return undefined;
    return `took over a stale lock ${this.url} of a run that no longer exists (pid ${from.pid} on ${from.host}, started ${from.startedAt}, last heartbeat ${from.refreshedAt})`;
  }

  /** The holder of the lock object, when there is one. */
  static async peek(client: S3Client, bucket: string, key: string): Promise<ObjectLockHolder | undefined> {
    const text = await readText(client, bucket, key);
    return text === undefined ? undefined : parseHolder(text, `s3://${bucket}/${key}`);
  }

  /**
   * Take the lock object `key` (the database's key + `.lock`).
   * @throws LockedError when a live run holds it.
   */
  static async acquire(client: S3Client, bucket: string, key: string, command: string): Promise<ObjectLock> {
    const url = `s3://${bucket}/${key}`;
    const now = new Date().toISOString();
    const holder: ObjectLockHolder = {
      token: randomBytes(8).toString('hex'),
      pid: process.pid,
      host: hostname(),
      startedAt: now,
      refreshedAt: now,
      command,
    };
    let tookOverFrom: ObjectLockHolder | undefined;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      const existing = await readText(client, bucket, key);
      if (existing === undefined) {
        if (await createIfAbsent(client, bucket, key, JSON.stringify(holder), url)) {
          // Read back: a store that ignores If-None-Match lets the last of two racing writers win; the loser sees it here.
          const back = await readText(client, bucket, key);
          if (back !== undefined && parseHolder(back, url).token === holder.token) {
            const lock = new ObjectLock(client, bucket, key, holder, tookOverFrom);
            lock.#startHeartbeat();
            return lock;
          }
        }
        continue;
      }
      const current = parseHolder(existing, url);
      if (isLiveObjectHolder(current)) {
        const where = current.host === hostname() ? `pid ${current.pid}` : `pid ${current.pid} on host ${current.host}`;
        throw new LockedError(
          `another engage-etl run holds ${url.replace(/\.lock$/, '')} (${current.command || 'engage-etl'}, ${where}, started ${current.startedAt}, last heartbeat ${current.refreshedAt}); ` +
            `wait for it or stop it — if that run is gone, delete ${url} or wait until it is ${STALE_AFTER_MS / 60_000} minutes without a heartbeat`,
        );
      }
      // Stale: removed only while it still holds what was judged stale (a racing run may have replaced it meanwhile).
      const again = await readText(client, bucket, key);
      if (again === existing) {
        await deleteKey(client, bucket, key, url);
        tookOverFrom = current;
      }
    }
    throw new LockedError(
      `could not take the lock ${url} after ${MAX_ATTEMPTS} attempts: other runs keep taking it; try again`,
    );
  }

  #startHeartbeat(): void {
    this.#timer = setInterval(() => {
      const refreshed: ObjectLockHolder = { ...this.holder, refreshedAt: new Date().toISOString() };
      void this.#client
        .send(
          new PutObjectCommand({
            Bucket: this.#bucket,
            Key: this.#key,
            Body: JSON.stringify(refreshed),
            ContentType: 'application/json',
          }),
        )
        .catch(() => undefined);
    }, HEARTBEAT_MS);
    this.#timer.unref();
  }

  /** Give the lock up; removes the object only while it still names this holder. Safe to call twice. */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    clearInterval(this.#timer);
    const text = await readText(this.#client, this.#bucket, this.#key);
    if (text !== undefined && parseHolder(text, this.url).token === this.holder.token)
      await deleteKey(this.#client, this.#bucket, this.#key, this.url);
  }
}

async function readText(client: S3Client, bucket: string, key: string): Promise<string | undefined> {
  try {
    const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return await answer.Body!.transformToString();
  } catch (err) {
    if (statusOf(err) === 404) return undefined;
    throw describeS3Error(err, `read the lock s3://${bucket}/${key}`);
  }
}

/** PUT with `If-None-Match: *`: false when the store says the key exists (412) or another conditional write raced (409). */
async function createIfAbsent(
  client: S3Client,
  bucket: string,
  key: string,
  body: string,
  url: string,
): Promise<boolean> {
  try {
    await client.send(
      new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, IfNoneMatch: '*', ContentType: 'application/json' }),
    );
    return true;
  } catch (err) {
    if (statusOf(err) === 412 || statusOf(err) === 409) return false;
    throw describeS3Error(err, `create the lock ${url}`);
  }
}

async function deleteKey(client: S3Client, bucket: string, key: string, url: string): Promise<void> {
  try {
    await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
  } catch (err) {
    throw describeS3Error(err, `delete the lock ${url}`);
  }
}
