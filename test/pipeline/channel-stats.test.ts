// Statistics that differ per channel or variant, read from a server that says more or less than the client knows:
// a real HTTP proxy in front of the emulator rewrites its answers. A field the client has never seen is kept
// in `extra_stats` with one warning per run; a channel it has never seen too, except its fields named like a count some
// channel documents (`sent`, `delivered`), which load into those columns so the campaign views count the
// channel; a documented field left out loads NULL; a variation without `variation_api_id` gets a key; a documented field
// that is not a number of its kind still fails the stream.
import { writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignSeries } from '../../src/emulator/analytics/campaign-stats.js';
import { canvasDailyStats } from '../../src/emulator/analytics/canvas-stats.js';
import { HostileProxy } from '../hostile/hostile-proxy.js';
import { writePreviousLayout } from '../load/previous-layout.js';
import { num, PipelineFixture } from './helpers/pipeline-fixture.js';

const DAY = 86_400_000;
const NOW = '2025-03-10T12:34:00Z';
const START = '2025-02-24';

type Json = Record<string, any>;

/** Answers every request from the emulator, its JSON body passed through `rewrite` (per path). */
function rewriting(proxy: HostileProxy, upstream: string, rewrite: (path: string, body: Json) => Json): void {
  proxy.tamper = (req: IncomingMessage, url: URL, res: ServerResponse) => {
    void (async () => {
      const answer = await fetch(`${upstream}${url.pathname}${url.search}`, {
        headers: { authorization: String(req.headers.authorization) },
      });
      const text = await answer.text();
      const body = answer.ok ? JSON.stringify(rewrite(url.pathname, JSON.parse(text) as Json)) : text;
      const headers = Object.fromEntries(
        [...answer.headers].filter(([k]) => k === 'content-type' || k.startsWith('x-ratelimit') || k === 'link'),
      );
      res.writeHead(answer.status, headers);
      res.end(body);
    })();
    return true;
  };
}

const dayStarts = (): number[] => {
  const out: number[] = [];
  for (let ms = Date.parse(`${START}T00:00:00Z`); ms <= Date.parse(NOW); ms += DAY) out.push(ms);
  return out;
};
const isoDay = (v: unknown) => (v as Date).toISOString().slice(0, 10);

