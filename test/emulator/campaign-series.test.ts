// /campaigns/data_series over real HTTP: the window, the shape, consistency with the campaign's details (channels,
// variation ids, nothing before the first send), the counters' inequalities, late data, restatements and 400s.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Campaign } from '../../src/emulator/analytics/campaign-catalogue.js';
import { campaignSeries } from '../../src/emulator/analytics/campaign-stats.js';
import { unitStartsEndingAt } from '../../src/emulator/analytics/query-params.js';
import type { Emulator } from '../../src/emulator/server.js';
import { call, NOW, startEmulator } from './emulator-test-helpers.js';

const DAY = 86_400_000;
let em: Emulator;
beforeAll(async () => {
  em = await startEmulator({ rateLimits: false });
});
afterEach(() => em.clock.set(NOW));
afterAll(() => em.close());

/** A campaign that has been sending for a while at NOW and is not archived. */
function sendingCampaign(): Campaign {
  const nowMs = Date.parse(NOW);
  // Every series is zero before the workspace's data start (2023-01-01), so the campaign starts sending after it.
  return em.state.analytics.campaigns.find(
    (c) =>
      c.firstSendDayMs !== undefined &&
      c.firstSendDayMs > Date.parse('2023-02-01') &&
      c.firstSendDayMs < nowMs - 60 * DAY &&
      c.lastSendDayMs === undefined,
  )!;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe('/campaigns/data_series', () => {
  it('answers length days ending with the day of ending_at, each with recipients, conversions, revenue and messages per channel', async () => {
    const c = sendingCampaign();
    const r = await call(em, `/campaigns/data_series?campaign_id=${c.id}&length=3&ending_at=2024-05-10T08:00:00Z`);
    expect(r.status).toBe(200);
    expect(r.body.message).toBe('success');
    expect(r.body.data.map((p: { time: string }) => p.time)).toEqual(['2024-05-08', '2024-05-09', '2024-05-10']);
    for (const p of r.body.data) {
      expect(Object.keys(p).sort()).toEqual([
        'conversions',
        'conversions1',
        'conversions1_by_send_time',
        'conversions2',
        'conversions2_by_send_time',
        'conversions3',
        'conversions3_by_send_time',
        'conversions_by_send_time',
        'messages',
        'revenue',
        'time',
        'unique_recipients',
      ]);
    }
  });

  it('equals the model computed for the same window, and leaves out days after now', async () => {
    const c = sendingCampaign();
    const r = await call(em, `/campaigns/data_series?campaign_id=${c.id}&length=10&ending_at=2024-06-20T00:00:00Z`);
    expect(r.body.data.at(-1).time).toBe('2024-06-15');
    expect(r.body.data).toHaveLength(5);
    const expected = campaignSeries(
      em.state.analytics,
      c,
      unitStartsEndingAt(Date.parse('2024-06-20T00:00:00Z'), 10, 'day'),
      em.clock.nowMs(),
    );
    expect(r.body.data).toEqual(expected);
  });

  it('uses the channels and variation ids of the details, with consistent counters', async () => {
    const c = sendingCampaign();
    const details = (await call(em, `/campaigns/details?campaign_id=${c.id}`)).body;
    const r = await call(em, `/campaigns/data_series?campaign_id=${c.id}&length=30&ending_at=2024-06-01`);
    let sentSomething = false;
    for (const p of r.body.data) {
      expect(Object.keys(p.messages).sort()).toEqual([...details.channels].sort());
      const variations = Object.values(p.messages).flat() as Record<string, number | string>[];
      expect(variations.map((v) => v.variation_api_id).sort()).toEqual(Object.keys(details.messages).sort());
      for (const [channel, list] of Object.entries(p.messages) as [string, Record<string, number | string>[]][]) {
        for (const v of list) {
          expect(details.messages[v.variation_api_id as string].channel).toBe(channel);
          expect(v.variation_name).toBe(details.messages[v.variation_api_id as string].name);
          // Content cards and in-app messages report impressions, not sends.
          if (v.sent !== undefined) expect(v.unique_recipients).toBe(v.sent);
          expect(v.conversions_by_send_time).toBeLessThanOrEqual(v.conversions as number);
        }
      }
      expect(p.unique_recipients).toBe(variations.reduce((s, v) => s + (v.unique_recipients as number), 0));
      expect(p.conversions).toBeLessThanOrEqual(p.unique_recipients);
      if (p.unique_recipients > 0) sentSomething = true;
    }
    expect(sentSomething).toBe(true);
  });

  // The platform's documentation of /campaigns/data_series, per channel (written out here, not read from src/).
  const COMMON = [
    'variation_api_id',
    'variation_name',
    'unique_recipients',
    'conversions',
    'conversions_by_send_time',
    'revenue',
  ];
  const PUSH = ['sent', 'direct_opens', 'total_opens', 'bounces', 'body_clicks'];
  const DOCUMENTED: Record<string, string[]> = {
    email: [
      'sent',
      'opens',
      'unique_opens',
      'clicks',
      'unique_clicks',
      'unsubscribes',
      'bounces',
      'delivered',
      'reported_spam',
    ],
    ios_push: PUSH,
    android_push: PUSH,
    sms: ['sent', 'delivered', 'undelivered', 'delivery_failed', 'opt_out', 'help'],
    webhook: ['sent', 'errors'],
    content_cards: [
      'total_impressions',
      'unique_impressions',
      'total_clicks',
      'unique_clicks',
      'total_dismissals',
      'unique_dismissals',
    ],
    in_app_message: ['impressions', 'clicks', 'first_button_clicks', 'second_button_clicks'],
  };
  const BUTTON = /^(carousel_slide|notif_button)_\d+_.+_click$/;

  it('answers each channel its own documented fields, consistent with each other, on a campaign with every channel', async () => {
    const nowMs = Date.parse(NOW);
    const omni = em.state.analytics.campaigns.filter((c) => new Set(c.variations.map((v) => v.channel)).size === 7);
    expect(omni.length).toBeGreaterThanOrEqual(5);
    const c = omni.find(
      (x) =>
        x.firstSendDayMs !== undefined &&
        x.firstSendDayMs < nowMs - 40 * DAY &&
        (x.lastSendDayMs ?? Infinity) > nowMs - 10 * DAY,
    )!;
    expect(c).toBeDefined();
    const r = await call(em, `/campaigns/data_series?campaign_id=${c.id}&length=30&ending_at=${day(nowMs - 10 * DAY)}`);
    const seen = new Set<string>();
    let buttons = 0;
    for (const p of r.body.data) {
      expect(Object.keys(p.messages).sort()).toEqual(Object.keys(DOCUMENTED).sort());
      for (const [channel, list] of Object.entries(p.messages) as [string, Record<string, number>[]][]) {
        for (const v of list) {
          const fields = Object.keys(v).filter((f) => !BUTTON.test(f));
          expect(fields.sort(), channel).toEqual([...COMMON, ...DOCUMENTED[channel]!].sort());
          const extra = Object.keys(v).filter((f) => BUTTON.test(f));
          if (extra.length > 0) expect(channel.endsWith('_push')).toBe(true);
          buttons += extra.length;
          if (v.sent ?? v.total_impressions ?? v.impressions) seen.add(channel);
          if (channel === 'email') {
            expect(v.unique_opens).toBeLessThanOrEqual(v.opens!);
            expect(v.unique_clicks).toBeLessThanOrEqual(v.unique_opens!);
            expect(v.delivered! + v.bounces!).toBe(v.sent);
          } else if (channel.endsWith('_push')) {
            expect(v.direct_opens).toBeLessThanOrEqual(v.total_opens!);
            expect(v.bounces).toBeLessThanOrEqual(v.sent!);
            for (const f of extra) expect(v[f]).toBeLessThanOrEqual(v.body_clicks!);
          } else if (channel === 'sms') {
            expect(v.delivered! + v.undelivered! + v.delivery_failed!).toBe(v.sent);
            expect(v.opt_out).toBeLessThanOrEqual(v.delivered!);
          } else if (channel === 'webhook') {
            expect(v.errors).toBeLessThanOrEqual(v.sent!);
          } else if (channel === 'content_cards') {
            expect(v.unique_impressions).toBeLessThanOrEqual(v.total_impressions!);
            expect(v.unique_clicks).toBeLessThanOrEqual(v.total_clicks!);
            expect(v.unique_dismissals).toBeLessThanOrEqual(v.total_dismissals!);
          } else {
            expect(v.first_button_clicks! + v.second_button_clicks!).toBeLessThanOrEqual(v.clicks!);
            expect(v.clicks).toBeLessThanOrEqual(v.impressions!);
          }
        }
      }
    }
    expect([...seen].sort()).toEqual(Object.keys(DOCUMENTED).sort());
    // Per-button clicks exactly where a push variation has buttons; some of the workspace's have.
    expect(buttons > 0).toBe(c.variations.some((v) => v.hasButtons));
    expect(em.state.analytics.campaigns.filter((x) => x.variations.some((v) => v.hasButtons)).length).toBeGreaterThan(
      10,
    );
  });

  it('is zero before the first send and positive from it on', async () => {
    const c = sendingCampaign();
    const first = c.firstSendDayMs!;
    const r = await call(em, `/campaigns/data_series?campaign_id=${c.id}&length=4&ending_at=${day(first + DAY)}`);
    expect(r.body.data.map((p: { time: string }) => p.time)).toEqual([
      day(first - 2 * DAY),
      day(first - DAY),
      day(first),
      day(first + DAY),
    ]);
    expect(r.body.data.map((p: { unique_recipients: number }) => p.unique_recipients > 0)).toEqual([
      false,
      false,
      true,
      true,
    ]);
    const details = (await call(em, `/campaigns/details?campaign_id=${c.id}`)).body;
    expect(details.first_sent.slice(0, 10)).toBe(day(first));
  });

  it('is all zeros for a draft, whose details have no first_sent', async () => {
    const draft = em.state.analytics.campaigns.find((c) => c.draft && c.lifecycle.createdMs < Date.parse(NOW))!;
    expect(draft).toBeDefined();
    expect((await call(em, `/campaigns/details?campaign_id=${draft.id}`)).body.first_sent).toBeNull();
    const r = await call(em, `/campaigns/data_series?campaign_id=${draft.id}&length=30`);
    expect(r.body.data.length).toBeGreaterThan(0);
    for (const p of r.body.data) expect(p.unique_recipients).toBe(0);
  });

  it('stops on the archive day of an archived campaign', async () => {
    const archived = em.state.analytics.campaigns.find(
      (c) =>
        c.lifecycle.archivedMs !== undefined &&
        c.lastSendDayMs !== undefined &&
        c.firstSendDayMs! < c.lastSendDayMs - 5 * DAY &&
        c.lastSendDayMs < Date.parse(NOW) - 5 * DAY,
    )!;
    const last = archived.lastSendDayMs!;
    const r = await call(em, `/campaigns/data_series?campaign_id=${archived.id}&length=3&ending_at=${day(last + DAY)}`);
    expect(r.body.data.map((p: { unique_recipients: number }) => p.unique_recipients > 0)).toEqual([true, true, false]);
  });

  it('grows a day as late data arrives, and never again after 48 hours', async () => {
    const c = sendingCampaign();
    const target = '2024-06-10';
    const at = async (instant: string) => {
      em.clock.set(instant);
      return (await call(em, `/campaigns/data_series?campaign_id=${c.id}&length=1&ending_at=${target}`)).body.data[0];
    };
    const early = await at('2024-06-11T01:00:00Z');
    const mid = await at('2024-06-12T00:00:00Z');
    const done = await at('2024-06-13T00:00:00Z');
    const later = await at('2024-07-01T00:00:00Z');
    expect(early.unique_recipients).toBeLessThan(done.unique_recipients);
    expect(early.unique_recipients).toBeLessThanOrEqual(mid.unique_recipients);
    expect(mid.unique_recipients).toBeLessThanOrEqual(done.unique_recipients);
    expect(later).toEqual(done);
  });

  it('changes a restated day and leaves its neighbours alone', async () => {
    const c = sendingCampaign();
    const path = `/campaigns/data_series?campaign_id=${c.id}&length=3&ending_at=2024-06-05`;
    const before = (await call(em, path)).body.data;
    em.state.analytics.restate({ series: 'campaign', day: '2024-06-04', campaignId: c.id, factor: 2 });
    const after = (await call(em, path)).body.data;
    expect(after[0]).toEqual(before[0]);
    expect(after[2]).toEqual(before[2]);
    expect(after[1].unique_recipients).toBeGreaterThan(before[1].unique_recipients);
    expect(() =>
      em.state.analytics.restate({ series: 'campaign', day: '2024-06-04', campaignId: 'cmp_nope', factor: 2 }),
    ).toThrow(/campaignId "cmp_nope"/);
  });

  it('refuses bad parameters with a 400 naming them', async () => {
    const c = sendingCampaign();
    for (const [q, name] of [
      ['length=3', 'campaign_id'],
      [`campaign_id=${c.id}`, 'length'],
      [`campaign_id=${c.id}&length=0`, 'length'],
      [`campaign_id=${c.id}&length=101`, 'length'],
      [`campaign_id=${c.id}&length=2&ending_at=tomorrow`, 'ending_at'],
      ['campaign_id=cmp_0&length=2', 'cmp_0'],
    ] as const) {
      const r = await call(em, `/campaigns/data_series?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.message).toContain(name);
    }
  });
});
