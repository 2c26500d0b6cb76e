// Against a scripted platform on a real port: a request refused as a whole without naming the bad row is halved until
// the bad row stands alone; a platform that stays down leaves the rows transient, sent again by the next push.
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PushFixture } from './push-test-helpers.js';
import { pushFixture, pushed, query, sql } from './push-test-helpers.js';

interface Platform {
  url: string;
  /** Addresses of every request received, one list per request. */
  requests: string[][];
  down: boolean;
  close(): Promise<void>;
}

/** POST /email/blacklist that refuses a request holding any address starting with "bad" — without saying which. */
async function scriptedPlatform(): Promise<Platform> {
  const platform: Platform = { url: '', requests: [], down: false, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const emails = (JSON.parse(Buffer.concat(chunks).toString()) as { email: string[] }).email;
      platform.requests.push(emails);
      const [status, body] = platform.down
        ? [503, { message: 'maintenance' }]
        : emails.some((e) => e.startsWith('bad'))
          ? [400, { message: 'Invalid request' }]
          : [201, { message: 'success' }];
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  platform.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  platform.close = () => new Promise<void>((r) => server.close(() => r()));
  return platform;
}

let fx: PushFixture;
let platform: Platform;
beforeEach(async () => {
  fx = await pushFixture();
  platform = await scriptedPlatform();
});
afterEach(async () => {
  await platform.close();
  await fx.close();
});

describe('a request refused as a whole', () => {
  it('is halved until the one bad row of 50 is isolated; the other 49 are accepted', async () => {
    await sql(
      fx,
      `CREATE TABLE bounced AS SELECT CASE WHEN i = 37 THEN 'bad' ELSE 'ok' END || i || '@example.net' AS email FROM range(50) t(i)`,
    );
    const summary = await pushed(fx, 'email-suppressions', { table: 'bounced', confirm: true, baseUrl: platform.url });
    expect(summary).toMatchObject({ status: 'partial', rowsAccepted: 49, rowsRejected: 1 });
    expect(summary.failures).toEqual([
      expect.objectContaining({
        index: 37,
        key: 'bad37@example.net',
        status: 'rejected',
        error: '400: Invalid request',
      }),
    ]);
    // Depth first: 50 refused → 25 ok, 25 refused → 13 refused (rows 25–37) → 7 ok, 6 refused → 3 ok, 3 refused
    // → 2 ok, 1 refused (row 37, rejected) → then the 12 rows left of the second half, ok.
    expect(platform.requests.map((r) => r.length)).toEqual([50, 25, 25, 13, 7, 6, 3, 3, 2, 1, 12]);
    const accepted = platform.requests.filter((r) => !r.some((e) => e.startsWith('bad'))).flat();
    expect(new Set(accepted).size).toBe(49);
    expect(accepted).toHaveLength(49);
  });

  it('leaves rows transient when the platform stays down, and the next push sends them again', async () => {
    await sql(fx, `CREATE TABLE bounced AS SELECT 'ok' || i || '@example.net' AS email FROM range(120) t(i)`);
    platform.down = true;
    const down = await pushed(
      fx,
      'email-suppressions',
      { table: 'bounced', confirm: true, baseUrl: platform.url },
      { client: { maxAttempts: 2 } },
    );
    expect(down).toMatchObject({ status: 'partial', rowsTransient: 120, rowsAccepted: 0 });
    expect(down.stoppedEarly).toMatch(/sending stopped at batch 1 of 3/);
    // The first batch was tried twice; the two others were not sent at all.
    expect(platform.requests).toHaveLength(2);
    const log = await query(fx, `SELECT "status", count(*) AS n FROM "_push_log" WHERE "run_id" = $1 GROUP BY 1`, [
      down.runId,
    ]);
    expect(log).toEqual([{ status: 'transient', n: 120 }]);
    platform.down = false;
    platform.requests.length = 0;
    const up = await pushed(fx, 'email-suppressions', { table: 'bounced', confirm: true, baseUrl: platform.url });
    expect(up).toMatchObject({ status: 'succeeded', rowsAccepted: 120 });
    expect(platform.requests.map((r) => r.length)).toEqual([50, 50, 20]);
  });
});
