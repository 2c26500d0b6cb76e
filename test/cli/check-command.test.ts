// `engage-etl check` over HTTP against the emulator: a full key passes every stream (exit 0) and reports the pools'
// headroom; a key missing one permission names that stream and permission (exit 2) and passes the others; a base URL
// that does not answer, or answers 404 everywhere, exits 2 saying so; the README's permissions table is the generated one.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../src/api/endpoints.js';
import type { EndpointSpec } from '../../src/api/endpoints.js';
import { permissionsTable } from '../../src/cli/check-command.js';
import type { Emulator } from '../../src/emulator/server.js';
import type { CheckReport } from '../../src/pipeline/check-streams.js';
import type { Target } from '../reliability/reliability-helpers.js';
import {
  closedPort,
  REPO,
  makeTarget,
  permissionsExcept,
  removeDir,
  runCli,
  startEmulator,
  tempDir,
} from '../reliability/reliability-helpers.js';

const NO_SESSIONS_KEY = 'check-no-sessions-5c1e0a9b7d3f';
const NO_OPTIONAL_KEY = 'check-no-optional-2b7e4d9a1f6c';
/** Permissions only some option values need: the Canvas list (`all`), data_summary (reconcile) and one KPI. */
const OPTIONAL = ['canvas.list', 'canvas.data_summary', 'kpi.mau.data_series'];
const OPTIONS_YAML = `name: options
start_date: 2025-03-01
streams:
  kpis:           {}
  canvas_summary: { canvases: [cv_1], reconcile: true }
  canvas_details: { canvases: all }
  sessions:       { unit: day }
`;

let dir: string;
let em: Emulator;
let t: Target;

beforeAll(async () => {
  dir = await tempDir('engage-check-');
  const permissions = permissionsExcept('sessions.data_series');
  const every = permissionsExcept();
  em = await startEmulator({
    keys: [
      { key: NO_SESSIONS_KEY, name: 'no-sessions', permissions },
      { key: NO_OPTIONAL_KEY, name: 'no-optional', permissions: every.filter((p) => !OPTIONAL.includes(p)) },
    ],
  });
  t = await makeTarget(dir, 'check');
});
afterAll(async () => {
  await em?.close();
  await removeDir(dir);
});

const check = (key: string, baseUrl = em.url, ...extra: string[]) =>
  runCli(['check', '--pipeline', t.pipeline, '--base-url', baseUrl, ...extra], { ENGAGE_API_KEY: key });

