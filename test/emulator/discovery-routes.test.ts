// The discovery endpoints over real HTTP: list shapes and paging (several pages, a short last page), include_archived,
// sort_direction, last_edit.time[gt], modified_after/before with limit/offset and count, segment and campaign details,
// objects appearing and edits moving last_edited as the clock advances, 400s for bad input, 403s naming the permission.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CANVAS_LIST_PAGE_SIZE, PRODUCT_LIST_PAGE_SIZE } from '../../src/api/endpoints.js';
import { archivedAt, existsAt, lastEditAt } from '../../src/emulator/analytics/lifecycle.js';
import {
  listedCampaigns,
  listedCanvases,
  listedContentBlocks,
  listedProducts,
  listedSegments,
  listedTemplates,
} from '../../src/emulator/analytics/workspace-listing.js';
import { describeWorkspace } from '../../src/emulator/describe-workspace.js';
import type { Emulator } from '../../src/emulator/server.js';
import { call, NOW, startEmulator } from './emulator-test-helpers.js';

let em: Emulator;
beforeAll(async () => {
  em = await startEmulator({ rateLimits: false });
});
afterEach(() => em.clock.set(NOW));
afterAll(() => em.close());

const nowMs = () => em.clock.nowMs();
const ws = () => em.state.analytics;

