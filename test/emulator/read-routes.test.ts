// Every READ route of the emulator over real HTTP: success shapes, every parameter range of section 4 refused with a
// 400 naming the parameter, the 7.2 error texts, and paging (Link header cursors, page index).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { call, startEmulator } from './emulator-test-helpers.js';

let em: Emulator;
beforeAll(async () => {
  em = await startEmulator();
});
afterAll(() => em.close());

describe('series routes', () => {
  it.each(['/purchases/quantity_series', '/purchases/revenue_series', '/sessions/data_series'])(
    '%s answers length days ending with today, oldest first',
    async (path) => {
      const r = await call(em, `${path}?length=3`);
      expect(r.status).toBe(200);
      expect(r.body.message).toBe('success');
      expect(r.body.data.map((p: { time: string }) => p.time)).toEqual(['2024-06-13', '2024-06-14', '2024-06-15']);
    },
  );

  it('gives purchase quantity as integers under purchase_quantity', async () => {
    const r = await call(
      em,
      '/purchases/quantity_series?length=2&app_id=app_1&product=gems_small&ending_at=2024-06-01T00:00:00Z',
    );
    expect(r.body.data).toHaveLength(2);
    for (const p of r.body.data) expect(Number.isInteger(p.purchase_quantity)).toBe(true);
  });

  it('answers hourly series with hour instants', async () => {
    const r = await call(em, '/sessions/data_series?length=2&unit=hour&ending_at=2024-06-10T05:59:59Z');
    expect(r.body.data.map((p: { time: string }) => p.time)).toEqual(['2024-06-10T04:00:00Z', '2024-06-10T05:00:00Z']);
    const q = await call(em, '/purchases/revenue_series?length=1&unit=hour&ending_at=2024-06-10T05:00:00Z');
    expect(q.body.data).toEqual([{ time: '2024-06-10T05:00:00Z', revenue: expect.any(Number) }]);
  });

  it('gives segment size per day for a known segment', async () => {
    const r = await call(em, '/segments/data_series?segment_id=seg_3&length=5&ending_at=2024-05-05');
    expect(r.status).toBe(200);
    expect(r.body.data.map((p: { time: string }) => p.time)).toEqual([
      '2024-05-01',
      '2024-05-02',
      '2024-05-03',
      '2024-05-04',
      '2024-05-05',
    ]);
    for (const p of r.body.data) expect(p.size).toBeGreaterThan(0);
  });

  it('returns zeros before the workspace start (2023-01-01)', async () => {
    const r = await call(em, '/sessions/data_series?length=3&ending_at=2023-01-01T10:00:00Z');
    expect(r.body.data).toEqual([
      { time: '2022-12-30', sessions: 0 },
      { time: '2022-12-31', sessions: 0 },
      { time: '2023-01-01', sessions: expect.any(Number) },
    ]);
    expect(r.body.data[2].sessions).toBeGreaterThan(0);
  });

  const rangeCases: [string, RegExp][] = [
    ['/purchases/quantity_series', /length is required/],
    ['/purchases/quantity_series?length=0', /length must be an integer from 1 to 100, got "0"/],
    ['/purchases/quantity_series?length=101', /length must be an integer from 1 to 100/],
    ['/purchases/quantity_series?length=2.5', /length must be an integer/],
    ['/purchases/quantity_series?length=abc', /length must be an integer/],
    ['/purchases/quantity_series?length=3&unit=week', /unit must be "day" or "hour", got "week"/],
    ['/purchases/quantity_series?length=3&ending_at=yesterday', /ending_at must be an ISO 8601 date-time/],
    [
      '/purchases/quantity_series?length=3&app_id=app_99',
      /app_id "app_99" is not known to this workspace; use one of app_1, app_2, app_3/,
    ],
    ['/purchases/quantity_series?length=3&product=gold_bars', /product "gold_bars" is not known/],
    ['/purchases/revenue_series?length=-1', /length must be an integer from 1 to 100/],
    ['/purchases/revenue_series?length=3&unit=minute', /unit must be/],
    ['/purchases/revenue_series?length=3&ending_at=2024-13-01', /ending_at must be an ISO 8601/],
    ['/sessions/data_series?length=1000', /length must be an integer from 1 to 100/],
    ['/sessions/data_series', /length is required/],
    ['/sessions/data_series?length=3&unit=month', /unit must be/],
    ['/sessions/data_series?length=3&segment_id=seg_x', /segment_id "seg_x" is not known/],
    ['/sessions/data_series?length=3&app_id=', /app_id "" is not known/],
    ['/sessions/data_series?length=3&ending_at=', /ending_at must be an ISO 8601/],
    ['/segments/data_series?length=3', /segment_id is required/],
    ['/segments/data_series?segment_id=seg_1', /length is required/],
    ['/segments/data_series?segment_id=seg_1&length=101', /length must be an integer from 1 to 100/],
    ['/segments/data_series?segment_id=nope&length=3', /segment_id "nope" is not known/],
    ['/segments/data_series?segment_id=seg_1&length=3&unit=hour', /unit must be "day", got "hour"/],
    ['/segments/data_series?segment_id=seg_1&length=3&ending_at=soon', /ending_at must be an ISO 8601/],
  ];
  it.each(rangeCases)('refuses %s with a 400 naming the parameter', async (path, message) => {
    const r = await call(em, path);
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(message);
  });
});

