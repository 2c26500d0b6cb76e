// `engage-etl init` against a workspace that is not the demo (other sizes, the platform's uuid ids): it reads only the
// lists, writes a file naming no demo id (`all`, `"*"` and the apps it was given), refuses to replace a file without
// --force, and the file it wrote passes `check` (exit 0) and runs (exit 0), with `plan` counting the first run within
// 1 %, the report beside the database. With a bogus app and segment added, `check` exits 2 naming both.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import { createEmulator } from '../../src/emulator/server.js';
import type { Emulator } from '../../src/emulator/server.js';
import { removeDir, runCli, tempDir } from '../reliability/reliability-helpers.js';

let dir: string;
let em: Emulator;
let apps: string[];
const START = DateTime.utc().minus({ days: 6 }).toISODate()!;

beforeAll(async () => {
  dir = await tempDir('engage-init-');
  em = await createEmulator({
    seed: 7,
    size: { apps: 3, products: 12, segments: 15, events: 20, canvases: 30, campaigns: 25 },
    idStyle: 'uuid',
  });
  apps = em.state.analytics.apps.map((a) => a.id);
});
afterAll(async () => {
  await em?.close();
  await removeDir(dir);
});

const env = () => ({ ENGAGE_API_KEY: em.demoApiKey });
const cli = (args: string[]) => runCli(args, env());

interface InitLine {
  exit_code: number;
  output: string;
  sent: number;
  lists: { list: string; objects: number; pages: number }[];
  requests: number;
  nights: number;
  by_pool: { pool: string; requests: number; per_night: number; nights: number }[];
}