/** Every page of a paged list, requested until a short page, with the page bodies. */
async function allPages(
  path: string,
  key: string,
  pageSize: number,
): Promise<{ items: any[]; pages: number; lastLength: number }> {
  const items: any[] = [];
  for (let page = 0; page < 50; page++) {
    const sep = path.includes('?') ? '&' : '?';
    const r = await call(em, `${path}${sep}page=${page}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.message).toBe('success');
    items.push(...r.body[key]);
    if (r.body[key].length < pageSize) return { items, pages: page + 1, lastLength: r.body[key].length };
  }
  throw new Error(`${path} never ended`);
}

describe('/canvas/list', () => {
  it('lists every existing unarchived Canvas over more than one page of 100, ending with a short page', async () => {
    const { items, pages, lastLength } = await allPages('/canvas/list', 'canvases', CANVAS_LIST_PAGE_SIZE);
    expect(pages).toBeGreaterThan(1);
    expect(lastLength).toBeLessThan(CANVAS_LIST_PAGE_SIZE);
    expect(items).toEqual(listedCanvases(ws(), nowMs()));
    expect(Object.keys(items[0]).sort()).toEqual(['id', 'last_edited', 'name', 'tags']);
    for (const entry of items) {
      const canvas = ws().canvas(entry.id)!;
      expect(existsAt(canvas.lifecycle, nowMs())).toBe(true);
      expect(archivedAt(canvas.lifecycle, nowMs())).toBe(false);
    }
    expect(items.map((c) => c.id)).toContain('cv_1');
    expect(items.map((c) => c.id)).not.toContain('cv_4');
  });

  it('adds archived Canvases with include_archived=true, cv_4 among them', async () => {
    const plain = await allPages('/canvas/list', 'canvases', 100);
    const all = await allPages('/canvas/list?include_archived=true', 'canvases', 100);
    const archived = all.items.filter((c) => !plain.items.some((p) => p.id === c.id)).map((c) => c.id);
    expect(archived).toContain('cv_4');
    expect(archived.length).toBeGreaterThan(1);
    for (const id of archived) expect(archivedAt(ws().canvas(id)!.lifecycle, nowMs())).toBe(true);
    expect(all.items).toEqual(listedCanvases(ws(), nowMs(), { includeArchived: true }));
  });

  it('sorts by creation, oldest first by default, newest first with sort_direction=desc', async () => {
    const asc = (await allPages('/canvas/list', 'canvases', 100)).items.map((c) => c.id);
    const desc = (await allPages('/canvas/list?sort_direction=desc', 'canvases', 100)).items.map((c) => c.id);
    expect(desc).toEqual([...asc].reverse());
    const created = asc.map((id) => ws().canvas(id)!.lifecycle.createdMs);
    expect(created).toEqual([...created].sort((a, b) => a - b));
  });

  it('keeps only Canvases edited after last_edit.time[gt]', async () => {
    const since = '2024-01-01T00:00:00';
    const r = await call(em, `/canvas/list?${new URLSearchParams({ 'last_edit.time[gt]': since })}`);
    expect(r.status).toBe(200);
    expect(r.body.canvases.length).toBeGreaterThan(0);
    expect(r.body.canvases.length).toBeLessThan(listedCanvases(ws(), nowMs()).length);
    for (const c of r.body.canvases) expect(Date.parse(c.last_edited)).toBeGreaterThan(Date.parse(`${since}Z`));
    expect(r.body.canvases).toEqual(
      listedCanvases(ws(), nowMs(), { lastEditAfterMs: Date.parse(`${since}Z`) }).slice(0, 100),
    );
  });

  it("reads the documentation's own offset form with a one-digit hour (-5:00)", async () => {
    const r = await call(
      em,
      `/canvas/list?${new URLSearchParams({ 'last_edit.time[gt]': '2024-01-01T00:00:00-5:00' })}`,
    );
    expect(r.status).toBe(200);
    expect(r.body.canvases).toEqual(
      listedCanvases(ws(), nowMs(), { lastEditAfterMs: Date.parse('2024-01-01T05:00:00Z') }).slice(0, 100),
    );
    expect((await call(em, '/canvas/list?last_edit.time%5Bgt%5D=2024-06-1')).status).toBe(400);
  });

  it('answers a page past the end with an empty list', async () => {
    const r = await call(em, '/canvas/list?page=40');
    expect(r.body).toEqual({ canvases: [], message: 'success' });
  });

  it('shows a Canvas once the clock passes its creation, with details and a summary from then on', async () => {
    const later = ws().canvases.find((c) => c.lifecycle.createdMs > nowMs())!;
    expect(later).toBeDefined();
    expect((await allPages('/canvas/list', 'canvases', 100)).items.map((c) => c.id)).not.toContain(later.id);
    const before = await call(em, `/canvas/details?canvas_id=${later.id}`);
    expect(before.status).toBe(400);
    expect((await call(em, `/canvas/data_summary?canvas_id=${later.id}&length=1`)).status).toBe(400);

    em.clock.set(new Date(later.lifecycle.createdMs + 1000));
    const listed = (await allPages('/canvas/list?include_archived=true', 'canvases', 100)).items;
    expect(listed.map((c) => c.id)).toContain(later.id);
    const details = await call(em, `/canvas/details?canvas_id=${later.id}`);
    expect(details.status).toBe(200);
    expect(details.body.created_at).toBe(new Date(later.lifecycle.createdMs).toISOString());
    const summary = await call(em, `/canvas/data_summary?canvas_id=${later.id}&length=1`);
    expect(summary.status).toBe(200);
    expect(summary.body.data.total_stats.entries).toBe(0);
  });

  it('moves last_edited and updated_at when the clock passes an edit', async () => {
    const edited = ws().canvases.find((c) => c.lifecycle.editsMs.length > 0 && c.lifecycle.archivedMs === undefined)!;
    const edit = edited.lifecycle.editsMs[0]!;
    em.clock.set(new Date(edit - 1000));
    const before = listedCanvases(ws(), nowMs()).find((c) => c.id === edited.id)!;
    expect(Date.parse(before.last_edited)).toBeLessThan(edit);
    em.clock.set(new Date(edit));
    const page = (await allPages('/canvas/list', 'canvases', 100)).items.find((c) => c.id === edited.id);
    expect(page.last_edited).toBe(new Date(edit).toISOString());
    expect((await call(em, `/canvas/details?canvas_id=${edited.id}`)).body.updated_at).toBe(
      new Date(edit).toISOString(),
    );
  });

  it('refuses bad parameters with a 400 naming them', async () => {
    for (const [q, name] of [
      ['page=-1', 'page'],
      ['page=x', 'page'],
      ['include_archived=yes', 'include_archived'],
      ['sort_direction=up', 'sort_direction'],
      ['last_edit.time%5Bgt%5D=yesterday', 'last_edit.time[gt]'],
    ] as const) {
      const r = await call(em, `/canvas/list?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.message).toContain(name);
    }
  });
});