describe('events list', () => {
  it('pages 612 alphabetical names by 250, and past the end answers an empty list', async () => {
    const pages = await Promise.all([0, 1, 2, 3].map((p) => call(em, `/events/list?page=${p}`)));
    expect(pages.map((p) => p.body.events.length)).toEqual([250, 250, 112, 0]);
    const all = pages.flatMap((p) => p.body.events as string[]);
    expect(all).toEqual([...all].sort());
    expect(new Set(all).size).toBe(612);
    expect((await call(em, '/events/list')).body.events).toEqual(pages[0]!.body.events);
  });

  it.each(['-1', 'one', '1.5', ''])('refuses page=%s', async (page) => {
    const r = await call(em, `/events/list?page=${page}`);
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/page must be an integer ≥ 0/);
  });
});

describe('data integrations', () => {
  it('walks 23 integrations in pages of 10 by following the Link header', async () => {
    const seen: string[] = [];
    let next: string | undefined = '/cdi/integrations';
    const linkHeaders: (string | null)[] = [];
    while (next) {
      const r = await call(em, next);
      expect(r.status).toBe(200);
      expect(r.body.message).toBe('success');
      seen.push(...r.body.results.map((i: { integration_id: string }) => i.integration_id));
      const link = r.headers.get('link');
      linkHeaders.push(link);
      next = link?.match(/<([^>]+)>; rel="next"/)?.[1];
    }
    expect(seen).toHaveLength(23);
    expect(new Set(seen).size).toBe(23);
    expect(linkHeaders[0]).not.toMatch(/rel="prev"/);
    expect(linkHeaders[1]).toMatch(
      /^<\/cdi\/integrations\?cursor=[\w-]+>; rel="prev", <\/cdi\/integrations\?cursor=[\w-]+>; rel="next"$/,
    );
    expect(linkHeaders[2]).toMatch(/rel="prev"/);
    expect(linkHeaders[2]).not.toMatch(/rel="next"/);
  });

  it('gives every field of 2.3', async () => {
    const r = await call(em, '/cdi/integrations');
    expect(Object.keys(r.body.results[0]).sort()).toEqual([
      'app_group_id',
      'contact_emails',
      'integration_id',
      'integration_name',
      'integration_status',
      'integration_type',
      'last_job_start_time',
      'last_job_status',
      'last_updated_at',
      'next_scheduled_run',
      'warehouse_type',
    ]);
  });

  it.each(['garbage!', '', 'b2Zmc2V0OjM', 'b2Zmc2V0OjUwMA'])(
    'refuses cursor "%s" with 400 Invalid cursor',
    async (cursor) => {
      const r = await call(em, `/cdi/integrations?cursor=${cursor}`);
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ message: 'Invalid cursor' });
    },
  );
});

