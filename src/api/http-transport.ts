// What the API client needs of HTTP: send one request, read its status and headers, read its body up to a cap, and
// fail in a way that says whether the request may have reached the server. Two implementations: node:http with
// keep-alive agents (node-http-transport.ts, the default) and any `fetch` function (fetch-transport.ts, for tests and
// for callers that bring their own).

/** A response's headers, read case-insensitively; repeated headers arrive joined by ", ". */
export interface ResponseHeaders {
  get(name: string): string | null;
  forEach(fn: (value: string, name: string) => void): void;
}

/** One request, whole: the timeout bounds the answer and its body together. */
export interface TransportRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  timeoutMs: number;
}

/** The text of a body within the cap, or how the body overran it (announced, or found while streaming). */
export type CappedBody = { text: string } | { tooLarge: { declared?: number; readBytes?: number } };

/** An answer whose headers have arrived; its body is read (or given up) exactly once. */
export interface TransportResponse {
  status: number;
  headers: ResponseHeaders;
  /** Reads the body as UTF-8, at most `maxBytes` after decoding; rejects with a TransportError when it is cut short. */
  read(maxBytes: number): Promise<CappedBody>;
}

/**
 * How a request failed below HTTP. `not-connected`: no connection was made, so the server never saw it; `timeout`: no
 * whole answer within the request's timeout; `closed`: the transport was closed under it; `connection`: the
 * connection failed after it was made (the server may have counted the request).
 */
export type TransportFailure = 'not-connected' | 'timeout' | 'closed' | 'connection';

export class TransportError extends Error {
  readonly failure: TransportFailure;
  /** The system or library code (`ECONNRESET`, `UND_ERR_SOCKET`), when there is one. */
  readonly code: string | undefined;

  constructor(failure: TransportFailure, message: string, opts: { code?: string; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'TransportError';
    this.failure = failure;
    this.code = opts.code;
  }
}

export interface HttpTransport {
  /** Resolves when the status and headers have arrived; rejects with a TransportError. */
  send(request: TransportRequest): Promise<TransportResponse>;
  /** Ends every request in flight (they reject with failure `closed`) and the idle connections. Idempotent. */
  close(): void;
}

/**
 * Connection errors that prove the request was never sent: refused, no route, no such host, or no connection within
 * the connect timeout. A reset or a cut-short answer may come after the server counted the request, so it counts.
 */
const NEVER_CONNECTED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Whether `error` says no connection was made (an AggregateError of happy-eyeballs attempts: all of them). */
export function neverConnected(error: unknown): boolean {
  const cause = (error as { cause?: unknown } | undefined)?.cause ?? error;
  for (const e of [error, cause]) {
    const code = (e as { code?: unknown } | undefined)?.code;
    if (typeof code === 'string' && NEVER_CONNECTED.has(code)) return true;
    const errors = (e as { errors?: unknown } | undefined)?.errors;
    if (
      Array.isArray(errors) &&
      errors.length > 0 &&
      errors.every((x) => NEVER_CONNECTED.has(String((x as { code?: unknown } | undefined)?.code)))
    )
      return true;
  }
  return false;
}

/**
 * A low-level error as a TransportError: `not-connected` when it proves no connection was made (and `connected` does
 * not say otherwise), else `connection`.
 */
export function connectionFailure(error: unknown, connected = false): TransportError {
  const { code, detail } = errorDetail(error);
  const failure = !connected && neverConnected(error) ? 'not-connected' : 'connection';
  return new TransportError(failure, detail, { cause: error, ...(code !== undefined ? { code } : {}) });
}

/** The most telling code or message of a low-level error, for "connection failed: …". */
export function errorDetail(error: unknown): { code: string | undefined; detail: string } {
  const e = error as { message?: string; code?: string; cause?: { message?: string; code?: string } } | undefined;
  const code = e?.cause?.code ?? e?.code;
  return { code, detail: code ?? e?.cause?.message ?? e?.message ?? String(error) };
}
