// A database kept as one object (`--db s3://lake/state/engage.duckdb`). A run downloads it into a working folder (a temp
// folder or --work-dir; a fresh database when there is no object yet), works on a copy, and on success uploads the copy
// in place of the object — one PUT or one completed multipart upload, so readers never see half a database. The lock
// is the object `<key>.lock`, the last run's outcome `<key>.last-run.json`.
import { constants, createWriteStream } from 'node:fs';
import { copyFile, mkdir, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import type { S3Client } from '@aws-sdk/client-s3';
import { NoDatabaseError, NoSnapshotError } from '../errors.js';
import { crashPoint } from '../process/crash-point.js';
import { ObjectLock, isLiveObjectHolder } from '../store/object-lock.js';
import { describeS3Error } from '../store/s3-errors.js';
import { uploadFile } from '../store/s3-place.js';
import { makeTempFolder } from '../store/temp-folder.js';
import { checkDatabaseFile, checkEngageTables } from './database-file.js';
import type { LastRunNote, SnapshotNote } from './published-snapshot.js';
import type { DbLock, LockHolderView, SnapshotStore } from './snapshot-store.js';
import { Warehouse } from './warehouse.js';

export interface S3SnapshotStoreOptions {
  client: S3Client;
  bucket: string;
  key: string;
  /** @default a new temp folder, removed by close() */
  workDir?: string;
}

const statusOf = (err: unknown): number | undefined => (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;

export class S3SnapshotStore implements SnapshotStore {
  readonly description: string;
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #key: string;
  readonly #givenWorkDir: string | undefined;
  #workDir: string | undefined;
  #previous: string | undefined;
  /** Files this store made in the work folder, removed by close(). */
  readonly #made = new Set<string>();

  constructor(opts: S3SnapshotStoreOptions) {
    this.#client = opts.client;
    this.#bucket = opts.bucket;
    this.#key = opts.key;
    this.#givenWorkDir = opts.workDir;
    this.description = `s3://${opts.bucket}/${opts.key}`;
  }

  async #dir(): Promise<string> {
    if (this.#workDir) return this.#workDir;
    if (this.#givenWorkDir) {
      await mkdir(this.#givenWorkDir, { recursive: true });
      this.#workDir = this.#givenWorkDir;
    } else {
      this.#workDir = await makeTempFolder(tmpdir(), 'db');
      this.#made.add(this.#workDir);
    }
    return this.#workDir;
  }

  /** Download the object into `file` (via a `.part` file renamed when complete); false when there is no object. */
  async #download(file: string): Promise<boolean> {
    const part = `${file}.${process.pid}.part`;
    try {
      const answer = await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: this.#key }));
      await pipeline(answer.Body as Readable, createWriteStream(part));
      await rename(part, file);
      return true;
    } catch (err) {
      await rm(part, { force: true });
      if (statusOf(err) === 404) return false;
      throw describeS3Error(err, `download ${this.description}`);
    }
  }

  async requireDatabase(): Promise<void> {
    try {
      await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: this.#key }));
    } catch (err) {
      if (statusOf(err) === 404) throw new NoDatabaseError(`no database at ${this.description}: there is no such object; check --db (a typo?) or let a run publish it first — nothing was changed`);
      throw describeS3Error(err, `read ${this.description}`);
    }
  }

  /** A downloaded object checked as the --db it came from: named by its URL, not by the temp file it was saved as. */
  async #checkDownloaded(file: string): Promise<void> {
    await checkDatabaseFile(file, this.description);
    await checkEngageTables(file, this.description);
  }

  async lock(command: string): Promise<DbLock> {
    return ObjectLock.acquire(this.#client, this.#bucket, `${this.#key}.lock`, command);
  }

  async openWorkingCopy(): Promise<{ warehouse: Warehouse; notes: SnapshotNote[] }> {
    const dir = await this.#dir();
    const name = basename(this.#key);
    const working = join(dir, name);
    const previous = join(dir, `previous-${name}`);
    // A run always starts from the published object: what a killed run left in a --work-dir is not published state.
    for (const f of [working, `${working}.wal`, previous]) await rm(f, { force: true });
    this.#made.add(working).add(`${working}.wal`).add(previous);
    if (await this.#download(previous)) {
      await this.#checkDownloaded(previous);
      this.#previous = previous;
      await copyFile(previous, working, constants.COPYFILE_FICLONE);
    }
    return { warehouse: await Warehouse.open(working), notes: [] };
  }

  previousSnapshotPath(): string | undefined {
    return this.#previous;
  }

  async publish(working: Warehouse): Promise<{ bytes: number; notes: SnapshotNote[] }> {
    await working.query('CHECKPOINT');
    crashPoint('snapshot-copied');
    await uploadFile(this.#client, this.#bucket, this.#key, working.path);
    return { bytes: (await stat(working.path)).size, notes: [] };
  }

  async openPublished(opts: { memoryLimit?: string } = {}): Promise<Warehouse> {
    const file = join(await this.#dir(), `published-${process.pid}-${basename(this.#key)}`);
    this.#made.add(file);
    if (!(await this.#download(file))) {
      // A first run still going holds the lock: that is "not yet", anything else a --db naming no object.
      if (await this.lockHolder()) throw new NoSnapshotError(`no published database at ${this.description} yet: the first run has not finished; wait for it to succeed, then try again`);
      throw new NoDatabaseError(`no database at ${this.description}: there is no such object; check --db (a typo?) or let a run publish it first`);
    }
    await this.#checkDownloaded(file);
    return Warehouse.open(file, { readOnly: true, ...(opts.memoryLimit ? { memoryLimit: opts.memoryLimit } : {}) });
  }

  async writeLastRunNote(note: LastRunNote): Promise<void> {
    const Key = `${this.#key}.last-run.json`;
    try {
      await this.#client.send(new PutObjectCommand({ Bucket: this.#bucket, Key, Body: `${JSON.stringify(note)}\n`, ContentType: 'application/json' }));
    } catch (err) {
      throw describeS3Error(err, `write s3://${this.#bucket}/${Key}`);
    }
  }

  async readLastRunNote(): Promise<LastRunNote | undefined> {
    try {
      const answer = await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: `${this.#key}.last-run.json` }));
      const value = JSON.parse(await answer.Body!.transformToString()) as Partial<LastRunNote>;
      return typeof value.runId === 'string' && typeof value.status === 'string' ? (value as LastRunNote) : undefined;
    } catch {
      return undefined;
    }
  }

  async lockHolder(): Promise<LockHolderView | undefined> {
    const holder = await ObjectLock.peek(this.#client, this.#bucket, `${this.#key}.lock`);
    return holder && { pid: holder.pid, host: holder.host, startedAt: holder.startedAt, command: holder.command, live: isLiveObjectHolder(holder) };
  }

  async close(): Promise<void> {
    for (const path of [...this.#made].reverse()) await rm(path, { recursive: true, force: true });
    this.#made.clear();
    this.#previous = undefined;
    this.#client.destroy();
  }
}
