// campaign_series over HTTP against the emulator: the campaign totals and the per-variation rows equal what the
// emulator's model (campaignSeries) computes — every documented field of each channel in its own column, NULL where the
// channel does not report it — and a nightly increment picks up late data and a restated day.
import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignSeries } from '../../src/emulator/analytics/campaign-stats.js';
import type { RunSummary } from '../../src/pipeline/run-pipeline.js';
import { num, PipelineFixture } from './helpers/pipeline-fixture.js';

const DAY = 86_400_000;
const NOW = '2025-03-10T12:34:00Z';
const START = '2025-01-01';

/** The typed columns of campaign_message_series: every count the platform documents for some channel, then the common ones. */
const COUNTS = [
  'sent',
  'delivered',
  'undelivered',
  'delivery_failed',
  'bounces',
  'opens',
  'unique_opens',
  'direct_opens',
  'total_opens',
  'clicks',
  'unique_clicks',
  'body_clicks',
  'total_clicks',
  'impressions',
  'total_impressions',
  'unique_impressions',
  'first_button_clicks',
  'second_button_clicks',
  'total_dismissals',
  'unique_dismissals',
  'unsubscribes',
  'reported_spam',
  'opt_out',
  'help',
  'errors',
  'unique_recipients',
  'conversions',
  'conversions_by_send_time',
  'conversions1',
  'conversions1_by_send_time',
  'conversions2',
  'conversions2_by_send_time',
  'conversions3',
  'conversions3_by_send_time',
  'enrolled',
];
const DAY_FIELDS = [
  'unique_recipients',
  'conversions',
  'conversions1',
  'conversions2',
  'conversions3',
  'revenue',
  'conversions_by_send_time',
  'conversions1_by_send_time',
  'conversions2_by_send_time',
  'conversions3_by_send_time',
] as const;
const BUTTON = /^notif_button_\d+_.+_click$/;

