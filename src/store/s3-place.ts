// A place that is a prefix of an S3-compatible bucket (`--out s3://lake/warehouse`). Every upload is one PUT or one
// completed multipart upload, so readers see an object whole or not at all; there is no rename, so a replaced file gets
// a new key at each publish (Place.versionedNames). Deletes are single DeleteObject calls: GCS's XML interface has no
// multi-object delete.
import { createReadStream } from 'node:fs';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import type { S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { readFile, rm, stat } from 'node:fs/promises';
import { eachLimited } from './place.js';
import type { ListOptions, Place, PlaceObject } from './place.js';
import { describeS3Error } from './s3-errors.js';

/** Parts of a multipart upload: 8 MiB (S3's minimum is 5), 4 in flight per file. */
const PART_SIZE = 8 * 2 ** 20;
const PARTS_IN_FLIGHT = 4;
const DELETES_IN_FLIGHT = 8;
const LISTS_IN_FLIGHT = 8;

/**
 * Upload a local file as one object, whole: a single PUT up to one part, a multipart upload (completed only when every
 * part is in) above; readers never see a partial object. Returns its bytes.
 */
export async function uploadFile(client: S3Client, bucket: string, key: string, file: string): Promise<number> {
  try {
    const { size } = await stat(file);
    // Most Parquet files and every manifest fit in one part: one PutObject of the bytes, without lib-storage's
    // buffering (measured twice as fast for the demo tree's files in `npm run bench`).
    if (size <= PART_SIZE) {
      await client.send(
        new PutObjectCommand({ Bucket: bucket, Key: key, Body: await readFile(file), ContentLength: size }),
      );
      return size;
    }
    await new Upload({
      client,
      params: { Bucket: bucket, Key: key, Body: createReadStream(file) },
      partSize: PART_SIZE,
      queueSize: PARTS_IN_FLIGHT,
      leavePartsOnError: false,
    }).done();
    return size;
  } catch (err) {
    throw describeS3Error(err, `upload s3://${bucket}/${key}`);
  }
}

export interface S3PlaceOptions {
  client: S3Client;
  bucket: string;
  /** Key prefix of the place, without leading or trailing `/` ('' for the bucket's root). */
  prefix: string;
  /** Local temp folder for files about to be uploaded. */
  scratchDir: string;
}

export class S3Place implements Place {
  readonly versionedNames = true;
  readonly scratchDir: string;
  readonly bucket: string;
  readonly prefix: string;
  readonly #client: S3Client;
  /** Objects and bytes uploaded through this place (the benchmark and the run's summary count them). */
  readonly uploaded = { objects: 0, bytes: 0 };

  constructor(opts: S3PlaceOptions) {
    this.#client = opts.client;
    this.bucket = opts.bucket;
    this.prefix = opts.prefix;
    this.scratchDir = opts.scratchDir;
  }

  get description(): string {
    return `s3://${this.bucket}/${this.prefix}`;
  }

  /** The full object key of a key of this place. */
  objectKey(key: string): string {
    return this.prefix === '' ? key : `${this.prefix}/${key}`;
  }

  async put(key: string, file: string): Promise<void> {
    const bytes = await uploadFile(this.#client, this.bucket, this.objectKey(key), file);
    this.uploaded.objects += 1;
    this.uploaded.bytes += bytes;
    await rm(file, { force: true });
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<PlaceObject[]> {
    const full = this.objectKey(prefix);
    const out: PlaceObject[] = [];
    if (!opts.skipFolders) await this.#listAll(full, out);
    else {
      // One level with a delimiter, then each folder not skipped in full: a skipped folder is never listed.
      const folder = full.includes('/') ? full.slice(0, full.lastIndexOf('/') + 1) : '';
      const below = await this.#listAll(full, out, '/');
      const kept = below.filter((p) => !opts.skipFolders!.test(p.slice(folder.length).replace(/\/$/, '')));
      await eachLimited(kept, LISTS_IN_FLIGHT, async (p) => void (await this.#listAll(p, out)));
    }
    return out.sort((a, b) => a.key.localeCompare(b.key));
  }

  /** Every object under `full` (a key prefix of the bucket) into `out`; with a delimiter, returns the folders it stopped at. */
  async #listAll(full: string, out: PlaceObject[], delimiter?: string): Promise<string[]> {
    const strip = this.prefix === '' ? 0 : this.prefix.length + 1;
    const folders: string[] = [];
    let token: string | undefined;
    try {
      do {
        const page = await this.#client.send(
          new ListObjectsV2Command({
            Bucket: this.bucket,
            Prefix: full,
            ...(delimiter ? { Delimiter: delimiter } : {}),
            ...(token ? { ContinuationToken: token } : {}),
          }),
        );
        for (const o of page.Contents ?? [])
          if (o.Key !== undefined) out.push({ key: o.Key.slice(strip), bytes: o.Size ?? 0 });
        for (const p of page.CommonPrefixes ?? []) if (p.Prefix !== undefined) folders.push(p.Prefix);
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    } catch (err) {
      throw describeS3Error(err, `list s3://${this.bucket}/${full}`);
    }
    return folders;
  }

  async read(key: string, range?: { start: number; end: number }): Promise<Buffer | undefined> {
    const Key = this.objectKey(key);
    try {
      const answer = await this.#client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key,
          ...(range ? { Range: `bytes=${range.start}-${range.end - 1}` } : {}),
        }),
      );
      return Buffer.from(await answer.Body!.transformToByteArray());
    } catch (err) {
      if (
        err instanceof NoSuchKey ||
        (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404
      )
        return undefined;
      throw describeS3Error(err, `read s3://${this.bucket}/${Key}`);
    }
  }

  async delete(keys: readonly string[]): Promise<void> {
    await eachLimited(keys, DELETES_IN_FLIGHT, async (key) => {
      const Key = this.objectKey(key);
      try {
        await this.#client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key }));
      } catch (err) {
        throw describeS3Error(err, `delete s3://${this.bucket}/${Key}`);
      }
    });
  }
}
