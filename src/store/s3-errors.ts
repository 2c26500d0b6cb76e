// An object-store failure as a one-line FatalError: what was attempted, the store's error code and HTTP status, and a
// hint for the usual causes. The SDK's messages hold no credential; the request's signature is never quoted.
import { FatalError } from '../errors.js';

const HINTS: Record<string, string> = {
  AccessDenied:
    'the credentials lack a permission on this bucket or prefix (docs/object-storage.md lists the IAM policy the run needs)',
  InvalidAccessKeyId:
    'the access key is not known to this store: check AWS_ACCESS_KEY_ID / the profile, and AWS_ENDPOINT_URL_S3 for a non-AWS store',
  SignatureDoesNotMatch: 'the secret key does not match the access key, or the region is wrong (AWS_REGION)',
  NoSuchBucket: 'the bucket does not exist at this endpoint: create it, or check the URL and AWS_ENDPOINT_URL_S3',
  CredentialsProviderError:
    'no credentials were found: set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or run with a role',
};

/** Connections refused or never made, and connections the store (or a middlebox) dropped before answering. */
const UNREACHED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);
const DROPPED = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ETIMEDOUT', 'UND_ERR_SOCKET']);

function transportHint(e: { code?: string; name?: string; message?: string }): string | undefined {
  if (e.code !== undefined && UNREACHED.has(e.code)) return 'the endpoint does not answer: check AWS_ENDPOINT_URL_S3';
  if (
    (e.code !== undefined && DROPPED.has(e.code)) ||
    e.name === 'TimeoutError' ||
    /socket hang up/i.test(e.message ?? '')
  ) {
    return 'the endpoint does not answer: it dropped the connection mid-request (retried); check AWS_ENDPOINT_URL_S3 and the network, then run again — what was published before stays whole';
  }
  return undefined;
}

export function describeS3Error(err: unknown, what: string): FatalError {
  const e = err as {
    name?: string;
    Code?: string;
    message?: string;
    $metadata?: { httpStatusCode?: number };
    code?: string;
  };
  const code = e.Code ?? e.name ?? e.code ?? 'Error';
  const status = e.$metadata?.httpStatusCode;
  const hint = HINTS[code] ?? transportHint(e);
  const message = `cannot ${what}: ${code}${status ? ` (HTTP ${status})` : ''}${e.message && e.message !== code ? `: ${e.message.split('\n')[0]}` : ''}${hint ? `; ${hint}` : ''}`;
  return new FatalError(message, { cause: err });
}
