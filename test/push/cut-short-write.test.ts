// The client's opt-out for non-idempotent writes: a 2xx whose body is cut short is taken as done instead of resent.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/api-client.js';
import { ENDPOINTS } from '../../src/api/endpoints.js';

const servers: { close(): void }[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** A server that answers every request 201 with a body cut in the middle, and counts the requests. */
async function cutShortServer(): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    req.resume();
    req.on('end', () => {
      res.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': '100' });
      res.write('{"message":"succ');
      setTimeout(() => res.socket?.destroy(), 10);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push({ close: () => server.close() });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests };
}

describe('ApiCall.resendAfterCutShortSuccess', () => {
  it('when false, a 201 cut short resolves once with no body instead of being sent again', async () => {
    const server = await cutShortServer();
    const client = ApiClient.create({ baseUrl: server.url, apiKey: 'k-cut-short-6a0f2e8d4b17', backoffBaseMs: 1 });
    try {
      const response = await client.request({
        endpoint: ENDPOINTS.usersTrack,
        body: { attributes: [{ external_id: 'u', points: { inc: 5 } }] },
        resendAfterCutShortSuccess: false,
      });
      expect(response.status).toBe(201);
      expect(response.body).toBeUndefined();
      expect(server.requests()).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('by default the same answer is retried', async () => {
    const server = await cutShortServer();
    const client = ApiClient.create({
      baseUrl: server.url,
      apiKey: 'k-cut-short-6a0f2e8d4b17',
      backoffBaseMs: 1,
      maxAttempts: 2,
    });
    try {
      await expect(client.request({ endpoint: ENDPOINTS.usersTrack, body: { attributes: [] } })).rejects.toThrow(
        /cut short/,
      );
      expect(server.requests()).toBe(2);
    } finally {
      await client.close();
    }
  });
});
