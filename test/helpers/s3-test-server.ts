// An S3-compatible store for tests and the benchmark without a cloud account: s3rver in this process on port 0, real
// HTTP, the real SDK. s3rver ignores `If-None-Match`, so `startConditionalProxy` puts a small proxy in front of it that
// answers 412 PreconditionFailed to a conditional PUT of a key that exists, as AWS documents — for the lock's tests.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

export interface S3TestServer {
  endpoint: string;
  bucket: string;
  /** The environment a CLI process (or this one) needs to reach it: endpoint, region, the fake credentials. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startS3TestServer(bucket = 'lake'): Promise<S3TestServer> {
  const directory = await mkdtemp(join(tmpdir(), 'engage-etl-s3rver-'));
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    env: {
      AWS_ENDPOINT_URL_S3: endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      // The SDK warns on Node < 22 once per process; the CLI's stderr under test should hold only its own lines.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    close: async () => {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** A proxy to `upstream` that enforces `If-None-Match: *` on PUT; `refused` counts its 412 answers. */
export async function startConditionalProxy(
  upstream: string,
): Promise<{ endpoint: string; refused: () => number; close(): Promise<void> }> {
  const target = new URL(upstream);
  let refused = 0;
  const forward = (method: string, path: string, headers: Record<string, string | string[] | undefined>) =>
    new Promise<{ status: number }>((resolve, reject) => {
      const req = request({ host: target.hostname, port: target.port, method, path, headers }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
      });
      req.on('error', reject);
      req.end();
    });
  // Conditional PUTs of one key are answered one at a time, check and write together, as the store does it atomically.
  const queues = new Map<string, Promise<void>>();
  const pass = (req: IncomingMessage, res: ServerResponse) =>
    new Promise<void>((resolve) => {
      const up = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (upRes) => {
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
          upRes.on('end', resolve);
        },
      );
      up.on('error', () => {
        res.destroy();
        resolve();
      });
      req.pipe(up);
    });
  const server = createServer((req, res) => {
    if (!(req.method === 'PUT' && req.headers['if-none-match'] === '*')) {
      void pass(req, res);
      return;
    }
    const path = req.url!.split('?')[0]!;
    const turn = (queues.get(path) ?? Promise.resolve()).then(async () => {
      // Anonymous: the PUT's signature does not sign a HEAD, and s3rver answers unsigned requests.
      const head = await forward('HEAD', path, { host: req.headers.host });
      if (head.status !== 200) return pass(req, res);
      refused += 1;
      req.resume();
      res.writeHead(412, { 'content-type': 'application/xml' });
      res.end(
        '<?xml version="1.0" encoding="UTF-8"?><Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message><Condition>If-None-Match</Condition></Error>',
      );
    });
    queues.set(
      path,
      turn.catch(() => undefined),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    refused: () => refused,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