describe("engage-etl init on a workspace whose ids are not the demo's", () => {
  const file = () => join(dir, 'acme.yaml');

  it('reads only list requests, writes a file of `all` and the given apps, and prints the first backfill per pool', async () => {
    const before = em.stats.requests;
    const r = await cli([
      'init',
      '--base-url',
      em.url,
      '--output',
      file(),
      '--start-date',
      START,
      '--apps',
      apps.slice(0, 2).join(','),
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const line = JSON.parse(r.stdout) as InitLine;
    expect(line.sent).toBe(em.stats.requests - before);
    // Beside the lists `all` reads, only the integrations list's pages (10 integrations a page): nothing but lists.
    const listPages = line.lists.reduce((n, l) => n + l.pages, 0);
    expect(line.sent - listPages).toBeGreaterThanOrEqual(1);
    expect(line.sent - listPages).toBeLessThanOrEqual(4);
    // 30 Canvases, some archived (the list leaves them out) or not yet created at this instant.
    expect(line.lists.find((l) => l.list === 'canvases')?.objects).toBeGreaterThan(20);
    expect(line.lists.find((l) => l.list === 'canvases')?.objects).toBeLessThanOrEqual(30);
    expect(line.nights).toBe(1);
    expect(line.by_pool.map((p) => p.pool)).toContain('purchases_events');
    const text = await readFile(file(), 'utf8');
    expect(text).not.toMatch(/\b(app|cv|seg|tpl|cb)_\d+\b/);
    expect(text).toContain(`apps: [ "*", ${apps[0]}, ${apps[1]} ]`);
    expect(text).toMatch(/^name: acme$/m);
    expect(text).toContain(`start_date: ${START}`);
    expect(text).toMatch(/^time_budget: 3h$/m);
    expect(text).toMatch(/^lookback_days: auto +# set each run from the restatements seen/m);
  });

  it('refuses to replace the file without --force (exit 2, nothing sent, file unchanged), and replaces it with --force', async () => {
    const before = await readFile(file(), 'utf8');
    const sentBefore = em.stats.requests;
    const r = await cli(['init', '--base-url', em.url, '--output', file()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('exists and was left unchanged; pass --force to replace it');
    expect(em.stats.requests).toBe(sentBefore);
    expect(await readFile(file(), 'utf8')).toBe(before);
    const forced = await cli([
      'init',
      '--base-url',
      em.url,
      '--output',
      file(),
      '--start-date',
      START,
      '--apps',
      apps.slice(0, 2).join(','),
      '--force',
    ]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toMatch(/first backfill from \d{4}-\d{2}-\d{2}: [\d,]+ requests/);
  });

  it('writes a file that check passes (exit 0), plan counts within 1 %, and run completes (exit 0)', async () => {
    const db = join(dir, 'acme.duckdb');
    const checked = await cli(['check', '--pipeline', file(), '--base-url', em.url]);
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
    const until = DateTime.utc().startOf('hour').toISO()!;
    const planned = await cli([
      'plan',
      '--pipeline',
      file(),
      '--base-url',
      em.url,
      '--db',
      db,
      '--until',
      until,
      '--json',
    ]);
    expect(planned.code, planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout) as { requests: number; countsAll: boolean };
    expect(plan.countsAll).toBe(true);
    const ran = await cli([
      'run',
      '--pipeline',
      file(),
      '--base-url',
      em.url,
      '--db',
      db,
      '--out',
      join(dir, 'parquet'),
      '--until',
      until,
      '--json',
      '--quiet',
    ]);
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    const summary = JSON.parse(ran.stdout) as { requests: { sent: number } };
    expect(Math.abs(plan.requests - summary.requests.sent) / summary.requests.sent).toBeLessThanOrEqual(0.01);
    // `report: {}` of the template: the report beside the database, not in the working folder.
    expect(existsSync(join(dir, 'report.html'))).toBe(true);
  }, 300_000);

  it('with a bogus app and a bogus segment added, check exits 2 naming both', async () => {
    const text = (await readFile(file(), 'utf8')).replace(
      /sessions: \{ unit: hour, apps: \[ "\*", ([^\]]*) \], segments: \[ "\*" \] \}/,
      'sessions: { unit: hour, apps: [ "*", $1, app_bogus ], segments: [ "*", seg_bogus ] }',
    );
    expect(text).toContain('app_bogus');
    const bogus = join(dir, 'bogus.yaml');
    await writeFile(bogus, text);
    const r = await cli(['check', '--pipeline', bogus, '--base-url', em.url, '--json']);
    expect(r.code).toBe(2);
    const line = JSON.parse(r.stdout) as { unknown_ids: { option: string; id: string; nearest: string | null }[] };
    expect(line.unknown_ids.map((u) => `${u.option}=${u.id}`).sort()).toEqual(['apps=app_bogus', 'segments=seg_bogus']);
  });
});

describe('engage-etl init on a workspace whose first backfill needs more than a night of the purchases pool', () => {
  it('says so in the file above each stream of that pool, and prints the nights', async () => {
    const big = await createEmulator({ seed: 3, size: { products: 200 }, idStyle: 'uuid' });
    try {
      const out = join(dir, 'big.yaml');
      const start = DateTime.utc().minus({ years: 4 }).toISODate()!;
      const r = await runCli(['init', '--base-url', big.url, '--output', out, '--start-date', start, '--json'], {
        ENGAGE_API_KEY: big.demoApiKey,
      });
      expect(r.code, r.stderr).toBe(0);
      const line = JSON.parse(r.stdout) as InitLine;
      const purchases = line.by_pool.find((p) => p.pool === 'purchases_events')!;
      // 201 series × 2 streams × 15 windows of 100 days, and the lists of products and events: over 6,000 at 3,000 a night.
      expect(purchases.per_night).toBe(3000);
      expect(purchases.nights).toBe(Math.ceil(purchases.requests / 3000));
      expect(purchases.nights).toBeGreaterThan(1);
      expect(line.nights).toBe(purchases.nights);
      const text = await readFile(out, 'utf8');
      const noted = [
        ...text.matchAll(
          /# FIRST BACKFILL: [\d,]+ requests of the purchases_events pool[^\n]*\n[^\n]*\n[^\n]*\n\s+(\w+):/g,
        ),
      ].map((m) => m[1]);
      expect(noted.sort()).toEqual(['purchase_quantity', 'revenue']);
      expect(text.replace(/\n# /g, ' ')).toContain(`${purchases.nights} nights under a time budget of 3h a night`);
    } finally {
      await big.close();
    }
  }, 120_000);
});
