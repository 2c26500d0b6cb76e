// A real HTTP proxy on port 0 in front of the emulator that can misbehave: answer some requests itself (HTML, a 401
// echoing the key, endless pages, absurd numbers) or add rate-limit headers of its own, like a gateway would.
import { createServer, request as httpRequest } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Answers a request itself (returns true) or lets it through to the emulator (false). */
export type Tamper = (req: IncomingMessage, url: URL, res: ServerResponse) => boolean;

/** Headers to add to an upstream answer, or 'reject' to answer 429 instead (a gateway over its limit). */
export type Gateway = (url: URL) => { headers: Record<string, string>; reject: boolean };

export class HostileProxy {
  readonly url: string;
  tamper: Tamper | undefined;
  gateway: Gateway | undefined;
  /** Requests received but not yet answered. */
  inFlight = 0;
  /** Milliseconds every request waits before it goes upstream: a path that slows down, changed at any moment. */
  latencyMs = 0;
  /** Paths (with query) received, in order. */
  readonly received: string[] = [];
  readonly #server: Server;

  private constructor(server: Server, url: string) {
    this.#server = server;
    this.url = url;
  }

  static async create(upstream: string): Promise<HostileProxy> {
    const target = new URL(upstream);
    let self: HostileProxy | undefined;
    const server = createServer((req, res) => {
      const proxy = self as HostileProxy;
      proxy.inFlight++;
      res.on('close', () => proxy.inFlight--);
      const url = new URL(req.url ?? '/', 'http://proxy');
      proxy.received.push(`${url.pathname}${url.search}`);
      if (proxy.tamper?.(req, url, res)) return;
      const gate = proxy.gateway?.(url);
      if (gate?.reject) {
        res.writeHead(429, { 'Content-Type': 'application/json', ...gate.headers });
        res.end('{"message":"rate limited by the gateway"}');
        return;
      }
      if (proxy.latencyMs > 0) {
        // Held until the body is piped upstream: no chunk may flow away meanwhile.
        req.pause();
        setTimeout(() => forward(req, res, gate), proxy.latencyMs);
        return;
      }
      forward(req, res, gate);
    });
    const forward = (req: IncomingMessage, res: ServerResponse, gate: ReturnType<Gateway> | undefined): void => {
      const up = httpRequest(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          // The gateway's X-RateLimit-* replace the emulator's (node lower-cases the names it received).
          const headers = { ...answer.headers };
          for (const [name, value] of Object.entries(gate?.headers ?? {})) headers[name.toLowerCase()] = value;
          res.writeHead(answer.statusCode ?? 502, headers);
          answer.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      req.pipe(up);
    };
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new HostileProxy(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return self;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