describe('Canvas details', () => {
  it('describes cv_1 with variants, steps, channels and messages', async () => {
    const r = await call(em, '/canvas/details?canvas_id=cv_1');
    expect(r.status).toBe(200);
    expect(r.body.message).toBe('success');
    expect(r.body.variants.map((v: { id: string }) => v.id)).toEqual(['cv_1_variant_1', 'cv_1_variant_2']);
    expect(r.body.variants[0].first_step_id).toBe('cv_1_step_1');
    expect(r.body.variants[1]).not.toHaveProperty('first_step_id');
    expect(r.body.steps[0].id).toBe('cv_1_step_1');
    expect(Object.keys(r.body.steps[0].messages).length).toBeGreaterThan(0);
    for (const key of [
      'created_at',
      'updated_at',
      'name',
      'description',
      'archived',
      'draft',
      'schedule_type',
      'first_entry',
      'last_entry',
      'channels',
      'tags',
      'teams',
    ]) {
      expect(r.body).toHaveProperty(key);
    }
  });

  it.each(['', '?canvas_id=non-existing', '?canvas_id='])('refuses %s with the recorded message', async (q) => {
    const r = await call(em, `/canvas/details${q}`);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ message: 'canvas_id must be a string of the Canvas api identifier' });
  });
});

describe('Canvas data summary', () => {
  it('answers totals and, on request, variant and step breakdowns', async () => {
    const r = await call(
      em,
      '/canvas/data_summary?canvas_id=cv_1&length=7&include_variant_breakdown=true&include_step_breakdown=true',
    );
    expect(r.status).toBe(200);
    expect(r.body.data.name).toBe('Onboarding journey');
    expect(Object.keys(r.body.data.variant_stats)).toEqual(['cv_1_variant_1', 'cv_1_variant_2']);
    // Each step message: the spec's four fields, then its channel's own (the platform's documentation of the channel).
    const own: Record<string, string[]> = {
      email: ['clicks', 'delivered', 'reported_spam', 'unique_clicks', 'unique_opens', 'unsubscribes'],
      ios_push: ['body_clicks', 'direct_opens', 'total_opens'],
      android_push: ['body_clicks', 'direct_opens', 'total_opens'],
      sms: ['delivered', 'delivery_failed', 'help', 'opt_out', 'undelivered'],
      webhook: ['errors'],
      in_app_message: ['clicks', 'first_button_clicks', 'impressions', 'second_button_clicks'],
    };
    const seen = new Set<string>();
    for (const step of Object.values(r.body.data.step_stats) as {
      messages: Record<string, Record<string, number>[]>;
    }[]) {
      for (const [channel, list] of Object.entries(step.messages)) {
        seen.add(channel);
        for (const m of list) {
          expect(Object.keys(m).slice(0, 4), channel).toEqual(['sent', 'opens', 'influenced_opens', 'bounces']);
          expect(Object.keys(m).slice(4).sort(), channel).toEqual(
            own[channel]!.filter((f) => !['sent', 'opens', 'bounces'].includes(f)),
          );
          if (channel === 'sms' || channel === 'webhook') expect(m.opens).toBe(0);
          if (channel.endsWith('_push')) expect(m.direct_opens).toBeLessThanOrEqual(m.total_opens!);
        }
      }
    }
    expect(seen.size).toBeGreaterThan(1);
    expect(Object.keys(r.body.data.variant_stats.cv_1_variant_1).sort()).toEqual([
      'conversions',
      'conversions_by_entry_time',
      'entries',
      'name',
      'revenue',
    ]);
    const plain = await call(em, '/canvas/data_summary?canvas_id=cv_1&length=7');
    expect(plain.body.data).not.toHaveProperty('variant_stats');
    expect(plain.body.data).not.toHaveProperty('step_stats');
  });

  it('includes deleted steps only with include_deleted_step_data=true', async () => {
    const base =
      '/canvas/data_summary?canvas_id=cv_2&length=14&ending_at=2024-06-01T00:00:00Z&include_step_breakdown=true';
    const without = await call(em, base);
    const withDeleted = await call(em, `${base}&include_deleted_step_data=true`);
    const extra = Object.keys(withDeleted.body.data.step_stats).filter((k) => !(k in without.body.data.step_stats));
    expect(extra).toHaveLength(1);
    expect(extra[0]).toMatch(/^cv_2_step_\d+$/);
  });

  const cases: [string, RegExp][] = [
    ['?length=3', /canvas_id must be a string of the Canvas api identifier/],
    ['?canvas_id=cv_99&length=3', /canvas_id must be a string/],
    ['?canvas_id=cv_1', /one of starting_at or length is required/],
    ['?canvas_id=cv_1&length=0', /length must be an integer from 1 to 14/],
    ['?canvas_id=cv_1&length=15', /length must be an integer from 1 to 14/],
    ['?canvas_id=cv_1&length=x', /length must be an integer from 1 to 14/],
    ['?canvas_id=cv_1&length=3&ending_at=nope', /ending_at must be an ISO 8601/],
    ['?canvas_id=cv_1&starting_at=nope', /starting_at must be an ISO 8601/],
    ['?canvas_id=cv_1&starting_at=2024-05-01T00:00:00Z&ending_at=2024-05-15T00:00:00Z', /spans 15 days .* at most 14/],
    ['?canvas_id=cv_1&starting_at=2024-05-10T00:00:00Z&ending_at=2024-05-01T00:00:00Z', /must not be after ending_at/],
    [
      '?canvas_id=cv_1&starting_at=2024-05-01T00:00:00Z&ending_at=2024-05-05T00:00:00Z&length=99',
      /length must be an integer from 1 to 14/,
    ],
    [
      '?canvas_id=cv_1&length=3&include_variant_breakdown=yes',
      /include_variant_breakdown must be true or false, got "yes"/,
    ],
    ['?canvas_id=cv_1&length=3&include_step_breakdown=1', /include_step_breakdown must be true or false/],
    ['?canvas_id=cv_1&length=3&include_deleted_step_data=TRUE', /include_deleted_step_data must be true or false/],
  ];
  it.each(cases)('refuses %s', async (q, message) => {
    const r = await call(em, `/canvas/data_summary${q}`);
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(message);
  });
});

