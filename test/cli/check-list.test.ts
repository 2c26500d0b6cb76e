// `engage-etl check --list` over HTTP against the emulator: a full key sees every workspace list (ids, names, archived
// Canvases and campaigns flagged as the emulator archived them) and the custom event names; a key missing one list's
// permission gets that list named as missing, the others still listed, and exit 2.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWorkspace } from '../../src/emulator/describe-workspace.js';
import type { Emulator } from '../../src/emulator/server.js';
import type { InventoryList } from '../../src/pipeline/workspace-inventory.js';
import { FROZEN_NOW, permissionsExcept, runCli, startEmulator } from '../reliability/reliability-helpers.js';

const NO_TEMPLATE_LIST_KEY = 'list-no-templates-8d2f6a1c4e9b';

let em: Emulator;

beforeAll(async () => {
  const permissions = permissionsExcept('templates.email.list');
  em = await startEmulator({ keys: [{ key: NO_TEMPLATE_LIST_KEY, name: 'no-template-list', permissions }] });
});
afterAll(async () => {
  await em?.close();
});

const list = (key: string, ...extra: string[]) =>
  runCli(['check', '--list', '--base-url', em.url, ...extra], { ENGAGE_API_KEY: key });

interface Described {
  canvases: { id: string; name: string }[];
  segments: { id: string; name: string }[];
  email_templates: { id: string; name: string }[];
  archived: Record<'canvases' | 'campaigns', { id: string; archived_at: string }[]>;
}

describe('engage-etl check --list', () => {
  it('lists every workspace list and the custom event names with ids and names, archived objects flagged, exit 0', async () => {
    const r = await list(em.demoApiKey, '--json');
    expect(r.code, r.stderr).toBe(0);
    const { lists, ok } = JSON.parse(r.stdout) as { lists: InventoryList[]; ok: boolean };
    expect(ok).toBe(true);
    expect(lists.map((l) => l.list).sort()).toEqual([
      'campaigns',
      'canvases',
      'content_blocks',
      'custom_events',
      'email_templates',
      'products',
      'segments',
    ]);
    const byName = new Map(lists.map((l) => [l.list, l]));
    const described = describeWorkspace(em.state) as unknown as Described;
    const named = (name: string, id: string) => byName.get(name)!.objects.find((o) => o.id === id);
    expect(named('canvases', 'cv_1')?.name).toBe(described.canvases.find((c) => c.id === 'cv_1')!.name);
    expect(named('segments', 'seg_1')?.name).toBe(described.segments.find((s) => s.id === 'seg_1')!.name);
    expect(named('email_templates', 'tpl_1')?.name).toBe(described.email_templates.find((t) => t.id === 'tpl_1')!.name);
    expect(named('products', 'gems_small')).toBeDefined();
    expect(byName.get('custom_events')!.objects.length).toBeGreaterThan(0);
    for (const kind of ['canvases', 'campaigns'] as const) {
      const flagged = byName
        .get(kind)!
        .objects.filter((o) => o.archived)
        .map((o) => o.id)
        .sort();
      const archivedByNow = described.archived[kind]
        .filter((a) => a.archived_at <= FROZEN_NOW)
        .map((a) => a.id)
        .sort();
      expect(flagged.length, kind).toBeGreaterThan(0);
      expect(flagged, kind).toEqual(archivedByNow);
    }
    for (const l of lists) expect(new Set(l.objects.map((o) => o.id)).size, l.list).toBe(l.objects.length);
  });

  it('prints a table per list, archived objects marked', async () => {
    const r = await list(em.demoApiKey);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/7 of 7 lists readable/);
    expect(r.stdout).toMatch(/^canvases \(GET \/canvas\/list, permission canvas\.list\): \d+ listed, \d+ archived$/m);
    expect(r.stdout).toMatch(/^ {2}cv_1 +\S.*$/m);
    expect(r.stdout).toMatch(/^ {2}cmp_\d+ +.*\(archived\)$/m);
  });

  it('names the list a key may not read, still lists the others, and exits 2', async () => {
    const r = await list(NO_TEMPLATE_LIST_KEY, '--json');
    expect(r.code).toBe(2);
    const { lists, ok, error, exit_code } = JSON.parse(r.stdout) as {
      lists: InventoryList[];
      ok: boolean;
      error: string;
      exit_code: number;
    };
    expect(ok).toBe(false);
    const templates = lists.find((l) => l.list === 'email_templates')!;
    expect(templates).toMatchObject({
      outcome: 'missing_permission',
      status: 403,
      permission: 'templates.email.list',
      objects: [],
    });
    expect(lists.filter((l) => l.outcome === 'ok').map((l) => l.list)).toHaveLength(6);
    expect(lists.find((l) => l.list === 'canvases')!.objects.length).toBeGreaterThan(0);
    // With --json the error is the line's `error`, pointing at `lists` in the same line.
    expect([exit_code, error]).toEqual([
      2,
      expect.stringMatching(
        /^1 of 7 lists: email_templates needs permission templates\.email\.list; grant the permission to the key; the lists it may read are shown in lists/,
      ),
    ]);
    expect(r.stdout + r.stderr).not.toContain(NO_TEMPLATE_LIST_KEY);
  });

  it('shows control characters in a name as escapes: nothing reaches the terminal raw', async () => {
    const segment = em.state.analytics.segments[0]!;
    const name = segment.name;
    segment.name = 'Evil\u001b[2J\u0000name\rX\u202eeulav';
    try {
      const r = await list(em.demoApiKey);
      expect(r.code, r.stderr).toBe(0);
      const line = r.stdout.split('\n').find((l) => l.startsWith(`  ${segment.id} `));
      expect(line).toMatch(/ Evil\\u001b\[2J\\u0000name\\rX\\u202eeulav$/);
      expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
    } finally {
      segment.name = name;
    }
  });
});
