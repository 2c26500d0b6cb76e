// `engage-etl check` looks up every id a pipeline names: ids the workspace lists pass (exit 0); an unknown app, segment,
// product, event or Canvas fails the check (exit 2) with one line per id naming its option and the nearest listed id,
// and `--json` carries them in `unknown_ids`. Apps, which no list shows, are asked with a day of sessions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import type { UnknownId } from '../../src/pipeline/check-ids.js';
import { makeTarget, removeDir, runCli, startEmulator, tempDir } from '../reliability/reliability-helpers.js';

const KNOWN = `name: known
start_date: 2025-03-01
streams:
  sessions:       { apps: ["*", app_1], segments: ["*", seg_1] }
  revenue:        { products: ["*", gems_small] }
  canvas_details: { canvases: [cv_1] }
`;
const BOGUS = `name: bogus
start_date: 2025-03-01
streams:
  sessions:       { apps: ["*", app_1, app_bogus], segments: ["*", seg_1, seg_bogus] }
  revenue:        { products: ["*", gems_smal] }
  canvas_details: { canvases: [cv_1, cv_9999] }
`;

let dir: string;
let em: Emulator;

beforeAll(async () => {
  dir = await tempDir('engage-check-ids-');
  em = await startEmulator();
});
afterAll(async () => {
  await em?.close();
  await removeDir(dir);
});

async function check(name: string, yaml: string, ...extra: string[]) {
  const t = await makeTarget(dir, name, yaml);
  return runCli(['check', '--pipeline', t.pipeline, '--base-url', em.url, ...extra], { ENGAGE_API_KEY: em.demoApiKey });
}

describe('engage-etl check, the ids a pipeline names', () => {
  it('passes a pipeline whose every id the workspace has, and says how many it looked up', async () => {
    const r = await check('known', KNOWN);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('ids the pipeline names: 4 looked up, 4 found in the workspace');
  });

  it('fails with exit 2 and one line per unknown id, naming its option and the nearest listed id', async () => {
    const r = await check('bogus-text', BOGUS);
    expect(r.code).toBe(2);
    const lines = r.stdout.split('\n').filter((l) => l.includes('UNKNOWN'));
    expect(lines).toHaveLength(4);
    expect(r.stdout).toContain(
      'UNKNOWN streams.sessions.apps: app "app_bogus" was refused by GET /sessions/data_series',
    );
    expect(r.stdout).toMatch(
      /UNKNOWN streams\.sessions\.segments: "seg_bogus" is not in the workspace's segments list \(nearest: "seg_\d+"/,
    );
    expect(r.stdout).toContain(
      'UNKNOWN streams.revenue.products: "gems_smal" is not in the workspace\'s products list (nearest: "gems_small"',
    );
    expect(r.stdout).toMatch(
      /UNKNOWN streams\.canvas_details\.canvases: "cv_9999" is not in the workspace's canvases list \(nearest: "cv_\d+"/,
    );
    expect(r.stderr).toContain('4 id(s) the workspace does not have');
  });

  it('prints one JSON line with unknown_ids, exit 2', async () => {
    const r = await check('bogus-json', BOGUS, '--json');
    expect(r.code).toBe(2);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!) as {
      exit_code: number;
      ok: boolean;
      unknown_ids: UnknownId[];
      ids_checked: number;
    };
    expect(line.exit_code).toBe(2);
    expect(line.ok).toBe(false);
    expect(line.ids_checked).toBe(7);
    expect(line.unknown_ids.map((u) => `${u.stream}.${u.option}=${u.id}`).sort()).toEqual([
      'canvas_details.canvases=cv_9999',
      'revenue.products=gems_smal',
      'sessions.apps=app_bogus',
      'sessions.segments=seg_bogus',
    ]);
    expect(line.unknown_ids.find((u) => u.id === 'gems_smal')?.nearest).toBe('gems_small');
    expect(line.unknown_ids.find((u) => u.id === 'app_bogus')).toMatchObject({ list: 'apps', nearest: null });
  });
});