describe('email templates', () => {
  it('gives tpl_1..tpl_8 with the fields of 2.8', async () => {
    for (let i = 1; i <= 8; i++) {
      const r = await call(em, `/templates/email/info?email_template_id=tpl_${i}`);
      expect(r.status).toBe(200);
      expect(r.body.email_template_id).toBe(`tpl_${i}`);
      expect(typeof r.body.tags).toBe('string');
      for (const key of ['template_name', 'description', 'subject', 'created_at', 'updated_at'])
        expect(r.body).toHaveProperty(key);
    }
  });

  it.each([
    ['', /email_template_id is required/],
    ['?email_template_id=tpl_99', /"tpl_99" is not an email template/],
  ])('refuses %s', async (q, message) => {
    const r = await call(em, `/templates/email/info${q}`);
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(message);
  });
});

describe('content blocks', () => {
  it('gives a block with its inclusions only when include_inclusion_data=true', async () => {
    const withData = await call(em, '/content_blocks/info?content_block_id=cb_1&include_inclusion_data=true');
    expect(withData.status).toBe(200);
    expect(withData.body.message).toBe('success');
    expect(withData.body.inclusion_data.length).toBe(withData.body.inclusion_count);
    expect(withData.body.inclusion_count).toBeGreaterThan(0);
    for (const id of withData.body.inclusion_data) expect(id).toMatch(/^cv_\d+_step_\d+_msg_\d+$/);
    const without = await call(em, '/content_blocks/info?content_block_id=cb_1');
    expect(without.body).not.toHaveProperty('inclusion_data');
    expect(without.body.inclusion_count).toBe(withData.body.inclusion_count);
  });

  it('leaves archived Canvases (cv_4) out of inclusion data', async () => {
    for (let i = 1; i <= 7; i++) {
      const r = await call(em, `/content_blocks/info?content_block_id=cb_${i}&include_inclusion_data=true`);
      for (const id of r.body.inclusion_data) expect(id).not.toMatch(/^cv_4_/);
    }
  });

  const rows: [string, string][] = [
    ['', 'Content Block ID cannot be blank'],
    ['?content_block_id=', 'Content Block ID cannot be blank'],
    ['?content_block_id=cb_404', 'Content Block ID is invalid for this workspace'],
    ['?content_block_id=cb_8', 'Content Block has been deleted—content not available'],
    ['?content_block_id=cb_1&include_inclusion_data=%22true%22', 'Include Inclusion Data—error'],
    ['?content_block_id=cb_1&include_inclusion_data=yes', 'Include Inclusion Data—error'],
  ];
  it.each(rows)('answers %s with the 7.2 error "%s"', async (q, message) => {
    const r = await call(em, `/content_blocks/info${q}`);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ message });
  });
});
