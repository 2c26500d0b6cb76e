// A push killed (SIGKILL) right after its first acknowledged batch, then run again, sends each row exactly once: the
// ledger checkpoint after each answered request is what the rerun resumes from. Runs the built CLI (npm run build).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PushFixture } from './push-test-helpers.js';
import { pushFixture, query, sql, user } from './push-test-helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'bin', 'engage-etl.js');
const BUILT = join(ROOT, 'dist', 'src', 'push', 'run-push.js');

/**
 * Stands between the CLI and the emulator, holding each request `delayMs` before forwarding it. A request whose client
 * died meanwhile is dropped, never forwarded: a request lost with the killed process never reaches the platform.
 */
interface Relay {
  url: string;
  /** external_id lists of the requests that reached the emulator. */
  forwarded: string[][];
  dropped: number;
  close(): Promise<void>;
}

async function relay(target: string, delayMs: number): Promise<Relay> {
  const r: Relay = { url: '', forwarded: [], dropped: 0, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      setTimeout(() => {
        if (req.socket.destroyed) {
          r.dropped++;
          return;
        }
        const body = Buffer.concat(chunks).toString();
        r.forwarded.push((JSON.parse(body) as { external_id: string[] }).external_id);
        fetch(`${target}${req.url}`, {
          method: req.method,
          headers: { authorization: req.headers.authorization ?? '', 'content-type': 'application/json' },
          body,
        })
          .then(async (answer) => {
            res.writeHead(answer.status, { 'Content-Type': 'application/json' });
            res.end(await answer.text());
          })
          .catch(() => res.destroy());
      }, delayMs);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  r.close = () => new Promise<void>((done) => server.close(() => done()));
  return r;
}

function runCli(
  args: string[],
  env: Record<string, string>,
  onStderr?: (line: string, kill: () => void) => void,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      for (const line of c.toString().split('\n')) onStderr?.(line, () => child.kill('SIGKILL'));
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

let fx: PushFixture;
let r: Relay;
beforeEach(async () => {
  fx = await pushFixture();
  r = await relay(fx.em.url, 400);
});
afterEach(async () => {
  await r.close();
  await fx.close();
});

describe('a push killed mid-way', () => {
  it('resumes on rerun and sends each row exactly once', async () => {
    expect(existsSync(BUILT), 'the CLI is not built: run `npm run build` first').toBe(true);
    await sql(
      fx,
      `CREATE TABLE members AS SELECT 'sg_email_2' AS subscription_group_id, 'subscribed' AS subscription_state, 'user_' || i AS external_id FROM range(1, 201) t(i) ORDER BY i`,
    );
    const args = ['push', 'subscriptions', '--table', 'members', '--db', fx.db, '--base-url', r.url];
    const env = { ENGAGE_API_KEY: fx.em.demoApiKey };

    const killed = await runCli(args, env, (line, kill) => {
      if (/batch 1\/4 answered/.test(line)) kill();
    });
    expect(killed.signal).toBe('SIGKILL');
    // Let the relay's hold on the request in flight at the kill run out.
    await new Promise((done) => setTimeout(done, 600));
    expect(r.forwarded).toHaveLength(1);
    // The second request is usually on the wire when the kill lands (then the relay drops it); it may not have left yet.
    expect(r.dropped).toBeLessThanOrEqual(1);
    const firstBatch = r.forwarded[0]!;

    const rerun = await runCli(args, env);
    expect(rerun.stderr).not.toMatch(/engage-etl:/);
    expect(rerun.code).toBe(0);
    expect(rerun.stdout).toMatch(/150 accepted, 50 unchanged/);

    const sent = r.forwarded.flat();
    expect(sent).toHaveLength(200);
    expect(new Set(sent).size).toBe(200);
    expect(
      r.forwarded
        .slice(1)
        .flat()
        .some((id) => firstBatch.includes(id)),
    ).toBe(false);
    for (const id of ['user_1', 'user_100', 'user_200'])
      expect(user(fx, id).subscriptionGroups.get('sg_email_2')).toBe('subscribed');
    const runs = await query(fx, `SELECT "status", "rows_accepted" FROM "_push_runs" ORDER BY "started_at"`);
    expect(runs).toEqual([
      { status: 'abandoned', rows_accepted: null },
      { status: 'succeeded', rows_accepted: 150 },
    ]);
  }, 30_000);
});