describe('campaign_series against a server with channels and fields the client does not know', () => {
  let f: PipelineFixture;
  let proxy: HostileProxy;
  let id: string;

  beforeAll(async () => {
    f = await PipelineFixture.create({ now: NOW, emulator: { rateLimits: false } });
    proxy = await HostileProxy.create(f.emulator.url);
    const omni = f.emulator.state.analytics.campaigns.find(
      (c) =>
        new Set(c.channels).size === 7 &&
        c.firstSendDayMs !== undefined &&
        c.firstSendDayMs < Date.parse(`${START}T00:00:00Z`) &&
        (c.lastSendDayMs ?? Infinity) > Date.parse(NOW),
    )!;
    id = omni.id;
    await writeFile(
      f.pipelinePath,
      `name: channels\nstart_date: ${START}\nlookback_days: 3\nstreams:\n  campaign_series: { campaigns: [${id}] }\n`,
    );
  });
  afterAll(async () => {
    await proxy.close();
    await f.close();
  });

  it('counts a new channel by its documented fields, keeps the rest and a new metric in extra_stats with one warning each, keys variations without an id, and succeeds', async () => {
    rewriting(proxy, f.emulator.url, (path, body) => {
      if (path !== '/campaigns/data_series') return body;
      for (const [i, d] of (body.data as Json[]).entries()) {
        d.messages.whats_app = [
          { variation_api_id: `${id}_wa`, sent: 10 + i, delivered: 9 + i, read: 4, unique_recipients: 10 + i },
        ];
        for (const m of d.messages.ios_push) m.new_metric = 3;
        for (const m of d.messages.sms) delete m.variation_api_id;
        for (const m of d.messages.email) {
          delete m.variation_api_id;
          delete m.variation_name;
        }
      }
      return body;
    });
    const summary = await f.run({ baseUrl: proxy.url });
    expect(summary.status).toBe('succeeded');
    const warned = summary.warnings.filter((w) => w.code.startsWith('undocumented_'));
    expect(warned).toHaveLength(2);
    expect(warned.map((w) => [w.code, w.stream])).toEqual(
      expect.arrayContaining([
        ['undocumented_channel', 'campaign_series'],
        ['undocumented_field', 'campaign_series'],
      ]),
    );
    expect(warned.find((w) => w.code === 'undocumented_channel')!.message).toMatch(
      /channel "whats_app" is not one this version knows; its fields delivered, sent are read into the columns of those names.*counted by the campaign views; its fields read are kept as sent in campaign_message_series\.extra_stats/,
    );
    expect(warned.find((w) => w.code === 'undocumented_field')!.message).toMatch(
      /field "new_metric" of channel "ios_push"/,
    );
    expect(summary.warnings).toHaveLength(2);

    const days = dayStarts().length;
    const whatsapp = await f.query(`SELECT * FROM campaign_message_series WHERE channel = 'whats_app' ORDER BY time`);
    expect(whatsapp).toHaveLength(days);
    whatsapp.forEach((r, i) => {
      expect([
        r['variation_key'],
        r['variation_api_id'],
        num(r['sent']),
        num(r['delivered']),
        num(r['unique_recipients']),
      ]).toEqual([`${id}_wa`, `${id}_wa`, 10 + i, 9 + i, 10 + i]);
      expect(JSON.parse(String(r['extra_stats']))).toEqual({ read: 4 });
    });

    // The campaign views count the channel: its sends and deliveries are in the day's totals, read from the fields named.
    const perChannel = await f.query(
      `SELECT day, sent, reached, reached_field FROM analytics.campaign_message_daily WHERE channel = 'whats_app' ORDER BY day`,
    );
    expect(perChannel.map((r) => [num(r['sent']), num(r['reached']), r['reached_field']])).toEqual(
      whatsapp.map((_, i) => [10 + i, 9 + i, 'delivered']),
    );
    const totals =
      await f.query(`SELECT d.day, d.sent, d.reached, d.measures, m.sent AS others_sent, m.reached AS others_reached
      FROM analytics.campaign_daily d JOIN (SELECT day, campaign_id, sum(sent) AS sent, sum(reached) AS reached FROM analytics.campaign_message_daily
        WHERE channel <> 'whats_app' GROUP BY ALL) m USING (day, campaign_id) ORDER BY d.day`);
    expect(totals).toHaveLength(days);
    totals.forEach((r, i) => {
      expect([num(r['sent']) - num(r['others_sent']), num(r['reached']) - num(r['others_reached'])]).toEqual([
        10 + i,
        9 + i,
      ]);
      expect(String(r['measures'])).toContain('whats_app: reached = delivered, opens = -, clicks = -');
    });

    // The other channels still load exactly what the model computes; the rewritten keys and the kept metric.
    const ws = f.emulator.state.analytics;
    const campaign = ws.campaigns.find((c) => c.id === id)!;
    const model = campaignSeries(ws, campaign, dayStarts(), f.emulator.clock.nowMs());
    const rows = await f.query(`SELECT * FROM campaign_message_series WHERE channel <> 'whats_app'`);
    expect(rows).toHaveLength(model.reduce((n, d) => n + Object.values(d.messages).flat().length, 0));
    for (const d of model) {
      for (const [channel, list] of Object.entries(d.messages)) {
        list.forEach((m, j) => {
          const key =
            channel === 'sms' ? `name:${m.variation_name}` : channel === 'email' ? `position:${j}` : m.variation_api_id;
          const r = rows.find(
            (x) => isoDay(x['time']) === d.time && x['channel'] === channel && x['variation_key'] === key,
          )!;
          expect(r, `${d.time} ${channel} ${key}`).toBeDefined();
          expect(r['variation_api_id']).toBe(channel === 'sms' || channel === 'email' ? null : m.variation_api_id);
          expect(r['variation_name']).toBe(channel === 'email' ? null : m.variation_name);
          for (const field of [
            'sent',
            'delivered',
            'direct_opens',
            'total_opens',
            'impressions',
            'unique_impressions',
            'errors',
            'opt_out',
          ]) {
            expect(r[field] === null ? null : num(r[field]), `${channel}.${field}`).toBe(m[field] ?? null);
          }
          if (channel === 'ios_push') {
            expect(r['opens']).toBeNull();
            expect(JSON.parse(String(r['extra_stats']))).toMatchObject({ new_metric: 3 });
          }
        });
      }
    }
  });

  it('fails the stream when a documented field is not a number of its kind, naming it', async () => {
    rewriting(proxy, f.emulator.url, (path, body) => {
      if (path === '/campaigns/data_series')
        for (const d of body.data as Json[]) d.messages.ios_push[0].direct_opens = 'lots';
      return body;
    });
    await expect(f.run({ baseUrl: proxy.url, fullRefresh: true })).rejects.toThrow(
      /messages\.ios_push\[0\]\.direct_opens: "lots" is not a number/,
    );
    rewriting(proxy, f.emulator.url, (path, body) => {
      if (path === '/campaigns/data_series') for (const d of body.data as Json[]) d.messages.webhook[0].errors = 1.5;
      return body;
    });
    await expect(f.run({ baseUrl: proxy.url, fullRefresh: true })).rejects.toThrow(
      /messages\.webhook\[0\]\.errors: 1\.5 is not a whole number/,
    );
  });
});

