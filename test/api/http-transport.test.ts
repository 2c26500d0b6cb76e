// Both transports against real servers on port 0: bodies decoded and capped, connections kept, and each way a request
// can fail named as the client needs it (never connected, cut short, timed out, closed under it).
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchTransport } from '../../src/api/fetch-transport.js';
import { type HttpTransport, TransportError } from '../../src/api/http-transport.js';
import { nodeHttpTransport } from '../../src/api/node-http-transport.js';

interface Served {
  url: string;
  connections: () => number;
  close: () => Promise<void>;
}

const servers: Served[] = [];
const transports: HttpTransport[] = [];

async function serve(handler: (path: string, res: ServerResponse) => void): Promise<Served> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer((req, res) => handler(req.url ?? '/', res));
  server.on('connection', (s: Socket) => {
    connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const served: Served = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  servers.push(served);
  return served;
}

async function failureOf(promise: Promise<unknown>): Promise<TransportError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(TransportError);
    return error as TransportError;
  }
  throw new Error('expected a TransportError, but the request succeeded');
}

afterEach(async () => {
  for (const t of transports.splice(0)) t.close();
  for (const s of servers.splice(0)) await s.close();
});

const KINDS: [string, () => HttpTransport][] = [
  ['node:http', nodeHttpTransport],
  ['fetch', () => fetchTransport(globalThis.fetch)],
];

describe.each(KINDS)('the %s transport', (name, make) => {
  function transport(): HttpTransport {
    const t = make();
    transports.push(t);
    return t;
  }
  const get = (url: string, timeoutMs = 5_000) => ({ url, method: 'GET', headers: {}, body: undefined, timeoutMs });

  it('decodes gzip, deflate and br bodies, and caps what they decode to, not what travelled', async () => {
    const text = JSON.stringify({ message: 'success', data: 'é'.repeat(5_000) });
    const encoded: Record<string, Buffer> = {
      gzip: gzipSync(text),
      deflate: deflateSync(text),
      br: brotliCompressSync(text),
    };
    const server = await serve((path, res) => {
      const encoding = path.slice(1);
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': encoding });
      res.end(encoded[encoding]);
    });
    const t = transport();
    for (const encoding of Object.keys(encoded)) {
      const response = await t.send(get(`${server.url}/${encoding}`));
      expect(response.status).toBe(200);
      expect(await response.read(1_000_000)).toEqual({ text });
      // About 150 bytes travel; 10,031 bytes come out of the decoder, over a cap of 5,000.
      const capped = await (await t.send(get(`${server.url}/${encoding}`))).read(5_000);
      expect(capped).toHaveProperty('tooLarge');
    }
  });

  it('keeps one connection for requests sent one after another, and reads repeated headers joined', async () => {
    const server = await serve((_path, res) => {
      res.setHeader('X-RateLimit-Remaining', ['9', '8']);
      res.setHeader('Content-Type', 'application/json');
      res.end('{"ok":true}');
    });
    const t = transport();
    for (let i = 0; i < 5; i++) {
      const response = await t.send(get(server.url));
      expect(response.headers.get('x-ratelimit-remaining')).toBe('9, 8');
      expect(response.headers.get('Content-Type')).toBe('application/json');
      expect(response.headers.get('x-absent')).toBeNull();
      expect(await response.read(100)).toEqual({ text: '{"ok":true}' });
    }
    // undici's pool may open a second connection; the default transport keeps one.
    if (name === 'node:http') expect(server.connections()).toBe(1);
  });

  it('refuses an announced body over the cap without reading it', async () => {
    const server = await serve((_path, res) => {
      res.writeHead(200, { 'Content-Length': '10000000' });
      res.write('x'.repeat(1000));
    });
    const response = await transport().send(get(server.url));
    expect(await response.read(1_000)).toEqual({ tooLarge: { declared: 10_000_000 } });
  });

  it('names a refused connection as never connected', async () => {
    const server = await serve(() => undefined);
    const url = server.url;
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    const error = await failureOf(transport().send(get(url)));
    expect(error.failure).toBe('not-connected');
    expect(error.code).toBe('ECONNREFUSED');
  });

  it('names a body cut short as a connection failure, after the headers came', async () => {
    const server = await serve((_path, res) => {
      res.writeHead(200, { 'Content-Length': '100', 'Content-Type': 'application/json' });
      res.write('{"message":"succ');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const response = await transport().send(get(server.url));
    expect(response.status).toBe(200);
    const error = await failureOf(response.read(1_000));
    expect(error.failure).toBe('connection');
  });

  it('times out a server that answers its headers and then nothing, within the request timeout', async () => {
    const server = await serve((_path, res) => {
      res.writeHead(200, { 'Content-Length': '100' });
      res.write('{');
    });
    const started = Date.now();
    const response = await transport().send(get(server.url, 300));
    const error = await failureOf(response.read(1_000));
    expect(error.failure).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('ends a request in flight with `closed` when the transport is closed', async () => {
    const server = await serve(() => undefined);
    const t = transport();
    const pending = t.send(get(server.url, 10_000));
    await new Promise((resolve) => setTimeout(resolve, 50));
    t.close();
    expect((await failureOf(pending)).failure).toBe('closed');
    expect((await failureOf(t.send(get(server.url)))).failure).toBe('closed');
  });
});
