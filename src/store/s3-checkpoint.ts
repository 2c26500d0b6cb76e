// The checkpoint of a database kept as an object (`--db s3://lake/state/engage.duckdb`): a run's committed progress,
// uploaded beside the database while the run goes on, for a run on another machine to resume from. Each checkpoint is a
// new object `<key>.checkpoint/<time>-<token>.duckdb` (never the database's key, nor a name ending in the database's
// own: nothing that reads the database can take it for one), named by the note `<key>.checkpoint.json`, written after
// the object is complete. Only the lock holder writes or removes them. The note records the ETag of the published
// database the checkpoint was built on: while the published object still has that ETag, the checkpoint is newer; once
// a run has published (or anyone replaced the object), the published database is (docs/object-storage.md).
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import type { S3Client } from '@aws-sdk/client-s3';
import { describeS3Error } from './s3-errors.js';

/** What `<key>.checkpoint.json` holds. */
export interface CheckpointNote {
  /** The checkpoint object's key. */
  key: string;
  /** ISO 8601: when the copy was taken (everything committed before it is in). */
  takenAt: string;
  /** The ETag of the published database the run started from; null when there was none (a first run). */
  publishedEtag: string | null;
  bytes: number;
  host: string;
  pid: number;
}

const statusOf = (err: unknown): number | undefined =>
  (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;

export class S3Checkpoints {
  readonly #client: S3Client;
  readonly #bucket: string;
  /** The database's key. */
  readonly #key: string;

  constructor(client: S3Client, bucket: string, key: string) {
    this.#client = client;
    this.#bucket = bucket;
    this.#key = key;
  }

  get noteKey(): string {
    return `${this.#key}.checkpoint.json`;
  }

  /** The folder-like prefix of the checkpoint objects. */
  get prefix(): string {
    return `${this.#key}.checkpoint/`;
  }

  /** A new key for a checkpoint object taken at `at`. */
  objectKey(at: Date, token: string): string {
    return `${this.prefix}${at
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z')}-${token}.duckdb`;
  }

  /** The note, or undefined when there is none (or it is not one: a checkpoint that cannot be trusted is not used). */
  async readNote(): Promise<CheckpointNote | undefined> {
    let text: string;
    try {
      const answer = await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: this.noteKey }));
      text = await answer.Body!.transformToString();
    } catch (err) {
      if (statusOf(err) === 404) return undefined;
      throw describeS3Error(err, `read s3://${this.#bucket}/${this.noteKey}`);
    }
    try {
      const v = JSON.parse(text) as Partial<CheckpointNote>;
      if (
        typeof v.key === 'string' &&
        v.key.startsWith(this.prefix) &&
        typeof v.takenAt === 'string' &&
        (typeof v.publishedEtag === 'string' || v.publishedEtag === null)
      ) {
        return {
          key: v.key,
          takenAt: v.takenAt,
          publishedEtag: v.publishedEtag,
          bytes: Number(v.bytes ?? 0),
          host: String(v.host ?? ''),
          pid: Number(v.pid ?? 0),
        };
      }
    } catch {
      // not JSON: treated as no note
    }
    return undefined;
  }

  /** Point the note at a complete checkpoint object, then remove every other one (older ones, or one a killed run left). */
  async commit(note: CheckpointNote): Promise<void> {
    try {
      await this.#client.send(
        new PutObjectCommand({
          Bucket: this.#bucket,
          Key: this.noteKey,
          Body: `${JSON.stringify(note)}\n`,
          ContentType: 'application/json',
        }),
      );
    } catch (err) {
      throw describeS3Error(err, `write s3://${this.#bucket}/${this.noteKey}`);
    }
    await this.#deleteObjects((key) => key !== note.key);
  }

  /** Remove the note first (so no run follows it to a removed object), then every checkpoint object. */
  async discard(): Promise<void> {
    await this.#delete(this.noteKey);
    await this.#deleteObjects(() => true);
  }

  async #deleteObjects(which: (key: string) => boolean): Promise<void> {
    let token: string | undefined;
    const keys: string[] = [];
    try {
      do {
        const page = await this.#client.send(
          new ListObjectsV2Command({
            Bucket: this.#bucket,
            Prefix: this.prefix,
            ...(token ? { ContinuationToken: token } : {}),
          }),
        );
        for (const o of page.Contents ?? []) if (o.Key !== undefined && which(o.Key)) keys.push(o.Key);
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    } catch (err) {
      throw describeS3Error(err, `list s3://${this.#bucket}/${this.prefix}`);
    }
    for (const key of keys) await this.#delete(key);
  }

  async #delete(key: string): Promise<void> {
    try {
      await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: key }));
    } catch (err) {
      throw describeS3Error(err, `delete s3://${this.#bucket}/${key}`);
    }
  }
}
