// The `engage-etl emulator` command: flags validated into options with errors naming the flag, a keys file checked
// field by field, and --describe printing the seeded identifiers.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { RawEmulatorFlags } from '../../src/cli/emulator-command.js';
import { makeEmulatorCommand, resolveEmulatorFlags } from '../../src/cli/emulator-command.js';
import { ConfigError } from '../../src/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'engage-emulator-cmd-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const defaults: RawEmulatorFlags = {
  port: '4010',
  host: '127.0.0.1',
  seed: '1',
  latencyMs: '0',
  faultRate: '0',
  limitScale: '1',
  limitWindowScale: '1',
  rateLimits: true,
};

describe('emulator flags', () => {
  it('turns defaults into options', () => {
    expect(resolveEmulatorFlags(defaults)).toEqual({
      seed: 1,
      port: 4010,
      host: '127.0.0.1',
      latencyMs: 0,
      faultRate: 0,
      limitScale: 1,
      limitWindowScale: 1,
      rateLimits: true,
      idStyle: 'demo',
    });
  });

  it.each([
    [{ port: '70000' }, /--port: must be an integer from 0 to 65535/],
    [{ port: 'abc' }, /--port: must be an integer/],
    [{ seed: '1.5' }, /--seed: must be an integer/],
    [{ faultRate: '1.5' }, /--fault-rate: must be a probability from 0 to 1 \(e\.g\. 0\.05\), got "1\.5"/],
    [{ latencyMs: '-3' }, /--latency-ms: must be a number of milliseconds/],
    [{ limitScale: '0' }, /--limit-scale: must be a number > 0/],
    [{ limitWindowScale: 'x' }, /--limit-window-scale: must be a number > 0/],
    [{ now: 'noon' }, /--now: "noon" is not an ISO 8601 instant/],
    [{ host: ' ' }, /--host: must be an interface address/],
  ] as [Partial<RawEmulatorFlags>, RegExp][])('refuses %o', (bad, message) => {
    expect(() => resolveEmulatorFlags({ ...defaults, ...bad })).toThrow(ConfigError);
    expect(() => resolveEmulatorFlags({ ...defaults, ...bad })).toThrow(message);
  });

  it('reads a keys file and names file and field in every error, never the key', () => {
    const good = join(dir, 'keys.json');
    writeFileSync(
      good,
      JSON.stringify({ keys: [{ key: 'sekrit-1-5f0b3d7e9a21', name: 'reader', permissions: ['events.list'] }] }),
    );
    expect(resolveEmulatorFlags({ ...defaults, keys: good }).keys).toEqual([
      { key: 'sekrit-1-5f0b3d7e9a21', name: 'reader', permissions: ['events.list'] },
    ]);
    const cases: [unknown, RegExp][] = [
      [
        { keys: [{ key: 'sekrit-2-8e6c4a2f0d13', name: 'r', permissions: ['nope'] }] },
        /bad\.json: keys\[0\]\.permissions\[0\]: "nope" is not a permission/,
      ],
      [
        { keys: [{ key: 'sekrit-2-8e6c4a2f0d13', permissions: [] }] },
        /bad\.json: keys\[0\]\.name: must be a non-empty string/,
      ],
      [
        {
          keys: [
            { key: 'sekrit-2-8e6c4a2f0d13', name: 'a', permissions: [] },
            { key: 'sekrit-2-8e6c4a2f0d13', name: 'b', permissions: [] },
          ],
        },
        /bad\.json: keys\[1\]\.key: repeats another key/,
      ],
      [
        { keys: [{ key: 'sekrit', name: 'r', permissions: [] }] },
        /bad\.json: keys\[0\]\.key: is 6 characters long, shorter than any real one/,
      ],
      [
        { keys: [{ key: 'sekrit-2-8e6c4a2f0d13\u00e9', name: 'r', permissions: [] }] },
        /bad\.json: keys\[0\]\.key: contains a character outside visible ASCII \(U\+00E9/,
      ],
      [{ keys: {} }, /bad\.json: keys: must be an array/],
      [[], /bad\.json: must be a JSON object with a "keys" array/],
    ];
    for (const [content, message] of cases) {
      const bad = join(dir, 'bad.json');
      writeFileSync(bad, JSON.stringify(content));
      expect(() => resolveEmulatorFlags({ ...defaults, keys: bad })).toThrow(message);
      try {
        resolveEmulatorFlags({ ...defaults, keys: bad });
      } catch (err) {
        expect((err as Error).message).not.toContain('sekrit');
      }
    }
    writeFileSync(join(dir, 'broken.json'), '{ "keys": [');
    expect(() => resolveEmulatorFlags({ ...defaults, keys: join(dir, 'broken.json') })).toThrow(
      /broken\.json: is not valid JSON/,
    );
    expect(() => resolveEmulatorFlags({ ...defaults, keys: join(dir, 'missing.json') })).toThrow(
      /missing\.json: cannot read the keys file \(ENOENT\)/,
    );
  });
});

describe('emulator --describe', () => {
  it('prints the seed-1 identifiers the demo pipeline relies on', async () => {
    const out: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out.push(String(chunk));
      return true;
    });
    try {
      await makeEmulatorCommand().exitOverride().parseAsync(['node', 'emulator', '--describe']);
    } finally {
      spy.mockRestore();
    }
    const d = JSON.parse(out.join(''));
    expect(d.apps.map((a: { id: string }) => a.id)).toEqual(['app_1', 'app_2', 'app_3']);
    expect(d.products.length).toBeGreaterThanOrEqual(6);
    expect(d.products.length).toBeLessThanOrEqual(9);
    expect(d.products.find((p: { id: string }) => p.id === 'gems_small').price_usd).toBe(2);
    expect(d.segments.map((s: { id: string }) => s.id)).toEqual(['seg_1', 'seg_2', 'seg_3', 'seg_4', 'seg_5', 'seg_6']);
    expect(d.canvases.map((c: { id: string }) => c.id)).toEqual(['cv_1', 'cv_2', 'cv_3', 'cv_4', 'cv_5']);
    expect(d.canvases[0].steps[0]).toBe('cv_1_step_1');
    expect(d.email_templates.map((t: { id: string }) => t.id)).toEqual([
      'tpl_1',
      'tpl_2',
      'tpl_3',
      'tpl_4',
      'tpl_5',
      'tpl_6',
      'tpl_7',
      'tpl_8',
    ]);
    expect(d.content_blocks.filter((b: { deleted: boolean }) => b.deleted).map((b: { id: string }) => b.id)).toEqual([
      'cb_8',
    ]);
    expect(d.data_integrations).toBe(23);
    expect(d.custom_event_names).toBe(612);
    expect(d.custom_events).toHaveLength(612);
    expect(d.custom_events[0]).toEqual({
      name: expect.any(String),
      first_occurrence: expect.stringMatching(/^2023-0[1-3]-\d{2}T\d{2}:00:00\.000Z$/),
      mean_per_hour: expect.any(Number),
    });
    expect(d.kpis.paths).toEqual([
      '/kpi/dau/data_series',
      '/kpi/mau/data_series',
      '/kpi/new_users/data_series',
      '/kpi/uninstalls/data_series',
    ]);
    expect(d.test_hooks.restatable_series).toEqual(
      expect.arrayContaining(['events', 'dau', 'mau', 'new_users', 'uninstalls', 'canvas']),
    );
    expect(d.test_hooks.series_fault_modes).toEqual(
      expect.arrayContaining(['drop_all', 'drop_point', 'conflicting_duplicate', 'outside_window']),
    );
    expect(d.test_hooks.canvas_summary_skews).toEqual([]);
    expect(d.credentials.demo_api_key).toMatch(/^demo-[0-9a-f]{16}$/);
    expect(d.credentials.scim_token).toMatch(/^scim-[0-9a-f]{16}$/);
    expect(d).toHaveProperty('people');
  });
});