describe('engage-etl check', () => {
  it('passes every stream of the pipeline with a full key, within seconds, and reports the headroom per pool', async () => {
    const r = await check(em.demoApiKey, em.url, '--json');
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as CheckReport;
    expect(report.ok).toBe(true);
    expect(report.streams).toHaveLength(10);
    expect(report.streams.every((s) => s.outcome === 'ok')).toBe(true);
    const pools = report.headroom.map((h) => h.pool).sort();
    expect(pools).toEqual(['cdi', 'default', 'purchases_events']);
    for (const h of report.headroom) expect(h.remaining).toBeLessThan(h.limit!);
    expect(r.ms).toBeLessThan(20_000);
  });

  it('names the stream and the permission a key lacks, passes the others, and exits 2', async () => {
    const r = await check(NO_SESSIONS_KEY);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/9 of 10 streams readable/);
    expect(r.stdout).toMatch(/^ {2}sessions +MISSING PERMISSION +sessions\.data_series +GET \/sessions\/data_series$/m);
    expect(r.stdout).toMatch(/^ {2}revenue +ok /m);
    expect(r.stderr).toMatch(
      /^engage-etl: 1 of 10 streams: sessions needs permission sessions\.data_series; grant the permission to the key, or remove the stream from /,
    );
    expect(r.stdout + r.stderr).not.toContain(NO_SESSIONS_KEY);
  });

  it('says the key is refused when it is not a key of this instance', async () => {
    const r = await check('not-a-key-of-this-instance');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^engage-etl: the API key: the service refused it \(401\)/);
    expect(r.stdout + r.stderr).not.toContain('not-a-key-of-this-instance');
  });

  it('says the base URL does not answer, and names every stream as failing on a base URL that answers 404', async () => {
    const port = await closedPort();
    const dead = await check(em.demoApiKey, `http://127.0.0.1:${port}`);
    expect(dead.code).toBe(2);
    expect(dead.stderr).toMatch(/^engage-etl: the base URL: no answer .*ECONNREFUSED.*check --base-url/);
    const wrongPath = await check(em.demoApiKey, `${em.url}/not-the-api`);
    expect(wrongPath.code).toBe(2);
    expect(wrongPath.stdout).toMatch(/0 of 10 streams readable/);
    expect(wrongPath.stdout).toMatch(/404/);
  }, 30_000);

  it('prints the permission of every stream, and the README shows exactly that table', async () => {
    const r = await runCli(['check', '--permissions']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(permissionsTable());
    const readme = await readFile(join(REPO, 'README.md'), 'utf8');
    const block = /<!-- permissions:start[^\n]*\n([\s\S]*?)\n<!-- permissions:end -->/.exec(readme)?.[1];
    expect(
      block,
      'README: regenerate the table between the permissions markers with `engage-etl check --permissions`',
    ).toBe(permissionsTable());
  });

  it("probes `events: all` like every other `all`: one page of the events list, then one event's series", async () => {
    const events = await makeTarget(
      dir,
      'events',
      'name: events\nstart_date: 2025-03-01\nstreams:\n  event_counts: { events: all }\n',
    );
    const before = { ...em.stats.byPool };
    const r = await runCli(['check', '--pipeline', events.pipeline, '--base-url', em.url, '--json'], {
      ENGAGE_API_KEY: em.demoApiKey,
    });
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as CheckReport;
    expect(report.streams.map((s) => [s.stream, s.outcome, s.permissions])).toEqual([
      ['event_counts', 'ok', ['events.data_series', 'events.list']],
    ]);
    // /events/list is in the purchases pool, /events/data_series in the default one: one request each.
    expect([
      em.stats.byPool.purchases_events - before.purchases_events,
      em.stats.byPool.default - before.default,
    ]).toEqual([1, 1]);
  });

  it('names the permission of the request that failed: the list `all` reads, a reconciliation, one KPI of four', async () => {
    const options = await makeTarget(dir, 'options', OPTIONS_YAML);
    const r = await runCli(['check', '--pipeline', options.pipeline, '--base-url', em.url, '--json'], {
      ENGAGE_API_KEY: NO_OPTIONAL_KEY,
    });
    expect(r.code, r.stderr).toBe(2);
    const report = JSON.parse(r.stdout) as CheckReport;
    const by = new Map(report.streams.map((s) => [s.stream, s]));
    expect(by.get('canvas_details')).toMatchObject({
      outcome: 'missing_permission',
      permission: 'canvas.list',
      endpoint: 'GET /canvas/list',
    });
    expect(by.get('canvas_summary')).toMatchObject({
      outcome: 'missing_permission',
      permission: 'canvas.data_summary',
      endpoint: 'GET /canvas/data_summary',
    });
    expect(by.get('kpis')).toMatchObject({
      outcome: 'missing_permission',
      permission: 'kpi.mau.data_series',
      endpoint: 'GET /kpi/mau/data_series',
    });
    expect(by.get('sessions')?.outcome).toBe('ok');
    expect(by.get('kpis')?.permissions).toEqual([
      'kpi.dau.data_series',
      'kpi.mau.data_series',
      'kpi.new_users.data_series',
      'kpi.uninstalls.data_series',
    ]);
    expect(by.get('canvas_summary')?.permissions).toEqual(['canvas.data_series', 'canvas.data_summary']);
    expect(by.get('canvas_details')?.permissions).toEqual(['canvas.details', 'canvas.list']);
    // With --json the error is the line's `error` (stderr stays empty for a machine reading both).
    expect((report as CheckReport & { error: string }).error).toMatch(
      /3 of 4 streams: .*canvas_details needs permission canvas\.list/,
    );
  });

  it('shows in the permissions table what some option values add, as the declarations say', () => {
    const rows = new Map(
      permissionsTable()
        .split('\n')
        .slice(2)
        .map((row) => [row.split(' | ')[0]!.replace(/^\| /, ''), row]),
    );
    expect(rows.get('kpis')).toContain(
      '`kpi.dau.data_series`, `kpi.mau.data_series`, `kpi.new_users.data_series`, `kpi.uninstalls.data_series` |',
    );
    expect(rows.get('canvas_summary')).toContain('`canvas.data_summary` with source: data_summary or reconcile: true');
    const lists: [string, string][] = [
      ['canvas_details', '`canvas.list` with canvases: all'],
      ['campaign_series', '`campaigns.list` with campaigns: all'],
      ['segment_size', '`segments.list` with segments: all'],
      ['revenue', '`purchases.product_list` with products: all'],
      ['email_templates', '`templates.email.list` with ids: all'],
      ['content_blocks', '`content_blocks.list` with ids: all'],
      ['event_counts', '`events.list` with events: all'],
    ];
    for (const [stream, cell] of lists) expect(rows.get(stream), stream).toContain(cell);
    const known = new Set(Object.values(ENDPOINTS as Record<string, EndpointSpec>).map((e) => e.permission));
    for (const p of permissionsTable().matchAll(/`([a-z_]+(?:\.[a-z_]+)+)`/g)) expect(known.has(p[1]), p[1]).toBe(true);
  });
  it('passes the shipped nightly pipeline, whose `all` lists start with a segment the stream skips (tracking off)', async () => {
    const r = await runCli(['check', '--base-url', em.url, '--pipeline', join(REPO, 'pipelines', 'nightly.yaml')], {
      ENGAGE_API_KEY: em.demoApiKey,
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/(\d+) of \1 streams readable/);
  });
});
