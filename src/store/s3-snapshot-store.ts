// A database kept as one object (`--db s3://lake/state/engage.duckdb`). A run downloads it into a working folder (a temp
// folder or --work-dir; a fresh database when there is no object yet), works on a copy, and on success uploads the copy
// in place of the object — one PUT or one completed multipart upload, so readers never see half a database. The lock
// is the object `<key>.lock`, the last run's outcome `<key>.last-run.json`. While a run goes on, its committed progress
// is uploaded as a checkpoint beside the object (s3-checkpoint.ts) at most every few minutes and when it stops without
// publishing; the next run resumes from the newer of the checkpoint and the published database.
import { constants, createWriteStream } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, rename, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import type { S3Client } from '@aws-sdk/client-s3';
import { NoDatabaseError, NoSnapshotError } from '../errors.js';
import { checkDatabaseFile, checkEngageTables } from '../load/database-file.js';
import { crashPoint } from '../process/crash-point.js';
import { Checkpointer, DEFAULT_CHECKPOINT_EVERY_MS } from './checkpointer.js';
import type { KeptProgress } from './checkpointer.js';
import { ObjectLock, isLiveObjectHolder } from './object-lock.js';
import { S3Checkpoints } from './s3-checkpoint.js';
import type { CheckpointNote } from './s3-checkpoint.js';
import { describeS3Error } from './s3-errors.js';
import { uploadFile } from './s3-place.js';
import { makeTempFolder } from './temp-folder.js';
import type { LastRunNote, SnapshotNote } from './published-snapshot.js';
import type { DbLock, LockHolderView, SnapshotStore } from './snapshot-store.js';
import { Warehouse } from '../load/warehouse.js';
import { WAREHOUSE_TABLES } from '../streams/table-specs.js';

export interface S3SnapshotStoreOptions {
  client: S3Client;
  bucket: string;
  key: string;
  /** @default a new temp folder, removed by close() */
  workDir?: string;
  /** The least time between two checkpoints of a run's progress. @default DEFAULT_CHECKPOINT_EVERY_MS */
  checkpointEveryMs?: number;
}