describe('/campaigns/list and /campaigns/details', () => {
  it('lists campaigns over more than one page with is_api_campaign; archived ones only on request', async () => {
    const plain = await allPages('/campaigns/list', 'campaigns', 100);
    const all = await allPages('/campaigns/list?include_archived=true&sort_direction=asc', 'campaigns', 100);
    expect(plain.pages).toBeGreaterThan(1);
    expect(plain.items).toEqual(listedCampaigns(ws(), nowMs()));
    expect(all.items).toEqual(listedCampaigns(ws(), nowMs(), { includeArchived: true }));
    expect(all.items.length).toBeGreaterThan(plain.items.length);
    expect(Object.keys(plain.items[0]).sort()).toEqual(['id', 'is_api_campaign', 'last_edited', 'name', 'tags']);
    expect(plain.items.some((c) => c.is_api_campaign)).toBe(true);
    const desc = await allPages('/campaigns/list?include_archived=true&sort_direction=desc', 'campaigns', 100);
    expect(desc.items.map((c) => c.id)).toEqual(all.items.map((c) => c.id).reverse());
  });

  it('answers details consistent with the list: name, tags, last edit, archive state, messages keyed by variation', async () => {
    const archived = listedCampaigns(ws(), nowMs(), { includeArchived: true }).filter(
      (c) => !listedCampaigns(ws(), nowMs()).some((p) => p.id === c.id),
    );
    const entry = archived[0]!;
    const r = await call(em, `/campaigns/details?campaign_id=${entry.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      name: entry.name,
      tags: entry.tags,
      updated_at: entry.last_edited,
      archived: true,
      enabled: false,
      message: 'success',
    });
    const campaign = ws().campaign(entry.id)!;
    expect(Object.keys(r.body.messages)).toEqual(campaign.variations.map((v) => v.id));
    for (const [id, m] of Object.entries(r.body.messages) as [string, { channel: string; name: string }][]) {
      expect(r.body.channels).toContain(m.channel);
      expect(m.name).toBe(campaign.variations.find((v) => v.id === id)!.name);
    }
    expect(r.body.conversion_behaviors.length).toBeGreaterThan(0);
    for (const key of ['description', 'created_at', 'draft', 'schedule_type', 'first_sent', 'last_sent', 'teams'])
      expect(r.body).toHaveProperty(key);
  });

  it('gives first_sent and last_sent only once sends happened, last_sent ≤ now', async () => {
    const campaign = ws().campaigns.find((c) => c.firstSendDayMs !== undefined && c.firstSendDayMs > nowMs())!;
    em.clock.set(new Date(campaign.lifecycle.createdMs + 1000));
    const early = await call(em, `/campaigns/details?campaign_id=${campaign.id}`);
    expect(early.status).toBe(200);
    expect(early.body.first_sent).toBeNull();
    expect(early.body.last_sent).toBeNull();
    em.clock.set(new Date(campaign.firstSendDayMs! + 3 * 86_400_000 + 23 * 3_600_000));
    const later = await call(em, `/campaigns/details?campaign_id=${campaign.id}`);
    expect(Date.parse(later.body.first_sent)).toBe(campaign.firstSendDayMs! + campaign.sendHour * 3_600_000);
    expect(Date.parse(later.body.last_sent)).toBeGreaterThanOrEqual(Date.parse(later.body.first_sent));
    expect(Date.parse(later.body.last_sent)).toBeLessThanOrEqual(nowMs());
  });

  it('refuses a missing, unknown or not-yet-created campaign with a 400 naming it', async () => {
    expect((await call(em, '/campaigns/details')).status).toBe(400);
    const unknown = await call(em, '/campaigns/details?campaign_id=cmp_9999');
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('cmp_9999');
    const later = ws().campaigns.find((c) => c.lifecycle.createdMs > nowMs())!;
    expect((await call(em, `/campaigns/details?campaign_id=${later.id}`)).status).toBe(400);
  });
});

describe('/segments/list and /segments/details', () => {
  it('lists existing segments (never archived ones) over more than one page, the untracked one included', async () => {
    const { items, pages } = await allPages('/segments/list', 'segments', 100);
    expect(pages).toBeGreaterThan(1);
    expect(items).toEqual(listedSegments(ws(), nowMs()));
    expect(Object.keys(items[0]).sort()).toEqual(['analytics_tracking_enabled', 'id', 'name', 'tags']);
    const untracked = items.filter((s) => !s.analytics_tracking_enabled).map((s) => s.id);
    expect(untracked).toEqual(
      ws()
        .segments.filter((s) => !s.analyticsTrackingEnabled)
        .map((s) => s.id),
    );
    const archived = ws()
      .segments.filter((s) => archivedAt(s.lifecycle, nowMs()))
      .map((s) => s.id);
    expect(archived.length).toBeGreaterThan(0);
    for (const id of archived) expect(items.map((s) => s.id)).not.toContain(id);
    expect(items.map((s) => s.id)).toEqual(
      expect.arrayContaining(['seg_1', 'seg_2', 'seg_3', 'seg_4', 'seg_5', 'seg_6']),
    );
    const created = items.map((s) => ws().segment(s.id)!.lifecycle.createdMs);
    expect(created).toEqual([...created].sort((x, y) => x - y));
    const desc = await allPages('/segments/list?sort_direction=desc', 'segments', 100);
    expect(desc.items.map((s) => s.id)).toEqual(items.map((s) => s.id).reverse());
  });

  it('answers details of a segment, archived ones too; a segment not yet created is a 400', async () => {
    const r = await call(em, '/segments/details?segment_id=seg_1');
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual([
      'created_at',
      'description',
      'message',
      'name',
      'tags',
      'teams',
      'text_description',
      'updated_at',
    ]);
    expect(r.body.name).toBe('Whales');
    const archived = ws().segments.find((s) => archivedAt(s.lifecycle, nowMs()))!;
    expect((await call(em, `/segments/details?segment_id=${archived.id}`)).status).toBe(200);
    const later = ws().segments.find((s) => !existsAt(s.lifecycle, nowMs()))!;
    const refused = await call(em, `/segments/details?segment_id=${later.id}`);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain(later.id);
  });

  it('refuses the series of the untracked segment with a 400 that says tracking is off', async () => {
    const untracked = ws().segments.find((s) => !s.analyticsTrackingEnabled)!;
    for (const path of [
      `/segments/data_series?segment_id=${untracked.id}&length=3`,
      `/sessions/data_series?segment_id=${untracked.id}&length=3`,
    ]) {
      const r = await call(em, path);
      expect(r.status, path).toBe(400);
      expect(r.body.message).toContain('analytics tracking off');
    }
  });

  it('treats a segment not yet created as unknown to its series too', async () => {
    const later = ws().segments.find((s) => !existsAt(s.lifecycle, nowMs()))!;
    for (const path of [
      `/segments/data_series?segment_id=${later.id}&length=3`,
      `/sessions/data_series?segment_id=${later.id}&length=3`,
    ]) {
      const r = await call(em, path);
      expect(r.status, path).toBe(400);
      expect(r.body.message).toContain(later.id);
    }
  });

  it('gives an added segment a zero size before its creation day and a positive one after', async () => {
    const seg = ws().segments.find(
      (s) =>
        s.lifecycle.createdMs > Date.parse('2023-06-01') &&
        existsAt(s.lifecycle, nowMs()) &&
        s.analyticsTrackingEnabled,
    )!;
    const created = new Date(seg.lifecycle.createdMs).toISOString().slice(0, 10);
    const r = await call(em, `/segments/data_series?segment_id=${seg.id}&length=3&ending_at=${created}T12:00:00Z`);
    expect(r.body.data.map((p: { size: number }) => p.size > 0)).toEqual([false, false, true]);
  });
});

describe('/purchases/product_list', () => {
  it('names the original products from the start and added ones once their first sale began, page by page', async () => {
    const at2024 = await allPages('/purchases/product_list', 'products', PRODUCT_LIST_PAGE_SIZE);
    expect(at2024.items).toEqual([
      'gems_small',
      'gems_medium',
      'gems_large',
      'coins_pack',
      'starter_bundle',
      'season_pass',
      'no_ads',
    ]);
    em.clock.set('2026-11-23T00:00:00Z');
    const later = await allPages('/purchases/product_list', 'products', PRODUCT_LIST_PAGE_SIZE);
    expect(later.pages).toBeGreaterThan(1);
    expect(later.items).toEqual(listedProducts(ws(), nowMs()));
    expect(later.items.slice(0, 7)).toEqual(at2024.items);
  });

  it('lists a product only once it sells: its first-sale hour has a sale in the quantity series', async () => {
    const product = ws().products.find((p) => p.firstSaleMs !== undefined)!;
    em.clock.set(new Date(product.firstSaleMs! - 1));
    expect(listedProducts(ws(), nowMs())).not.toContain(product.id);
    em.clock.set(new Date(product.firstSaleMs! + 2 * 3_600_000));
    expect((await allPages('/purchases/product_list', 'products', PRODUCT_LIST_PAGE_SIZE)).items).toContain(product.id);
    const hour = new Date(product.firstSaleMs!).toISOString();
    const r = await call(em, `/purchases/quantity_series?product=${product.id}&unit=hour&length=2&ending_at=${hour}`);
    expect(r.body.data.map((p: { purchase_quantity: number }) => p.purchase_quantity > 0)).toEqual([false, true]);
  });

  it('refuses a bad page with a 400', async () => {
    const r = await call(em, '/purchases/product_list?page=one');
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('page');
  });
});

describe('/templates/email/list and /content_blocks/list', () => {
  it('counts every matching template and pages them by limit and offset, leaving the drag-and-drop template out', async () => {
    const first = await call(em, '/templates/email/list');
    expect(first.status).toBe(200);
    expect(first.body.count).toBeGreaterThan(100);
    expect(first.body.templates).toHaveLength(100);
    const rest = await call(em, '/templates/email/list?offset=100&limit=1000');
    expect(rest.body.templates).toHaveLength(first.body.count - 100);
    const all = [...first.body.templates, ...rest.body.templates];
    expect(all).toEqual(listedTemplates(ws(), nowMs()));
    expect(Object.keys(all[0]).sort()).toEqual([
      'created_at',
      'email_template_id',
      'tags',
      'template_name',
      'updated_at',
    ]);
    const dnd = ws().templates.find((t) => t.dragAndDrop)!;
    expect(existsAt(dnd.lifecycle, nowMs())).toBe(true);
    expect(all.map((t) => t.email_template_id)).not.toContain(dnd.template.email_template_id);
    expect((await call(em, `/templates/email/info?email_template_id=${dnd.template.email_template_id}`)).status).toBe(
      200,
    );
  });

  it('filters on updated_at with modified_after and modified_before, both inclusive', async () => {
    const all = listedTemplates(ws(), nowMs());
    const pivot = all[40]!.updated_at;
    const after = await call(em, `/templates/email/list?modified_after=${pivot}&limit=1000`);
    expect(after.body.templates.map((t: { email_template_id: string }) => t.email_template_id)).toContain(
      all[40]!.email_template_id,
    );
    for (const t of after.body.templates) expect(Date.parse(t.updated_at)).toBeGreaterThanOrEqual(Date.parse(pivot));
    const before = await call(em, `/templates/email/list?modified_before=${pivot}&limit=1000`);
    for (const t of before.body.templates) expect(Date.parse(t.updated_at)).toBeLessThanOrEqual(Date.parse(pivot));
    expect(after.body.count + before.body.count).toBe(all.length + all.filter((t) => t.updated_at === pivot).length);
  });

  it('lists content blocks with liquid tags and inclusion counts equal to their info, deleted ones left out', async () => {
    const r = await call(em, '/content_blocks/list?limit=1000');
    expect(r.status).toBe(200);
    expect(r.body.count).toBe(r.body.content_blocks.length);
    expect(r.body.count).toBeGreaterThan(100);
    expect(r.body.content_blocks).toEqual(listedContentBlocks(ws(), nowMs()));
    expect(r.body.content_blocks.map((b: { content_block_id: string }) => b.content_block_id)).not.toContain('cb_8');
    for (const b of r.body.content_blocks.slice(0, 12)) {
      const info = await call(em, `/content_blocks/info?content_block_id=${b.content_block_id}`);
      expect(info.body.inclusion_count).toBe(b.inclusion_count);
      expect(info.body.last_edited).toBe(b.last_edited);
      expect(b.liquid_tag).toBe(`{{content_blocks.\${${b.content_block_id}}}}`);
    }
  });

  it('moves a block into a modified_after window when the clock passes its edit', async () => {
    const block = ws().contentBlocks.find((b) => b.lifecycle.editsMs.some((e) => e > nowMs()))!;
    const edit = block.lifecycle.editsMs.find((e) => e > nowMs())!;
    const since = new Date(edit).toISOString();
    const ids = async () =>
      (await call(em, `/content_blocks/list?modified_after=${since}&limit=1000`)).body.content_blocks.map(
        (b: { content_block_id: string }) => b.content_block_id,
      );
    expect(await ids()).not.toContain(block.id);
    em.clock.set(new Date(edit));
    expect(await ids()).toContain(block.id);
    expect(lastEditAt(block.lifecycle, nowMs())).toBe(edit);
  });

  it('refuses bad limit, offset and windows with a 400', async () => {
    for (const [q, name] of [
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['offset=-3', 'offset'],
      ['modified_after=soon', 'modified_after'],
      ['modified_after=2024-02-01&modified_before=2024-01-01', 'modified_after'],
    ] as const) {
      for (const path of ['/templates/email/list', '/content_blocks/list']) {
        const r = await call(em, `${path}?${q}`);
        expect(r.status, `${path}?${q}`).toBe(400);
        expect(r.body.message).toContain(name);
      }
    }
  });
});

describe('permissions and pools', () => {
  it.each([
    ['/canvas/list', 'canvas.list'],
    ['/campaigns/list', 'campaigns.list'],
    ['/campaigns/details?campaign_id=cmp_1', 'campaigns.details'],
    ['/campaigns/data_series?campaign_id=cmp_1&length=1', 'campaigns.data_series'],
    ['/segments/list', 'segments.list'],
    ['/segments/details?segment_id=seg_1', 'segments.details'],
    ['/purchases/product_list', 'purchases.product_list'],
    ['/templates/email/list', 'templates.email.list'],
    ['/content_blocks/list', 'content_blocks.list'],
  ])('answers %s without its permission with a 403 naming %s', async (path, permission) => {
    const limited = await startEmulator({
      keys: [{ key: 'k-events-only-777', name: 'events reader', permissions: ['events.list'] }],
    });
    try {
      const r = await call(limited, path, { key: 'k-events-only-777' });
      expect(r.status).toBe(403);
      expect(r.body.message).toContain(permission);
    } finally {
      await limited.close();
    }
  });

  it('draws the product list from the purchases and events pool of 1,000 per hour', async () => {
    const limited = await startEmulator({ limitScale: 1 / 1000 });
    try {
      expect((await call(limited, '/events/list')).status).toBe(200);
      const r = await call(limited, '/purchases/product_list');
      expect(r.status).toBe(429);
      expect((await call(limited, '/canvas/list')).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('a later run', () => {
  it('discovers the objects created since, and each new one answers its details', async () => {
    const ids = async (path: string, key: string, idKey = 'id') => {
      const out: string[] = [];
      for (let page = 0; ; page++) {
        const items = (await call(em, `${path}${path.includes('?') ? '&' : '?'}page=${page}`)).body[key] as Record<
          string,
          string
        >[];
        out.push(...items.map((i) => i[idKey]!));
        if (items.length < 100) return out;
      }
    };
    const before = {
      canvases: await ids('/canvas/list', 'canvases'),
      campaigns: await ids('/campaigns/list', 'campaigns'),
      segments: await ids('/segments/list', 'segments'),
    };
    const templatesBefore = (await call(em, '/templates/email/list?limit=1000')).body.count;
    em.clock.advance(365 * 86_400_000);
    const after = {
      canvases: await ids('/canvas/list', 'canvases'),
      campaigns: await ids('/campaigns/list', 'campaigns'),
      segments: await ids('/segments/list', 'segments'),
    };
    expect((await call(em, '/templates/email/list?limit=1000')).body.count).toBeGreaterThan(templatesBefore);
    const details: Record<keyof typeof before, (id: string) => string> = {
      canvases: (id) => `/canvas/details?canvas_id=${id}`,
      campaigns: (id) => `/campaigns/details?campaign_id=${id}`,
      segments: (id) => `/segments/details?segment_id=${id}`,
    };
    for (const kind of ['canvases', 'campaigns', 'segments'] as const) {
      const added = after[kind].filter((id) => !before[kind].includes(id));
      expect(added.length, kind).toBeGreaterThan(0);
      for (const id of added) expect((await call(em, details[kind](id))).status, id).toBe(200);
    }
  });
});

describe('--describe', () => {
  it('names the campaigns, the archived objects, the untracked segment, the drag-and-drop template and every instant', () => {
    const d = describeWorkspace(em.state) as any;
    expect(d.campaigns).toHaveLength(ws().campaigns.length);
    expect(d.campaigns[0]).toMatchObject({
      id: 'cmp_1',
      created_at: expect.any(String),
      edits: expect.any(Array),
      variations: expect.any(Array),
    });
    expect(d.untracked_segments).toEqual(['seg_101']);
    expect(d.drag_and_drop_templates).toEqual(['tpl_101']);
    expect(d.archived.canvases.map((c: { id: string }) => c.id)).toContain('cv_4');
    expect(d.archived.campaigns.length).toBeGreaterThan(0);
    expect(d.archived.segments.length).toBeGreaterThan(0);
    expect(d.added_over_time.canvases[0]).toMatchObject({
      id: 'cv_101',
      created_at: expect.any(String),
      edits: expect.any(Array),
    });
    expect(d.added_over_time.products.map((p: { id: string }) => p.id)).toContain('extra_lives');
    expect(d.added_over_time.email_templates.find((t: { drag_and_drop: boolean }) => t.drag_and_drop).id).toBe(
      'tpl_101',
    );
    const later = d.added_over_time.canvases
      .filter((c: { created_at: string }) => Date.parse(c.created_at) > nowMs())
      .map((c: { id: string }) => c.id);
    expect(later.length).toBeGreaterThan(0);
    for (const id of later)
      expect(listedCanvases(ws(), nowMs(), { includeArchived: true }).map((c) => c.id)).not.toContain(id);
  });
});
