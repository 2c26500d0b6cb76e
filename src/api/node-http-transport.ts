// The default transport: node:http and node:https with keep-alive agents. A request costs about half the CPU of
// `fetch` (no web streams, no AbortSignal per request, no Headers object), and CPU per request is what binds a long
// backfill on a small machine (docs/decisions.md, "HTTP transport"). One timer per request bounds the answer and its
// body together; closing the transport destroys what is in flight.
import http, { type ClientRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import {
  type CappedBody,
  type HttpTransport,
  type ResponseHeaders,
  type TransportRequest,
  type TransportResponse,
  TransportError,
  connectionFailure,
} from './http-transport.js';

/**
 * Idle connections are closed after this unless the server announces a shorter keep-alive (the agent honours its
 * `Keep-Alive: timeout=N` hint), so a connection the server is about to close is not reused.
 */
const IDLE_SOCKET_MS = 4_000;

export function nodeHttpTransport(): HttpTransport {
  return new NodeHttpTransport();
}

class NodeHttpTransport implements HttpTransport {
  // LIFO reuse keeps the fewest connections warm when fewer requests are in flight than sockets are open.
  readonly #agents = {
    'http:': new http.Agent({ keepAlive: true, scheduling: 'lifo', timeout: IDLE_SOCKET_MS }),
    'https:': new https.Agent({ keepAlive: true, scheduling: 'lifo', timeout: IDLE_SOCKET_MS }),
  };
  readonly #inFlight = new Set<Exchange>();
  #closed = false;

  send(request: TransportRequest): Promise<TransportResponse> {
    if (this.#closed) return Promise.reject(new TransportError('closed', 'no response: the transport was closed'));
    return new Exchange(request, this.#agents, this.#inFlight).response;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const exchange of [...this.#inFlight]) exchange.fail('closed', 'the transport was closed');
    this.#agents['http:'].destroy();
    this.#agents['https:'].destroy();
  }
}

/** One request and its answer, from the first byte sent to the last byte of the body read. */
class Exchange {
  readonly response: Promise<TransportResponse>;
  readonly #request: ClientRequest;
  readonly #timer: NodeJS.Timeout;
  readonly #inFlight: Set<Exchange>;
  #connected = false;
  #failed: TransportError | undefined;
  // Whoever waits now (for the headers, then for the body) is told of a failure through this.
  #reject: (error: TransportError) => void = () => undefined;

  constructor(req: TransportRequest, agents: Record<'http:' | 'https:', http.Agent>, inFlight: Set<Exchange>) {
    this.#inFlight = inFlight;
    inFlight.add(this);
    const url = new URL(req.url);
    const secure = url.protocol === 'https:';
    const headers: Record<string, string> = { 'Accept-Encoding': 'gzip, deflate, br', ...req.headers };
    if (req.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(req.body));
    this.#request = (secure ? https : http).request(url, {
      method: req.method,
      headers,
      agent: agents[secure ? 'https:' : 'http:'],
    });
    this.#timer = setTimeout(() => this.fail('timeout', `no whole answer within ${req.timeoutMs} ms`), req.timeoutMs);
    this.response = new Promise<TransportResponse>((resolve, reject) => {
      this.#reject = reject;
      this.#request.on('socket', (socket) => {
        if (!socket.connecting) this.#connected = true;
        else socket.once('connect', () => (this.#connected = true));
      });
      this.#request.on('error', (error) => this.#lowLevel(error));
      this.#request.on('response', (res) => {
        resolve({
          status: res.statusCode ?? 0,
          headers: new NodeHeaders(res.headers),
          read: (maxBytes) => this.#read(res, maxBytes),
        });
      });
    });
    this.#request.end(req.body);
  }

  /** Ends the exchange with `failure` (a no-op once it has failed). */
  fail(failure: 'timeout' | 'closed', message: string): void {
    if (this.#failed) return;
    const error = new TransportError(failure, message);
    this.#settle(error);
    this.#request.destroy();
  }

  #lowLevel(error: Error): void {
    if (this.#failed) return;
    this.#settle(connectionFailure(error, this.#connected));
  }

  #settle(error: TransportError | undefined): void {
    clearTimeout(this.#timer);
    this.#inFlight.delete(this);
    if (error === undefined) return;
    this.#failed = error;
    this.#reject(error);
  }

  #read(res: IncomingMessage, maxBytes: number): Promise<CappedBody> {
    if (this.#failed) {
      res.resume();
      return Promise.reject(this.#failed);
    }
    return new Promise<CappedBody>((resolve, reject) => {
      this.#reject = reject;
      const encoding = res.headers['content-encoding']?.trim().toLowerCase();
      const declared = Number(res.headers['content-length'] ?? Number.NaN);
      if (encoding === undefined && Number.isFinite(declared) && declared > maxBytes) {
        this.#settle(undefined);
        this.#request.destroy();
        resolve({ tooLarge: { declared } });
        return;
      }
      const decoded = decoder(res, encoding, (error) => this.#lowLevel(error));
      const chunks: Buffer[] = [];
      let total = 0;
      decoded.on('data', (chunk: Buffer) => {
        total += chunk.byteLength;
        if (total > maxBytes) {
          this.#settle(undefined);
          this.#request.destroy();
          resolve({ tooLarge: { readBytes: total } });
          return;
        }
        chunks.push(chunk);
      });
      decoded.on('end', () => {
        if (this.#failed || total > maxBytes) return;
        this.#settle(undefined);
        resolve({
          text:
            chunks.length === 1
              ? (chunks[0] as Buffer).toString('utf8')
              : Buffer.concat(chunks, total).toString('utf8'),
        });
      });
      // A body cut short: the socket closed before the announced end.
      res.on('aborted', () =>
        this.#lowLevel(Object.assign(new Error('the body was cut short'), { code: 'ECONNRESET' })),
      );
      res.on('error', (error) => this.#lowLevel(error));
    });
  }
}

/** The body as sent (identity) or decoded from its Content-Encoding; a decoding error fails the exchange. */
function decoder(res: IncomingMessage, encoding: string | undefined, onError: (error: Error) => void): Readable {
  const make =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip
      : encoding === 'deflate'
        ? createInflate
        : encoding === 'br'
          ? createBrotliDecompress
          : undefined;
  if (make === undefined) return res;
  const stream = make();
  stream.on('error', onError);
  return res.pipe(stream);
}

/** node:http's header object (names lowercased) read as fetch's Headers are. */
class NodeHeaders implements ResponseHeaders {
  readonly #raw: IncomingHttpHeaders;

  constructor(raw: IncomingHttpHeaders) {
    this.#raw = raw;
  }

  get(name: string): string | null {
    const value = this.#raw[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }

  forEach(fn: (value: string, name: string) => void): void {
    for (const [name, value] of Object.entries(this.#raw)) {
      if (value !== undefined) fn(Array.isArray(value) ? value.join(', ') : value, name);
    }
  }
}
