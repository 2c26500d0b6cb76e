// The transport over a `fetch` function (fetch-transport for tests that record or fail requests, and for callers who
// bring their own): the request's timeout and the transport's closing abort it through one signal.
import { setMaxListeners } from 'node:events';
import {
  type CappedBody,
  type HttpTransport,
  type TransportRequest,
  type TransportResponse,
  TransportError,
  connectionFailure,
} from './http-transport.js';

export function fetchTransport(fetchImpl: typeof fetch): HttpTransport {
  const closing = new AbortController();
  // Every request in flight listens on the closing signal; more than Node's default 10 is normal.
  setMaxListeners(0, closing.signal);
  const failure = (error: unknown, timeout: AbortSignal, what: string): TransportError => {
    if (closing.signal.aborted) return new TransportError('closed', `${what}: the transport was closed`);
    if (timeout.aborted) return new TransportError('timeout', what);
    return connectionFailure(error);
  };
  return {
    async send(request: TransportRequest): Promise<TransportResponse> {
      const timeout = AbortSignal.timeout(request.timeoutMs);
      const signal = AbortSignal.any([timeout, closing.signal]);
      let response: Response;
      try {
        response = await fetchImpl(request.url, {
          method: request.method,
          headers: request.headers,
          body: request.body,
          signal,
          redirect: 'manual',
        });
      } catch (error) {
        throw failure(error, timeout, 'no response');
      }
      return {
        status: response.status,
        headers: response.headers,
        read: async (maxBytes) => {
          try {
            return await readCapped(response, maxBytes);
          } catch (error) {
            throw failure(error, timeout, 'body cut short');
          }
        },
      };
    },
    close(): void {
      closing.abort();
    },
  };
}

/** Reads `response.body` as UTF-8 text, at most `maxBytes`: a body announced or streamed past the cap is cancelled. */
async function readCapped(response: Response, maxBytes: number): Promise<CappedBody> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return { tooLarge: { declared } };
  }
  if (response.body === null) return { text: '' };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return { tooLarge: { readBytes: total } };
    }
    chunks.push(value);
  }
  return { text: Buffer.concat(chunks, total).toString('utf8') };
}
