// `--json` is one line on stdout for every command that takes it (run, plan, status, check, push), on success and on
// failure alike: it parses, carries `error` (null on success) and `exit_code`, and the process exits with that code —
// usage errors commander finds before the command runs included. Run as processes of the built CLI.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import type { CliResult, Target } from '../reliability/reliability-helpers.js';
import { UNTIL, makeTarget, removeDir, runCli, startEmulator, tempDir } from '../reliability/reliability-helpers.js';

const PIPELINE = `name: json
start_date: 2025-06-10
streams:
  revenue:         { unit: day, apps: ["*"], products: ["*"] }
  email_templates: { ids: [tpl_1] }
  custom_events:   {}
`;

let dir: string;
let em: Emulator;
let t: Target;
let key: Record<string, string>;
let ran: CliResult;

beforeAll(async () => {
  dir = await tempDir('engage-json-');
  em = await startEmulator();
  t = await makeTarget(dir, 'json', PIPELINE);
  key = { ENGAGE_API_KEY: em.demoApiKey };
  ran = await runCli(
    ['run', '--pipeline', t.pipeline, '--base-url', em.url, '--db', t.db, '--out', t.out, '--until', UNTIL, '--json'],
    key,
  );
});
afterAll(async () => {
  await em?.close();
  await removeDir(dir);
});

/** The one line stdout holds, parsed; checks `error` and that `exit_code` is the process's exit code. */
function line(r: CliResult, expected: { code: number; failed: boolean }): Record<string, unknown> {
  const lines = r.stdout.split('\n');
  expect(lines, r.stdout + r.stderr).toHaveLength(2);
  expect(lines[1]).toBe('');
  const parsed = JSON.parse(lines[0]!) as Record<string, unknown>;
  expect(r.code, r.stderr).toBe(expected.code);
  expect(parsed['exit_code']).toBe(expected.code);
  if (expected.failed) expect(parsed['error']).toEqual(expect.any(String));
  else expect(parsed['error']).toBeNull();
  expect(r.stdout).not.toContain(em.demoApiKey);
  return parsed;
}

const base = () => ['--pipeline', t.pipeline, '--base-url', em.url];

describe('--json prints exactly one line', () => {
  it('run: on success, and on a usage error commander finds (exit 2)', async () => {
    expect(line(ran, { code: 0, failed: false })['status']).toBe('succeeded');
    const usage = await runCli(['run', ...base(), '--db', t.db, '--json', '--no-such-flag'], key);
    expect(line(usage, { code: 2, failed: true })['error']).toMatch(/unknown option '--no-such-flag'/);
  });

  it('plan: on success, with --discover, and for a missing pipeline file (exit 2)', async () => {
    const ok = line(await runCli(['plan', ...base(), '--db', t.db, '--until', UNTIL, '--json']), {
      code: 0,
      failed: false,
    });
    expect([ok['storedState'], ok['sent']]).toEqual(['read', 0]);
    const discovered = line(
      await runCli(['plan', ...base(), '--db', t.db, '--until', UNTIL, '--discover', '--json'], key),
      { code: 0, failed: false },
    );
    expect(discovered['sent']).toBe(3); // the 612 event names, 250 a page
    const missing = line(await runCli(['plan', '--pipeline', join(dir, 'none.yaml'), '--json']), {
      code: 2,
      failed: true,
    });
    expect(missing['error']).toContain('none.yaml');
  });

  it('status: on success, when stale (exit 1, with the data), and on a missing database (exit 1)', async () => {
    const ok = line(await runCli(['status', '--db', t.db, '--json']), { code: 0, failed: false });
    expect((ok['lastRun'] as { status: string }).status).toBe('succeeded');
    const stale = line(await runCli(['status', '--db', t.db, '--fail-if-stale', '1m', '--json']), {
      code: 1,
      failed: true,
    });
    expect(stale['error']).toMatch(/older than 1m/);
    expect((stale['freshness'] as { ok: boolean }).ok).toBe(false);
    const missing = line(await runCli(['status', '--db', join(dir, 'none.duckdb'), '--json']), {
      code: 2,
      failed: true,
    });
    expect(missing['error']).toMatch(/no database at/);
  });

  it('status --restatements: on success, and on a missing database', async () => {
    const ok = line(await runCli(['status', '--db', t.db, '--restatements', '--json']), { code: 0, failed: false });
    expect(ok['streams']).toEqual([]);
    line(await runCli(['status', '--db', join(dir, 'none.duckdb'), '--restatements', '--json']), {
      code: 2,
      failed: true,
    });
    line(await runCli(['status', '--db', t.db, '--restatements', '--share', '2', '--json']), { code: 2, failed: true });
  });

  it('check: on success, with the report when the key is refused (exit 2), and --permissions', async () => {
    const ok = line(await runCli(['check', ...base(), '--json'], key), { code: 0, failed: false });
    expect(ok['ok']).toBe(true);
    const refused = line(await runCli(['check', ...base(), '--json'], { ENGAGE_API_KEY: 'not-the-key-0123456789' }), {
      code: 2,
      failed: true,
    });
    expect(refused['ok']).toBe(false);
    expect((refused['streams'] as { outcome: string }[]).map((s) => s.outcome)).toEqual([
      'unauthorized',
      'unauthorized',
      'unauthorized',
    ]);
    const permissions = line(await runCli(['check', '--permissions', '--json']), { code: 0, failed: false });
    expect(
      (permissions['streams'] as { stream: string; needs: string[] }[]).find((s) => s.stream === 'custom_events')!
        .needs,
    ).toEqual(['events.list']);
  });

  it('check --list: on success, and with the lists when the key is refused (exit 2)', async () => {
    const ok = line(await runCli(['check', '--list', ...base(), '--json'], key), { code: 0, failed: false });
    expect((ok['lists'] as { list: string }[]).map((l) => l.list)).toContain('custom_events');
    const refused = line(
      await runCli(['check', '--list', ...base(), '--json'], { ENGAGE_API_KEY: 'not-the-key-0123456789' }),
      { code: 2, failed: true },
    );
    expect(refused['ok']).toBe(false);
  });

  it('push: a dry run, a push with a rejected row (exit 3, no error), and a push without rows to send (exit 2)', async () => {
    const env = { ENGAGE_BASE_URL: em.url, ...key };
    const rows = join(dir, 'people.json');
    await writeFile(
      rows,
      JSON.stringify([
        { external_id: 'user_5', gender: 'F' },
        { external_id: 'user_6', gender: 'Z' },
      ]),
    );
    const dry = line(await runCli(['push', 'user-attributes', '--file', rows, '--db', t.db, '--dry-run', '--json']), {
      code: 0,
      failed: false,
    });
    expect(dry['rowsToSend']).toBe(2);
    const partial = line(await runCli(['push', 'user-attributes', '--file', rows, '--db', t.db, '--json'], env), {
      code: 3,
      failed: false,
    });
    expect(partial['status']).toBe('partial');
    line(await runCli(['push', 'user-attributes', '--db', t.db, '--json'], env), { code: 2, failed: true });
  });
});
