// campaign_series over HTTP against the emulator: the campaign totals and the per-variation rows equal what the
// emulator's model (campaignSeries) computes, and a nightly increment picks up late data and a restated day.
import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignSeries } from '../../src/emulator/analytics/campaign-stats.js';
import type { RunSummary } from '../../src/pipeline/run-pipeline.js';
import { num, PipelineFixture } from './helpers/pipeline-fixture.js';

const DAY = 86_400_000;
const NOW = '2025-03-10T12:34:00Z';
const START = '2025-01-01';

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
        out.set(`${id}|${d.time}`, [d.unique_recipients, d.conversions, d.conversions1, d.conversions2, d.conversions3, d.revenue]);
        for (const [channel, list] of Object.entries(d.messages)) {
          for (const m of list) {
            const { variation_api_id, sent, opens, unique_opens, clicks, unique_clicks, bounces, unsubscribes, delivered, ...own } = m;
            out.set(`${id}|${d.time}|${channel}|${variation_api_id}`, [sent, opens, unique_opens, clicks, unique_clicks, bounces, unsubscribes, delivered, own]);
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
      out.set(`${r['campaign_id']}|${day(r['time'])}`, ['unique_recipients', 'conversions', 'conversions1', 'conversions2', 'conversions3', 'revenue'].map((k) => num(r[k])));
    }
    for (const r of await f.query('SELECT * FROM campaign_message_series')) {
      out.set(`${r['campaign_id']}|${day(r['time'])}|${r['channel']}|${r['variation_api_id']}`, [
        ...['sent', 'opens', 'unique_opens', 'clicks', 'unique_clicks', 'bounces', 'unsubscribes', 'delivered'].map((k) => num(r[k])),
        JSON.parse(String(r['channel_stats'])),
      ]);
    }
    return out;
  };

  const sorted = (m: Map<string, unknown>) => [...m].sort(([a], [b]) => (a < b ? -1 : 1));

  beforeAll(async () => {
    f = await PipelineFixture.create({ now: NOW, emulator: { rateLimits: false } });
    // Campaigns that exist before the window and still send at its end (not drafts, not finished).
    ids = f.emulator.state.analytics.campaigns
      .filter((c) => c.lifecycle.createdMs < Date.parse(`${START}T00:00:00Z`) && c.firstSendDayMs !== undefined && (c.lastSendDayMs === undefined || c.lastSendDayMs > Date.parse(NOW)))
      .slice(0, 3)
      .map((c) => c.id);
    await writeFile(f.pipelinePath, `name: cmp\nstart_date: ${START}\nlookback_days: 3\nstreams:\n  campaign_series: { campaigns: [${ids.join(', ')}] }\n`);
    first = await f.run();
  }, 120_000);
  afterAll(async () => f.close());

  it('stores exactly the model\'s daily totals and variation rows, each channel\'s own fields as JSON', async () => {
    expect(ids).toHaveLength(3);
    const expected = model();
    expect([...expected.keys()].filter((k) => k.split('|').length === 2)).toHaveLength(3 * 69);
    expect([...expected.keys()].some((k) => k.split('|').length === 4)).toBe(true);
    expect(sorted(await stored())).toEqual(sorted(expected));
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
    const [audit] = await f.query(`SELECT old_value, new_value FROM _etl_restatements WHERE table_name = 'campaign_series' AND column_name = 'unique_recipients' AND unit_start = TIMESTAMP '2025-03-08 00:00:00' AND json_extract_string(key_values, '$.campaign_id') = '${ids[0]}'`);
    expect(num(audit!['new_value'])).toBeGreaterThan(1.9 * num(audit!['old_value']));
  }, 120_000);
});