const statusOf = (err: unknown): number | undefined =>
  (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;

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
  readonly #checkpoints: S3Checkpoints;
  readonly #checkpointEveryMs: number;
  /** Set by openWorkingCopy: the working copy and what copies its progress off the machine. */
  #checkpointer: Checkpointer | undefined;
  /** The ETag of the published object the working copy was built on (null: there was none). */
  #publishedEtag: string | null = null;

  constructor(opts: S3SnapshotStoreOptions) {
    this.#client = opts.client;
    this.#bucket = opts.bucket;
    this.#key = opts.key;
    this.#givenWorkDir = opts.workDir;
    this.description = `s3://${opts.bucket}/${opts.key}`;
    this.#checkpoints = new S3Checkpoints(opts.client, opts.bucket, opts.key);
    this.#checkpointEveryMs = opts.checkpointEveryMs ?? DEFAULT_CHECKPOINT_EVERY_MS;
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

  /**
   * Download the object `key` (the database's by default) into `file`, via a `.part` file renamed when complete. Returns
   * its ETag ('' where the store gives none), or undefined when there is no such object.
   */
  async #download(file: string, key = this.#key): Promise<string | undefined> {
    const part = `${file}.${process.pid}.part`;
    try {
      const answer = await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: key }));
      await pipeline(answer.Body as Readable, createWriteStream(part));
      await rename(part, file);
      return answer.ETag ?? '';
    } catch (err) {
      await rm(part, { force: true });
      if (statusOf(err) === 404) return undefined;
      throw describeS3Error(err, `download s3://${this.#bucket}/${key}`);
    }
  }

  /**
   * Download into `file` the newest state a run resumes from: the checkpoint when its note names the published object
   * as it is now (it was built on it), else the published object (`previous`, downloaded first either way). Returns what
   * was chosen and why; `stale` is a note that lost to a later publish.
   */
  async #downloadResumePoint(
    previous: string,
    file: string,
  ): Promise<{
    publishedEtag: string | null;
    checkpoint?: CheckpointNote;
    stale?: CheckpointNote;
    missing?: CheckpointNote;
  }> {
    const publishedEtag = (await this.#download(previous)) ?? null;
    const note = await this.#checkpoints.readNote();
    if (!note) return { publishedEtag };
    if (note.publishedEtag !== publishedEtag) return { publishedEtag, stale: note };
    return (await this.#download(file, note.key)) === undefined
      ? { publishedEtag, missing: note }
      : { publishedEtag, checkpoint: note };
  }

  async requireDatabase(): Promise<void> {
    try {
      await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: this.#key }));
    } catch (err) {
      if (statusOf(err) === 404)
        throw new NoDatabaseError(
          `no database at ${this.description}: there is no such object; check --db (a typo?) or let a run publish it first — nothing was changed`,
        );
      throw describeS3Error(err, `read ${this.description}`);
    }
  }

  /** A downloaded object checked as the --db it came from: named by its URL, not by the temp file it was saved as. */
  async #checkDownloaded(file: string): Promise<void> {
    await checkDatabaseFile(file, this.description);
    await checkEngageTables(file, this.description, WAREHOUSE_TABLES);
  }

  async lock(command: string): Promise<DbLock> {
    return ObjectLock.acquire(this.#client, this.#bucket, `${this.#key}.lock`, command);
  }

  async openWorkingCopy(): Promise<{ warehouse: Warehouse; notes: SnapshotNote[] }> {
    const dir = await this.#dir();
    const name = basename(this.#key);
    const working = join(dir, name);
    const previous = join(dir, `previous-${name}`);
    // A run starts from what is in the store (the published object or a newer checkpoint), never from what a killed run
    // left in a --work-dir: that may hold commits no checkpoint has, but also half a commit's pages.
    for (const f of [working, `${working}.wal`, previous]) await rm(f, { force: true });
    this.#made.add(working).add(`${working}.wal`).add(previous);
    const point = await this.#downloadResumePoint(previous, working);
    const notes: SnapshotNote[] = [];
    if (point.publishedEtag !== null) {
      await this.#checkDownloaded(previous);
      this.#previous = previous;
    }
    if (point.checkpoint) {
      notes.push({
        code: 'checkpoint_resumed',
        message: `resumed from the checkpoint of ${this.description} taken ${point.checkpoint.takenAt} by a run that did not publish (pid ${point.checkpoint.pid} on ${point.checkpoint.host}); it is newer than the published database`,
      });
    } else {
      const lost = point.stale ?? point.missing;
      if (lost) {
        await this.#checkpoints.discard();
        const why = point.stale
          ? 'older than the published database (a run published after it)'
          : `its object ${lost.key} is gone`;
        notes.push({
          code: 'checkpoint_discarded',
          message: `removed the checkpoint of ${this.description} taken ${lost.takenAt}: ${why}; this run starts from the published database`,
        });
      }
      if (this.#previous) await copyFile(previous, working, constants.COPYFILE_FICLONE);
    }
    this.#publishedEtag = point.publishedEtag;
    const warehouse = await Warehouse.open(working, WAREHOUSE_TABLES);
    this.#checkpointer = new Checkpointer({
      everyMs: this.#checkpointEveryMs,
      write: () => this.#writeCheckpoint(warehouse),
    });
    return { warehouse, notes };
  }

  /**
   * Upload a consistent copy of everything committed to the working copy as a new checkpoint: DuckDB's CHECKPOINT and a
   * copy of the file in one turn of the connection (no commit between them), then the upload while commits go on, then
   * the note pointing at it; the older checkpoint objects are removed last.
   */
  async #writeCheckpoint(working: Warehouse): Promise<void> {
    const token = randomBytes(4).toString('hex');
    const copy = join(await this.#dir(), `checkpoint-${process.pid}-${token}.duckdb`);
    this.#made.add(copy);
    try {
      // When the copy is taken, not when it was asked for: it holds what was committed before this moment.
      const takenAt = await working.copyTo(copy);
      const key = this.#checkpoints.objectKey(takenAt, token);
      const bytes = await uploadFile(this.#client, this.#bucket, key, copy);
      crashPoint('checkpoint-uploaded');
      await this.#checkpoints.commit({
        key,
        takenAt: takenAt.toISOString(),
        publishedEtag: this.#publishedEtag,
        bytes,
        host: hostname(),
        pid: process.pid,
      });
    } finally {
      await rm(copy, { force: true });
      this.#made.delete(copy);
    }
  }

  committed(): void {
    this.#checkpointer?.committed();
  }

  async keepCommitted(): Promise<KeptProgress> {
    const checkpointer = this.#checkpointer;
    if (!checkpointer) return { kept: true };
    try {
      await checkpointer.flush();
      return { kept: true };
    } catch (err) {
      const at = checkpointer.lastKeptAt;
      const since = at ? `since the checkpoint taken ${at.toISOString()}` : 'in this run';
      return {
        kept: false,
        reason: `what was committed ${since} could not be uploaded as a checkpoint beside ${this.description} and is lost (${err instanceof Error ? err.message : String(err)})`,
        resumesFrom: at ? 'that checkpoint' : 'the published database (or a checkpoint older than this run)',
      };
    }
  }

  async publish(working: Warehouse): Promise<{ bytes: number; notes: SnapshotNote[] }> {
    const notes: SnapshotNote[] = [];
    const checkpointer = this.#checkpointer;
    // No checkpoint upload may race the publish that makes every checkpoint stale.
    await checkpointer?.settle();
    if (checkpointer?.lastError !== undefined) {
      const error = checkpointer.lastError;
      notes.push({
        code: 'checkpoint_failed',
        message: `a checkpoint of this run's progress could not be uploaded (${error instanceof Error ? error.message : String(error)}); the run published all the same, but had it been stopped, it would have lost more`,
      });
    }
    await working.checkpoint();
    crashPoint('snapshot-copied');
    await uploadFile(this.#client, this.#bucket, this.#key, working.path);
    // Published: nothing is left to keep (a publish that failed leaves the checkpointer to the run's failure path).
    this.#checkpointer = undefined;
    crashPoint('database-published');
    // A kill before this leaves a note naming the old published ETag: the next run sees that it is stale.
    await this.#checkpoints.discard();
    return { bytes: (await stat(working.path)).size, notes };
  }

  async openPublished(opts: { memoryLimit?: string } = {}): Promise<Warehouse> {
    const file = join(await this.#dir(), `published-${process.pid}-${basename(this.#key)}`);
    this.#made.add(file);
    if (!(await this.#download(file))) {
      // A first run still going holds the lock, one that stopped left a checkpoint: that is "not yet", anything else a
      // --db naming no object.
      if (await this.lockHolder())
        throw new NoSnapshotError(
          `no published database at ${this.description} yet: the first run has not finished; wait for it to succeed, then try again`,
        );
      if (await this.#checkpoints.readNote())
        throw new NoSnapshotError(
          `no published database at ${this.description} yet: the first run stopped before it published (its progress is in a checkpoint); run it again to resume, then try again`,
        );
      throw new NoDatabaseError(
        `no database at ${this.description}: there is no such object; check --db (a typo?) or let a run publish it first`,
      );
    }
    await this.#checkDownloaded(file);
    return Warehouse.open(file, WAREHOUSE_TABLES, {
      readOnly: true,
      ...(opts.memoryLimit ? { memoryLimit: opts.memoryLimit } : {}),
    });
  }

  async writeLastRunNote(note: LastRunNote): Promise<void> {
    const Key = `${this.#key}.last-run.json`;
    try {
      await this.#client.send(
        new PutObjectCommand({
          Bucket: this.#bucket,
          Key,
          Body: `${JSON.stringify(note)}\n`,
          ContentType: 'application/json',
        }),
      );
    } catch (err) {
      throw describeS3Error(err, `write s3://${this.#bucket}/${Key}`);
    }
  }

  async readLastRunNote(): Promise<LastRunNote | undefined> {
    try {
      const answer = await this.#client.send(
        new GetObjectCommand({ Bucket: this.#bucket, Key: `${this.#key}.last-run.json` }),
      );
      const value = JSON.parse(await answer.Body!.transformToString()) as Partial<LastRunNote>;
      return typeof value.runId === 'string' && typeof value.status === 'string' ? (value as LastRunNote) : undefined;
    } catch {
      return undefined;
    }
  }

  async lockHolder(): Promise<LockHolderView | undefined> {
    const holder = await ObjectLock.peek(this.#client, this.#bucket, `${this.#key}.lock`);
    return (
      holder && {
        pid: holder.pid,
        host: holder.host,
        startedAt: holder.startedAt,
        command: holder.command,
        live: isLiveObjectHolder(holder),
      }
    );
  }

  async openResumePoint(
    opts: { memoryLimit?: string } = {},
  ): Promise<{ warehouse: Warehouse; from: 'published' | 'checkpoint' }> {
    const dir = await this.#dir();
    const name = basename(this.#key);
    const previous = join(dir, `published-${process.pid}-${name}`);
    const checkpoint = join(dir, `checkpoint-${process.pid}-${name}`);
    this.#made.add(previous).add(checkpoint);
    const point = await this.#downloadResumePoint(previous, checkpoint);
    const readOnly = { readOnly: true, ...(opts.memoryLimit ? { memoryLimit: opts.memoryLimit } : {}) };
    if (point.checkpoint)
      return { warehouse: await Warehouse.open(checkpoint, WAREHOUSE_TABLES, readOnly), from: 'checkpoint' };
    if (point.publishedEtag === null) {
      throw new NoSnapshotError(
        `no published database at ${this.description} yet, and no checkpoint of a run to resume`,
      );
    }
    return { warehouse: await Warehouse.open(previous, WAREHOUSE_TABLES, readOnly), from: 'published' };
  }

  async close(): Promise<void> {
    this.#checkpointer = undefined;
    for (const path of [...this.#made].reverse()) await rm(path, { recursive: true, force: true });
    this.#made.clear();
    this.#previous = undefined;
    this.#client.destroy();
  }
}
