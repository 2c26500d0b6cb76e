// A workspace that is not the demo: the emulator serves any number of Canvases, campaigns, segments, products, events and
// apps, with the demo's ids or with UUIDs as the platform issues them, over real HTTP — and the demo stays the demo.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { listedCampaigns, listedCanvases, listedSegments } from '../../src/emulator/analytics/workspace-listing.js';
import { generateAnalytics } from '../../src/emulator/analytics/analytics-workspace.js';
import { SIZE_PRESETS, styledId } from '../../src/emulator/analytics/workspace-size.js';
import type { Emulator } from '../../src/emulator/server.js';
import { createEmulator } from '../../src/emulator/server.js';
import { ConfigError } from '../../src/errors.js';
import { call } from './emulator-test-helpers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
// Late in the model's history, so most objects created over time exist.
const NOW = '2027-08-01T12:00:00Z';
const SIZE = { apps: 4, products: 30, segments: 104, events: 642, canvases: 208, campaigns: 123 };

let em: Emulator;
beforeAll(async () => {
  em = await createEmulator({ now: NOW, rateLimits: false, size: SIZE, idStyle: 'uuid' });
});
afterAll(() => em.close());

async function allPages(path: string, key: string): Promise<unknown[]> {
  const items: unknown[] = [];
  for (let page = 0; page < 100; page++) {
    const r = await call(em, `${path}${path.includes('?') ? '&' : '?'}page=${page}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const got = r.body[key] as unknown[];
    items.push(...got);
    if (got.length < 100) return items;
  }
  throw new Error(`${path} never ended`);
}

describe('a workspace of a given size with UUID ids', () => {
  it('holds exactly the counts asked for, every id a version-4 UUID and unique', () => {
    const a = em.state.analytics;
    expect({
      apps: a.apps.length,
      products: a.products.length,
      segments: a.segments.length,
      events: a.eventNames.length,
      canvases: a.canvases.length,
      campaigns: a.campaigns.length,
    }).toEqual(SIZE);
    for (const ids of [a.apps, a.segments, a.canvases, a.campaigns].map((list) => list.map((o) => o.id))) {
      for (const id of ids) expect(id).toMatch(UUID);
      expect(new Set(ids).size).toBe(ids.length);
    }
    expect(new Set(a.eventNames).size).toBe(SIZE.events);
    expect(new Set(a.products.map((p) => p.id)).size).toBe(SIZE.products);
  });

  it('lists them over HTTP, page after page, as the listing model says', async () => {
    const nowMs = Date.parse(NOW);
    const a = em.state.analytics;
    const canvases = await allPages('/canvas/list', 'canvases');
    expect(canvases).toEqual(listedCanvases(a, nowMs));
    expect(canvases.length).toBeGreaterThan(150);
    expect(await allPages('/campaigns/list', 'campaigns')).toEqual(listedCampaigns(a, nowMs));
    expect(await allPages('/segments/list', 'segments')).toEqual(listedSegments(a, nowMs));
    const events = await call(em, '/events/list');
    expect(events.status).toBe(200);
    expect(events.body.events.length).toBeGreaterThan(0);
  });

  it("answers series for its own ids and refuses the demo's, naming valid ones", async () => {
    const app = em.state.analytics.apps[1]!.id;
    const ok = await call(em, `/sessions/data_series?length=3&unit=day&app_id=${app}`);
    expect(ok.status).toBe(200);
    expect(ok.body.data).toHaveLength(3);
    const demo = await call(em, '/sessions/data_series?length=3&unit=day&app_id=app_1');
    expect(demo.status).toBe(400);
    expect(demo.body.message).toContain('app_id "app_1" is not known');
    expect(demo.body.message).toContain(em.state.analytics.apps[0]!.id);
    const canvas = em.state.analytics.canvases[0]!.id;
    const details = await call(em, `/canvas/details?canvas_id=${canvas}`);
    expect(details.status).toBe(200);
    expect(details.body.variants[0].id.startsWith(canvas)).toBe(true);
  });
});

describe('sizes and ids', () => {
  it('keeps the demo exactly when no size is given', () => {
    const demo = generateAnalytics(1);
    expect(demo.canvases[0]!.id).toBe('cv_1');
    expect(demo.apps.map((a) => a.id)).toEqual(['app_1', 'app_2', 'app_3']);
    expect(demo.canvases.length).toBe(165);
    expect(demo.campaigns.length).toBe(160);
  });

  it('gives a Canvas the same steps and dates whichever ids it carries', () => {
    const demo = generateAnalytics(1, { size: { canvases: 20 }, idStyle: 'demo' });
    const uuid = generateAnalytics(1, { size: { canvases: 20 }, idStyle: 'uuid' });
    expect(uuid.canvases.map((c) => c.details.created_at)).toEqual(demo.canvases.map((c) => c.details.created_at));
    expect(uuid.canvases.map((c) => c.details.steps.length)).toEqual(demo.canvases.map((c) => c.details.steps.length));
    expect(uuid.canvases[3]!.id).toBe(styledId(1, 'uuid', 'cv_4'));
  });

  it('builds a smaller workspace than the demo and a larger one', () => {
    const small = generateAnalytics(1, {
      size: { canvases: 2, segments: 3, products: 2, campaigns: 0 },
      idStyle: 'demo',
    });
    expect(small.canvases.map((c) => c.id)).toEqual(['cv_1', 'cv_2']);
    expect(small.segments.map((s) => s.id)).toEqual(['seg_1', 'seg_2', 'seg_3']);
    expect(small.products).toHaveLength(2);
    expect(small.campaigns).toHaveLength(0);
    const large = generateAnalytics(1, { size: { events: 1500, products: 40 }, idStyle: 'demo' });
    expect(new Set(large.eventNames).size).toBe(1500);
    expect(large.products.at(-1)!.id).toBe('product_40');
  });

  it('refuses counts it cannot serve, naming the option', async () => {
    await expect(createEmulator({ size: { apps: 0 } })).rejects.toThrow(ConfigError);
    await expect(createEmulator({ size: { canvases: -1 } })).rejects.toThrow(
      /size\.canvases: must be an integer from 0/,
    );
    await expect(createEmulator({ idStyle: 'guid' as never })).rejects.toThrow(/idStyle: must be one of demo, uuid/);
  });
});

describe('engage-etl emulator --size', () => {
  const bin = join(import.meta.dirname, '../../bin/engage-etl.js');

  it('describes a preset workspace with its own ids', () => {
    const r = spawnSync(process.execPath, [bin, 'emulator', '--size', '2k', '--id-style', 'uuid', '--describe'], {
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    });
    expect(r.status, r.stderr).toBe(0);
    const described = JSON.parse(r.stdout);
    expect(described.apps).toHaveLength(SIZE_PRESETS['2k']!.apps!);
    expect(described.apps[0].id).toMatch(UUID);
  });

  it('refuses an unknown size with the sizes it knows, exit 2', () => {
    const r = spawnSync(process.execPath, [bin, 'emulator', '--size', 'huge', '--describe'], {
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--size');
    expect(r.stderr).toContain('demo, small, 2k, 5k, 20k');
  });
});
