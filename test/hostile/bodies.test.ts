// Hostile bodies: huge (announced or streamed), lying about their length, truncated, dribbled, gzip garbage, HTML or
// another type on a 2xx, empty, and numbers no count can hold. Each ends within a bound with the right outcome.
import { gzipSync } from 'node:zlib';
import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fetchPurchaseQuantity, fetchRevenue } from '../../src/api/analytics-endpoints.js';
import { ENDPOINTS } from '../../src/api/endpoints.js';
import { FatalApiError, RetriableApiError } from '../../src/errors.js';
import { json, TestServer } from '../api/helpers/test-server.js';
import { expectOneLineError, hostileClient, within } from './hostile-kit.js';

const call = {
  endpoint: ENDPOINTS.purchasesQuantitySeries,
  query: { length: 1, ending_at: '2025-06-14T00:00:00Z', unit: 'day' },
};
const OK_BODY = JSON.stringify({ message: 'success', data: [{ time: '2025-06-13T00:00:00Z', purchase_quantity: 4 }] });

let server: TestServer;
beforeEach(async () => {
  server = await TestServer.create();
});
afterEach(async () => {
  await server.close();
});

/** Writes `total` bytes of a JSON array in 1 MiB chunks, honouring backpressure; resolves with the bytes written. */
async function stream(res: ServerResponse, total: number): Promise<number> {
  const chunk = Buffer.alloc(1 << 20, '1,');
  let written = 0;
  res.write('[');
  while (written < total && !res.destroyed) {
    written += chunk.length;
    if (!res.write(chunk)) await new Promise((r) => res.once('drain', r).once('close', r));
  }
  res.end('1]');
  return written;
}

describe('an oversized body', () => {
  it('streamed (200 MB, no Content-Length) is cut at maxBodyBytes, refused and not retried', async () => {
    // Reading 64 MiB on a busy machine may take more than the suite's usual 2 s per attempt.
    const { client } = hostileClient(server.url, { timeoutMs: 30_000 });
    let written = Promise.resolve(0);
    server.handle((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      written = stream(res, 200 * 1024 * 1024);
    });
    const error = await within(20_000, client.request(call));
    expect(
      expectOneLineError(
        error,
        /response body passed \d+ bytes while streaming, over maxBodyBytes=67108864; refused without reading the rest and not retried/,
      ),
    ).toBeInstanceOf(FatalApiError);
    expect(server.requests).toHaveLength(1);
    expect(await written).toBeLessThan(100 * 1024 * 1024);
  });

  it('announced by Content-Length is refused before a byte of it is read', async () => {
    const { client } = hostileClient(server.url, { maxBodyBytes: 1024 * 1024 });
    server.handle((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(200 * 1024 * 1024) });
      res.write('[');
    });
    const error = await within(2_000, client.request(call));
    expectOneLineError(error, /announces 209715200 bytes \(Content-Length\), over maxBodyBytes=1048576/);
    expect(server.requests).toHaveLength(1);
  });
});

describe('a body that is cut or garbled', () => {
  it('with a Content-Length that lies (1000 announced, 20 sent) is retried, and the honest answer then taken', async () => {
    const { client } = hostileClient(server.url);
    server.handle((_req, res, i) => {
      if (i > 0) return json(res, 200, JSON.parse(OK_BODY));
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '1000' });
      res.write(OK_BODY.slice(0, 20));
      setTimeout(() => res.socket?.destroy(), 20);
    });
    expect(await within(3_000, client.request(call))).toBeUndefined();
    expect(server.requests).toHaveLength(2);
  });

  it('truncated JSON every time ends after maxAttempts with one line', async () => {
    const { client } = hostileClient(server.url);
    server.handle((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(OK_BODY.slice(0, 30));
    });
    const error = await within(3_000, client.request(call));
    expect(
      expectOneLineError(error, /gave up: all 3 attempts failed.*not complete JSON \(truncated\?\)/),
    ).toBeInstanceOf(RetriableApiError);
    expect(server.requests).toHaveLength(3);
  });

  it('gzip garbage (Content-Encoding: gzip over random bytes) is retried within bounds, then fails with one line', async () => {
    const { client } = hostileClient(server.url);
    server.handle((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
      res.end(Buffer.from('this is not gzip at all, only bytes pretending'));
    });
    const error = await within(3_000, client.request(call));
    expectOneLineError(error, /gave up: all 3 attempts failed/);
    expect(server.requests).toHaveLength(3);
  });

  it('real gzip is decompressed and accepted', async () => {
    const { client } = hostileClient(server.url);
    server.handle((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
      res.end(gzipSync(OK_BODY));
    });
    expect((await client.request<{ data: unknown[] }>(call)).body.data).toHaveLength(1);
  });

  it('dribbled a byte at a time (slow loris) times out per attempt and ends within the attempts × timeout bound', async () => {
    const { client } = hostileClient(server.url, { timeoutMs: 300 });
    server.handle((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(' ')), 50);
      res.on('close', () => clearInterval(timer));
    });
    const error = await within(3_000, client.request(call));
    expectOneLineError(error, /gave up: all 3 attempts failed.*within timeoutMs=300 ms/);
    expect(server.requests).toHaveLength(3);
  });
});

