// What one request to the platform is (endpoint + parameters) and what comes back, independent of retries and limits.
import type { EndpointSpec } from './endpoints.js';
import type { ResponseHeaders } from './http-transport.js';

/** Query values as callers hold them; `undefined` drops the parameter, booleans are sent as `true` / `false`. */
export type QueryValue = string | number | boolean | undefined;

/** One request to one endpoint of the catalogue. */
export interface ApiCall {
  /** The endpoint, from `ENDPOINTS`. Its pool decides the rate-limit budget, its permission the 401/403 advice. */
  endpoint: EndpointSpec;
  /** Values of the `:name` segments of the endpoint's path (URL-encoded on the way out). */
  pathParams?: Record<string, string>;
  query?: Record<string, QueryValue>;
  /** JSON body; when present it is sent with `Content-Type: application/json`. */
  body?: unknown;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** Authenticate with the SCIM token and X-Request-Origin instead of the API key (implied by SCIM endpoints). */
  credential?: 'scim';
  /**
   * Absolute URL to request instead of the endpoint's path and query: a pagination link, already resolved and checked
   * to be on the base URL's origin.
   */
  url?: string;
  /**
   * Reject a 2xx body whose `message` is present and is not `success`.
   * @default true
   */
  checkMessage?: boolean;
  /**
   * Resend a request whose 2xx answer was cut short or is not complete JSON. A non-idempotent write (an `inc` of
   * /users/track) sets this to false: the 2xx says the platform took the request, so it resolves with `body: undefined`
   * instead of applying the write twice.
   * @default true
   */
  resendAfterCutShortSuccess?: boolean;
}

/** A successful (2xx) answer. */
export interface ApiResponse<T> {
  status: number;
  headers: ResponseHeaders;
  /** Parsed JSON body, already scrubbed of credentials; `undefined` when the body was empty. */
  body: T;
  /** The URL that answered (no credential is ever in a URL). */
  url: string;
  /** Attempts it took, 1 when the first one succeeded. */
  attempts: number;
}
