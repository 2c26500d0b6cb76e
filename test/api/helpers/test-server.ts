// A tiny real HTTP server on an ephemeral port whose every answer the test scripts; it records what it received.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  /** Path and query as sent, e.g. `/prefix/events/list?page=0`. */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
  /** Epoch ms when the request arrived (real clock). */
  at: number;
}

/** Answers one request; `index` counts requests from 0. */
export type Handler = (req: ReceivedRequest, res: ServerResponse, index: number) => void | Promise<void>;

export class TestServer {
  readonly requests: ReceivedRequest[] = [];
  readonly #server: Server;
  #handler: Handler;
  readonly url: string;

  private constructor(server: Server, url: string, handler: Handler) {
    this.#server = server;
    this.url = url;
    this.#handler = handler;
  }

  static async create(handler: Handler = (_req, res) => json(res, 200, { message: 'success' })): Promise<TestServer> {
    let self: TestServer | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = req.url ?? '/';
        const parsed = new URL(url, 'http://localhost');
        const received: ReceivedRequest = {
          method: req.method ?? 'GET',
          url,
          path: parsed.pathname,
          query: parsed.searchParams,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        };
        const s = self as TestServer;
        const index = s.requests.push(received) - 1;
        Promise.resolve(s.#handler(received, res, index)).catch((error: unknown) => {
          res.statusCode = 599;
          res.end(String(error));
        });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    self = new TestServer(server, `http://127.0.0.1:${port}`, handler);
    return self;
  }

  /** Replaces how the server answers. */
  handle(handler: Handler): void {
    this.#handler = handler;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** Sends a JSON body with the given status and headers (header names written exactly as given). */
export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** A clock that only moves when the client sleeps, so long waits cost nothing and are recorded. */
export class FakeClock {
  t: number;
  readonly sleeps: number[] = [];

  constructor(start = Date.now()) {
    this.t = start;
  }

  readonly now = (): number => this.t;

  readonly sleep = async (ms: number): Promise<void> => {
    this.sleeps.push(ms);
    this.t += ms;
    await Promise.resolve();
  };
}