describe('campaign_series against the emulator', () => {
  let f: PipelineFixture;
  let ids: string[];
  let first: RunSummary;

  /** Every modelled value, keyed like the stored rows. */
  const model = (): Map<string, unknown> => {
    const ws = f.emulator.state.analytics;
    const nowMs = f.emulator.clock.nowMs();
    const starts: number[] = [];
    for (let ms = Date.parse(`${START}T00:00:00Z`); ms <= nowMs; ms += DAY) starts.push(ms);
    const out = new Map<string, unknown>();
    for (const id of ids) {
      for (const d of campaignSeries(ws, ws.campaigns.find((c) => c.id === id)!, starts, nowMs)) {
        out.set(
          `${id}|${d.time}`,
          DAY_FIELDS.map((k) => d[k] ?? null),
        );
        for (const [channel, list] of Object.entries(d.messages)) {
          for (const m of list) {
            const buttons = Object.entries(m).filter(([k]) => BUTTON.test(k));
            out.set(`${id}|${d.time}|${channel}|${m.variation_api_id}`, [
              m.variation_api_id,
              m.variation_name,
              ...COUNTS.map((k) => m[k] ?? null),
              m.revenue ?? null,
              buttons.length === 0 ? null : Object.fromEntries(buttons),
            ]);
          }
        }
      }
    }
    return out;
  };

  const stored = async (): Promise<Map<string, unknown>> => {
    const out = new Map<string, unknown>();
    const day = (v: unknown) => (v as Date).toISOString().slice(0, 10);
    for (const r of await f.query('SELECT * FROM campaign_series')) {
      out.set(
        `${r['campaign_id']}|${day(r['time'])}`,
        DAY_FIELDS.map((k) => (r[k] === null ? null : num(r[k]))),
      );
    }
    for (const r of await f.query('SELECT * FROM campaign_message_series')) {
      out.set(`${r['campaign_id']}|${day(r['time'])}|${r['channel']}|${r['variation_key']}`, [
        r['variation_api_id'],
        r['variation_name'],
        ...COUNTS.map((k) => (r[k] === null ? null : num(r[k]))),
        r['revenue'] === null ? null : num(r['revenue']),
        r['extra_stats'] === null ? null : JSON.parse(String(r['extra_stats'])),
      ]);
    }
    return out;
  };

  const sorted = (m: Map<string, unknown>) => [...m].sort(([a], [b]) => (a < b ? -1 : 1));

  beforeAll(async () => {
    f = await PipelineFixture.create({ now: NOW, emulator: { rateLimits: false } });
    // Campaigns that exist before the window and still send at its end (not drafts, not finished).
    const sending = f.emulator.state.analytics.campaigns.filter(
      (c) =>
        c.lifecycle.createdMs < Date.parse(`${START}T00:00:00Z`) &&
        c.firstSendDayMs !== undefined &&
        (c.lastSendDayMs === undefined || c.lastSendDayMs > Date.parse(NOW)),
    );
    // Three campaigns, one of them with a variation on every channel of the demo workspace.
    const omni = sending.find((c) => new Set(c.channels).size === 7)!;
    ids = [omni, ...sending.filter((c) => c !== omni).slice(0, 2)].map((c) => c.id);
    await writeFile(
      f.pipelinePath,
      `name: cmp\nstart_date: ${START}\nlookback_days: 3\nstreams:\n  campaign_series: { campaigns: [${ids.join(', ')}] }\n`,
    );
    first = await f.run();
  }, 120_000);
  afterAll(async () => f.close());

  it("stores exactly the model's daily totals and variation rows, every documented field of each channel in its column", async () => {
    expect(ids).toHaveLength(3);
    const expected = model();
    expect([...expected.keys()].filter((k) => k.split('|').length === 2)).toHaveLength(3 * 69);
    expect([...expected.keys()].some((k) => k.split('|').length === 4)).toBe(true);
    expect(sorted(await stored())).toEqual(sorted(expected));
    // Each channel its own fields: a push has direct and total opens but no `opens`, an SMS no opens at all,
    // an in-app message impressions; every channel of the workspace loaded something.
    const perChannel =
      await f.query(`SELECT channel, count(*) AS n, count(opens) AS opens, count(direct_opens) AS direct_opens, count(total_opens) AS total_opens,
      count(impressions) AS impressions, count(delivered) AS delivered, count(sent) AS sent, count(total_impressions) AS card_impressions, count(errors) AS errors,
      sum(coalesce(sent, 0) + coalesce(impressions, 0) + coalesce(total_impressions, 0)) AS volume
      FROM campaign_message_series WHERE campaign_id = '${ids[0]}' GROUP BY channel ORDER BY channel`);
    const shape = Object.fromEntries(
      perChannel.map((r) => [
        r['channel'],
        {
          opens: num(r['opens']) > 0,
          direct_opens: num(r['direct_opens']) > 0,
          total_opens: num(r['total_opens']) > 0,
          impressions: num(r['impressions']) > 0,
          delivered: num(r['delivered']) > 0,
          sent: num(r['sent']) > 0,
          card_impressions: num(r['card_impressions']) > 0,
          errors: num(r['errors']) > 0,
        },
      ]),
    );
    const none = {
      opens: false,
      direct_opens: false,
      total_opens: false,
      impressions: false,
      delivered: false,
      sent: false,
      card_impressions: false,
      errors: false,
    };
    expect(shape).toEqual({
      android_push: { ...none, direct_opens: true, total_opens: true, sent: true },
      content_cards: { ...none, card_impressions: true },
      email: { ...none, opens: true, delivered: true, sent: true },
      in_app_message: { ...none, impressions: true },
      ios_push: { ...none, direct_opens: true, total_opens: true, sent: true },
      sms: { ...none, delivered: true, sent: true },
      webhook: { ...none, sent: true, errors: true },
    });
    for (const r of perChannel) expect(num(r['volume']), String(r['channel'])).toBeGreaterThan(0);
    // 69 days in one window per campaign.
    expect(first.requests.sent).toBe(3);
    expect(first.warnings).toEqual([]);
  });

  it('follows a nightly increment: late data and a restated day inside the look-back are stored, and audited', async () => {
    f.emulator.state.analytics.restate({ series: 'campaign', day: '2025-03-08', factor: 2, campaignId: ids[0]! });
    f.emulator.clock.set('2025-03-11T12:34:00Z');
    const next = await f.run();
    expect(sorted(await stored())).toEqual(sorted(model()));
    expect(next.requests.sent).toBe(3);
    // The restated day doubled: its stored totals were audited with old and new values.
    const [audit] = await f.query(
      `SELECT old_value, new_value FROM _etl_restatements WHERE table_name = 'campaign_series' AND column_name = 'unique_recipients' AND unit_start = TIMESTAMP '2025-03-08 00:00:00' AND json_extract_string(key_values, '$.campaign_id') = '${ids[0]}'`,
    );
    expect(num(audit!['new_value'])).toBeGreaterThan(1.9 * num(audit!['old_value']));
    // Fields without a column are audited too, field by field: a push's per-button clicks in extra_stats.
    const extras = await f.query(
      `SELECT column_name, old_value, new_value FROM _etl_restatements WHERE table_name = 'campaign_message_series' AND column_name LIKE 'extra_stats.%' AND unit_start = TIMESTAMP '2025-03-08 00:00:00'`,
    );
    expect(extras.length, 'restated extra_stats fields').toBeGreaterThan(0);
    for (const e of extras) expect(num(e['new_value'])).toBeGreaterThan(num(e['old_value']));
  }, 120_000);
});
