// `--db` and `--out` values: an s3:// URL is a bucket and a key, checked at once (exit 2 for a malformed one); anything
// else is a local path. The S3 client takes endpoint, region and addressing from the environment as every AWS tool does.
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { parseDbLocation, parseLocation } from '../../src/store/location.js';
import { createS3Client, s3Settings } from '../../src/store/s3-client.js';

describe('parseLocation', () => {
  it('reads s3://BUCKET/PREFIX as bucket and key, without slashes at either end', () => {
    expect(parseLocation('s3://lake/warehouse/', '--out')).toEqual({
      kind: 's3',
      bucket: 'lake',
      key: 'warehouse',
      url: 's3://lake/warehouse',
    });
    expect(parseLocation('s3://lake', '--out')).toEqual({ kind: 's3', bucket: 'lake', key: '', url: 's3://lake/' });
    expect(parseDbLocation('s3://lake/state/engage.duckdb')).toMatchObject({
      bucket: 'lake',
      key: 'state/engage.duckdb',
    });
  });

  it('takes anything else for a local path, resolved', () => {
    expect(parseLocation('data/parquet', '--out')).toEqual({ kind: 'local', path: resolve('data/parquet') });
  });

  it.each([
    ['s3://', '--db'],
    ['s3://Bad_Bucket/x', '--out'],
    ['s3://lake/../x', '--out'],
    ['gs://lake/x', '--out'],
  ])('refuses %s, naming %s', (raw, flag) => {
    expect(() => (flag === '--db' ? parseDbLocation(raw) : parseLocation(raw, flag))).toThrow(ConfigError);
    expect(() => (flag === '--db' ? parseDbLocation(raw) : parseLocation(raw, flag))).toThrow(flag);
  });

  it('refuses a database URL that names a bucket but no object', () => {
    expect(() => parseDbLocation('s3://lake/')).toThrow(
      /names no object; give the database's key, e.g. s3:\/\/lake\/state\/engage.duckdb/,
    );
  });
});

describe('s3Settings', () => {
  it('takes the endpoint from AWS_ENDPOINT_URL_S3 before AWS_ENDPOINT_URL, with path-style addressing', () => {
    expect(
      s3Settings({ AWS_ENDPOINT_URL: 'http://a:1', AWS_ENDPOINT_URL_S3: 'http://b:2', AWS_REGION: 'eu-west-1' }),
    ).toEqual({ endpoint: 'http://b:2', region: 'eu-west-1', forcePathStyle: true });
    expect(s3Settings({ AWS_ENDPOINT_URL: 'http://a:1' })).toEqual({
      endpoint: 'http://a:1',
      region: 'us-east-1',
      forcePathStyle: true,
    });
  });

  it('uses AWS itself, virtual-hosted, in AWS_DEFAULT_REGION or us-east-1 when nothing is set', () => {
    expect(s3Settings({ AWS_DEFAULT_REGION: 'ap-south-1' })).toEqual({
      endpoint: undefined,
      region: 'ap-south-1',
      forcePathStyle: false,
    });
    expect(s3Settings({})).toEqual({ endpoint: undefined, region: 'us-east-1', forcePathStyle: false });
  });

  it('builds a client that computes and validates checksums only when an operation requires them', async () => {
    const client = createS3Client(s3Settings({ AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9' }));
    try {
      expect(await client.config.requestChecksumCalculation()).toBe('WHEN_REQUIRED');
      expect(await client.config.responseChecksumValidation()).toBe('WHEN_REQUIRED');
      expect(client.config.forcePathStyle).toBe(true);
    } finally {
      client.destroy();
    }
  });
});