describe('a 2xx that is not JSON', () => {
  it('HTML served with 200 (a proxy, a wrong base URL) is fatal at once, asking whether the base URL is right', async () => {
    const { client } = hostileClient(server.url);
    server.handle((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end('<!DOCTYPE html><html><head><title>Sign in</title></head><body>Welcome</body></html>');
    });
    const error = await within(2_000, client.request(call));
    expect(
      expectOneLineError(
        error,
        /the server answered HTML \(text\/html\) to GET \/purchases\/quantity_series — is the base URL right\?/,
      ),
    ).toBeInstanceOf(FatalApiError);
    expect(server.requests).toHaveLength(1);
  });

  it('HTML under application/json is named as HTML too, without retries', async () => {
    const { client } = hostileClient(server.url);
    server.handle((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('<html><body>Maintenance</body></html>');
    });
    expectOneLineError(await within(2_000, client.request(call)), /answered HTML under application\/json/);
    expect(server.requests).toHaveLength(1);
  });

  it('another type over a body that is not JSON (application/octet-stream) is fatal, naming the type', async () => {
    const { client } = hostileClient(server.url);
    server.handle((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      res.end('\u0000\u0001binary');
    });
    expectOneLineError(await within(2_000, client.request(call)), /answered application\/octet-stream, not JSON/);
    expect(server.requests).toHaveLength(1);
  });

  it('JSON under text/plain, or with no Content-Type at all, is accepted (independent servers differ)', async () => {
    const { client } = hostileClient(server.url);
    server.handle((_req, res, i) => {
      res.writeHead(200, i === 0 ? { 'Content-Type': 'text/plain' } : {});
      res.end(OK_BODY);
    });
    expect((await client.request<{ data: unknown[] }>(call)).body.data).toHaveLength(1);
    expect((await client.request<{ data: unknown[] }>(call)).body.data).toHaveLength(1);
    expect(server.requests[1]?.headers).toBeDefined();
  });

  it('204 with an empty body succeeds with no body', async () => {
    const { client } = hostileClient(server.url);
    server.handle((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    const response = await client.request(call);
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
  });
});

describe('an error page that is HTML', () => {
  it('502 with HTML is retried within bounds and quoted shortly on one line', async () => {
    const { client } = hostileClient(server.url);
    server.handle((_req, res) => {
      res.writeHead(502, { 'Content-Type': 'text/html' });
      res.end(`<html>\n<head><title>502 Bad Gateway</title></head>\n<body>${'x'.repeat(5000)}</body>\n</html>`);
    });
    const error = expectOneLineError(
      await within(3_000, client.request(call)),
      /gave up: all 3 attempts failed.*502 Bad Gateway/,
    );
    expect(error.message.length).toBeLessThan(1_000);
    expect(server.requests).toHaveLength(3);
  });
});

describe('numbers no count can hold', () => {
  const q = { length: 2, endingAt: '2025-06-14T00:00:00Z', unit: 'day' as const };
  it.each([
    [
      "1e20 (past BIGINT's exact range)",
      '1e20',
      /field `purchase_quantity`: 100000000000000000000 is past the largest count stored exactly/,
    ],
    ['1e400 (past a float)', '1e400', /field `purchase_quantity`: a number beyond a 64-bit float .* overflows/],
    ['"NaN"', '"NaN"', /field `purchase_quantity`: "NaN" is not a number/],
    ['"1e400" as a string', '"1e400"', /field `purchase_quantity`: "1e400" overflows a 64-bit float/],
    ['12.5 for a count', '12.5', /field `purchase_quantity`: 12\.5 is not a whole number/],
  ])('%s fails naming the endpoint, the series, the time, the field and the value', async (_name, raw, pattern) => {
    const { client } = hostileClient(server.url);
    server.handle((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(
        `{"message":"success","data":[{"time":"2025-06-12T00:00:00Z","purchase_quantity":1},{"time":"2025-06-13T00:00:00Z","purchase_quantity":${raw}}]}`,
      );
    });
    const error = await within(2_000, fetchPurchaseQuantity(client, { ...q, appId: 'app_1' }));
    expectOneLineError(
      error,
      /^GET \/purchases\/quantity_series \{"length":2,"ending_at":"2025-06-14T00:00:00Z","unit":"day","app_id":"app_1"\} failed with 200: .*data\[1\] \(time 2025-06-13T00:00:00Z\)/,
    );
    expect(error?.message).toMatch(pattern);
    expect(server.requests).toHaveLength(1);
  });

  it('a revenue amount with decimals is fine, an infinite one is not', async () => {
    const { client } = hostileClient(server.url);
    server.handle((_req, res, i) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(
        `{"message":"success","data":[{"time":"2025-06-13T00:00:00Z","revenue":${i === 0 ? '12.75' : '"-1e999"'}}]}`,
      );
    });
    expect(await fetchRevenue(client, q)).toEqual([{ time: '2025-06-13T00:00:00Z', value: 12.75 }]);
    expectOneLineError(
      await within(2_000, fetchRevenue(client, q)),
      /field `revenue`: "-1e999" overflows a 64-bit float/,
    );
  });
});
