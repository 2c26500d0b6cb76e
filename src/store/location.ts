// Where `--db` and `--out` point: a local path, or an object-store URL `s3://BUCKET/KEY` (any S3-compatible store: the
// endpoint comes from the environment, see s3-client.ts). Parsed once; code below asks `kind`, never the raw string.
import { resolve } from 'node:path';
import { ConfigError } from '../errors.js';

export type Location = { kind: 'local'; path: string } | { kind: 's3'; bucket: string; key: string; url: string };

const S3_URL = /^s3:\/\/([^/]*)\/?(.*)$/i;

/** `s3://BUCKET/KEY` as bucket and key (no leading or trailing `/`), anything else as a local path. */
export function parseLocation(raw: string, flag: string): Location {
  const m = S3_URL.exec(raw.trim());
  if (!m) {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw.trim())) {
      throw new ConfigError(
        flag,
        `${JSON.stringify(raw)}: only local paths and s3:// URLs are supported (gs://, https://… are not); for GCS or R2 use s3:// with AWS_ENDPOINT_URL_S3`,
      );
    }
    return { kind: 'local', path: resolve(raw) };
  }
  const bucket = m[1]!;
  const key = m[2]!.replace(/^\/+|\/+$/g, '');
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new ConfigError(
      flag,
      `${JSON.stringify(raw)} does not name a valid bucket (3–63 lowercase letters, digits, dots, hyphens); e.g. s3://lake/warehouse`,
    );
  }
  if (key.split('/').some((part) => part === '.' || part === '..')) {
    throw new ConfigError(
      flag,
      `${JSON.stringify(raw)} has a "." or ".." part; give the key as it is, e.g. s3://${bucket}/warehouse`,
    );
  }
  return { kind: 's3', bucket, key, url: `s3://${bucket}/${key}` };
}

/** The location of a database file: an object URL must name a key (`s3://lake/state/engage.duckdb`), not only a bucket. */
export function parseDbLocation(raw: string, flag = '--db'): Location {
  const loc = parseLocation(raw, flag);
  if (loc.kind === 's3' && (loc.key === '' || loc.key.endsWith('/'))) {
    throw new ConfigError(
      flag,
      `${JSON.stringify(raw)} names no object; give the database's key, e.g. s3://${loc.bucket}/state/engage.duckdb`,
    );
  }
  return loc;
}

/** True for an `s3://` value, the one test a CLI needs before deciding to parse it. */
export const isObjectUrl = (raw: string): boolean => S3_URL.test(raw.trim());
