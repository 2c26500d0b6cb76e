// The built CLI: exit codes 0 / 3 / 1, failed rows listed, dry-run text, and no secret in any output.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PushFixture } from './push-test-helpers.js';
import { pushFixture, sql } from './push-test-helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'bin', 'engage-etl.js');

function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

let fx: PushFixture;
beforeEach(async () => {
  expect(
    existsSync(join(ROOT, 'dist', 'src', 'cli', 'push-command.js')),
    'the CLI is not built: run `npm run build` first',
  ).toBe(true);
  fx = await pushFixture();
  await sql(
    fx,
    `CREATE TABLE people AS SELECT * FROM (VALUES ('user_5', 'F'), ('user_6', 'Z')) t(external_id, gender)`,
  );
});
afterEach(async () => {
  await fx.close();
});

describe('engage-etl push', () => {
  it('exits 3 when some rows fail and lists them; 0 when the rerun has nothing new to send', async () => {
    const env = { ENGAGE_BASE_URL: fx.em.url, ENGAGE_API_KEY: fx.em.demoApiKey };
    const first = await cli(['push', 'user-attributes', '--table', 'people', '--db', fx.db], env);
    expect(first.code).toBe(3);
    expect(first.stdout).toMatch(/1 accepted, 0 unchanged, 1 rejected/);
    expect(first.stdout).toMatch(/row 1 users external_id:user_6: rejected — gender/);
    expect(first.stderr).toMatch(/push: batch 1\/1 answered: 2 rows \(1 accepted, 1 failed\)/);
    for (const out of [first.stdout, first.stderr]) expect(out).not.toContain(fx.em.demoApiKey);
    await sql(fx, `DELETE FROM people WHERE external_id = 'user_6'`);
    const second = await cli(['push', 'user-attributes', '--table', 'people', '--db', fx.db], env);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/succeeded .* 0 requests/);
  });

  it('exits 2 (a usage error) with the flag and the fix for an irreversible target without --confirm', async () => {
    const run = await cli([
      'push',
      'email-suppressions',
      '--sql',
      "SELECT 'a@example.com' AS email",
      '--db',
      fx.db,
      '--api-key',
      fx.em.demoApiKey,
      '--base-url',
      fx.em.url,
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/engage-etl: --confirm: email-suppressions cannot be undone; look at --dry-run first/);
    expect(run.stderr).not.toContain(fx.em.demoApiKey);
  });

  it('prints a dry run without needing a URL, a key or --confirm', async () => {
    const run = await cli([
      'push',
      'external-id-removals',
      '--sql',
      "SELECT 'legacy_user_20' AS external_id",
      '--db',
      fx.db,
      '--dry-run',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/dry run of push external-id-removals — nothing sent, nothing written/);
    expect(run.stdout).toMatch(
      /POST \/users\/external_ids\/remove \(pool external_ids_remove\): 1 rows in 1 requests — 1 delete/,
    );
    expect(run.stdout).toContain('"legacy_user_20"');
  });
});
