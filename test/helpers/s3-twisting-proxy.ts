// A proxy in front of s3rver that twists the store the way real ones do: a LIST that lags behind the writes (it answers
// what it answered before — recorded, then replayed — as an eventually consistent listing or a cache in front of the
// store does), and a store that hangs up mid-upload (the connection of a PUT dropped before any answer).
import { createServer, request } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface S3TwistingProxy {
  endpoint: string;
  /**
   * 'pass': LIST answers pass; 'record': they pass and are kept per URL; 'replay': a LIST asked before gets its kept answer
   * (the store as it was then).
   */
  lists: 'pass' | 'record' | 'replay';
  /** PUTs (counted since the proxy started) let through before every further PUT's connection is dropped; Infinity: none. */
  putsBeforeHangUp: number;
  /** LIST answers replayed, PUTs received and PUTs dropped. */
  readonly counts: { replayed: number; puts: number; dropped: number };
  close(): Promise<void>;
}

const isList = (req: IncomingMessage): boolean => req.method === 'GET' && /[?&]list-type=2(&|$)/.test(req.url ?? '');

export async function startS3TwistingProxy(upstream: string): Promise<S3TwistingProxy> {
  const target = new URL(upstream);
  const recorded = new Map<
    string,
    { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }
  >();
  const sockets = new Set<import('node:net').Socket>();
  const proxy: S3TwistingProxy = {
    endpoint: '',
    lists: 'pass',
    putsBeforeHangUp: Infinity,
    counts: { replayed: 0, puts: 0, dropped: 0 },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };

  const forward = (req: IncomingMessage, res: ServerResponse, keep?: string) => {
    const up = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (upRes) => {
        if (keep === undefined) {
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        upRes.on('data', (c: Buffer) => chunks.push(c));
        upRes.on('end', () => {
          const body = Buffer.concat(chunks);
          recorded.set(keep, { status: upRes.statusCode ?? 502, headers: upRes.headers, body });
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          res.end(body);
        });
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  };

  const server = createServer((req, res) => {
    if (req.method === 'PUT' && proxy.counts.puts++ >= proxy.putsBeforeHangUp) {
      // Part of the body read, then the connection gone without an answer: a store or a middlebox hanging up.
      proxy.counts.dropped += 1;
      req.once('data', () => req.socket.destroy());
      req.once('end', () => req.socket.destroy());
      return;
    }
    if (isList(req)) {
      const kept = recorded.get(req.url!);
      if (proxy.lists === 'replay' && kept) {
        proxy.counts.replayed += 1;
        req.resume();
        res.writeHead(kept.status, kept.headers);
        res.end(kept.body);
        return;
      }
      forward(req, res, proxy.lists === 'record' ? req.url! : undefined);
      return;
    }
    forward(req, res);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