describe('canvas_summary against a server that leaves out documented fields and adds unknown ones', () => {
  let f: PipelineFixture;
  let proxy: HostileProxy;

  beforeAll(async () => {
    f = await PipelineFixture.create({ now: NOW, emulator: { rateLimits: false } });
    proxy = await HostileProxy.create(f.emulator.url);
    await writeFile(
      f.pipelinePath,
      `name: canvas\nstart_date: ${START}\nlookback_days: 3\nstreams:\n  canvas_summary: { canvases: [cv_1], variant_breakdown: true, step_breakdown: true }\n`,
    );
  });
  afterAll(async () => {
    await proxy.close();
    await f.close();
  });

  it("loads a step message without influenced_opens as NULL and a variant's unknown field into extra_stats, with one warning", async () => {
    rewriting(proxy, f.emulator.url, (path, body) => {
      if (path !== '/canvas/data_series') return body;
      for (const day of body.data.stats as Json[]) {
        for (const step of Object.values(day.step_stats ?? {}) as Json[]) {
          for (const list of Object.values(step.messages) as Json[][]) for (const m of list) delete m.influenced_opens;
        }
        for (const v of Object.values(day.variant_stats ?? {}) as Json[]) {
          delete v.revenue;
          v.holdout_share = 0.1;
        }
      }
      return body;
    });
    const summary = await f.run({ baseUrl: proxy.url });
    expect(summary.status).toBe('succeeded');
    expect(summary.warnings.map((w) => [w.code, w.stream])).toEqual([['undocumented_field', 'canvas_summary']]);
    expect(summary.warnings[0]!.message).toMatch(/field "holdout_share".*canvas_variant_summary\.extra_stats/);

    const ws = f.emulator.state.analytics;
    const model = canvasDailyStats(
      ws,
      ws.canvases.find((c) => c.id === 'cv_1')!,
      dayStarts(),
      f.emulator.clock.nowMs(),
      {
        includeVariantBreakdown: true,
        includeStepBreakdown: true,
        includeDeletedStepData: false,
      },
    );
    const messages = await f.query('SELECT * FROM canvas_step_messages');
    const expected = model.stats.flatMap((d) =>
      Object.entries(d.step_stats ?? {}).flatMap(([step, s]) =>
        Object.entries(s.messages).flatMap(([channel, list]) =>
          list.map((m, i) => ({ key: `${d.time}|${step}|${channel}|${i}`, m })),
        ),
      ),
    );
    expect(messages).toHaveLength(expected.length);
    expect(expected.length).toBeGreaterThan(0);
    for (const { key, m } of expected) {
      const r = messages.find(
        (x) => `${isoDay(x['day'])}|${x['step_id']}|${x['channel']}|${x['message_index']}` === key,
      )!;
      expect(r['influenced_opens']).toBeNull();
      expect([num(r['sent']), num(r['opens']), num(r['bounces'])]).toEqual([m.sent, m.opens, m.bounces]);
    }
    const variants = await f.query('SELECT * FROM canvas_variant_summary');
    expect(variants.length).toBeGreaterThan(0);
    for (const v of variants) {
      expect(v['revenue']).toBeNull();
      expect(v['entries']).not.toBeNull();
      expect(JSON.parse(String(v['extra_stats']))).toEqual({ holdout_share: 0.1 });
    }
  });
});

describe('a warehouse the previous version wrote', () => {
  it('is upgraded by the nightly run, which keeps its rows and loads new ones beside them', async () => {
    const f = await PipelineFixture.create({ now: NOW, emulator: { rateLimits: false } });
    try {
      await writePreviousLayout(f.db);
      await writeFile(
        f.pipelinePath,
        `name: upgrade\nstart_date: ${START}\nstreams:\n  campaign_series: { campaigns: [cmp_1] }\n`,
      );
      const summary = await f.run();
      expect(summary.status).toBe('succeeded');
      const byMonth = await f.query(
        `SELECT strftime(time, '%Y-%m') AS month, count(*) AS n, count(direct_opens) AS direct_opens FROM campaign_message_series WHERE channel = 'ios_push' GROUP BY ALL ORDER BY ALL`,
      );
      // The old push row (2024-05, its direct_opens moved out of the JSON) and this run's days of cmp_1, if it has a push variation.
      expect(byMonth[0]).toEqual({ month: '2024-05', n: 1, direct_opens: 1 });
      const [old] = await f.query(
        `SELECT sent, extra_stats FROM campaign_message_series WHERE variation_key = 'v_push'`,
      );
      expect([num(old!['sent']), JSON.parse(String(old!['extra_stats'])).opens]).toEqual([30, 9]);
      const [loaded] = await f.query(
        `SELECT count(*) AS n FROM campaign_series WHERE campaign_id = 'cmp_1' AND time >= TIMESTAMP '${START}'`,
      );
      expect(num(loaded!['n'])).toBe(dayStarts().length);
    } finally {
      await f.close();
    }
  });
});
