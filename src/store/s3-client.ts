// The S3 client every object-store operation goes through, configured the way every AWS tool is: endpoint from
// AWS_ENDPOINT_URL_S3 (or AWS_ENDPOINT_URL), region from AWS_REGION (or AWS_DEFAULT_REGION), credentials from the SDK's
// default chain (environment, shared files, SSO, web identity, container and instance roles). Never logs a credential.
import { S3Client } from '@aws-sdk/client-s3';
import { announceNodeSupport } from './node-support-notice.js';

/** The region when the environment names none: AWS's own default, and what MinIO, R2 ('auto' also works) and s3rver accept. */
export const DEFAULT_REGION = 'us-east-1';

export interface S3Settings {
  /** A custom endpoint (MinIO, R2, Ceph, GCS interop); undefined for AWS itself. */
  endpoint: string | undefined;
  region: string;
  /** Path-style addressing (`endpoint/bucket/key`) whenever an endpoint is set: most S3-compatible stores need it. */
  forcePathStyle: boolean;
}

const nonEmpty = (v: string | undefined): string | undefined =>
  v === undefined || v.trim() === '' ? undefined : v.trim();

/** What the environment says, before a client exists (also printed by messages: it holds no secret). */
export function s3Settings(env: NodeJS.ProcessEnv = process.env): S3Settings {
  const endpoint = nonEmpty(env['AWS_ENDPOINT_URL_S3']) ?? nonEmpty(env['AWS_ENDPOINT_URL']);
  return {
    endpoint,
    region: nonEmpty(env['AWS_REGION']) ?? nonEmpty(env['AWS_DEFAULT_REGION']) ?? DEFAULT_REGION,
    forcePathStyle: endpoint !== undefined,
  };
}

/**
 * A client for these settings. Checksums only WHEN_REQUIRED: since 3.729 the SDK adds CRC32 checksums (and the
 * `x-amz-checksum-*` / `x-amz-sdk-checksum-algorithm` headers, aws-chunked bodies) to every upload and validates them on
 * downloads; several S3-compatible stores (older MinIO, Ceph RGW, GCS interop, R2 for some operations, s3rver) reject or
 * mishandle those. Integrity does not depend on it: every upload is a single PUT or a completed multipart upload over
 * TLS, and manifests record each file's size, checked on every run.
 */
export function createS3Client(settings: S3Settings = s3Settings()): S3Client {
  announceNodeSupport();
  return new S3Client({
    region: settings.region,
    ...(settings.endpoint !== undefined ? { endpoint: settings.endpoint } : {}),
    forcePathStyle: settings.forcePathStyle,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 5,
  });
}
