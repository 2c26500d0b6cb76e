// A count the platform sends below zero is stored as sent (the platform's word) and warned about once per table and
// column, naming the first row: a segment whose size series says -5 on one day, through a proxy that rewrites it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostileProxy } from '../hostile/hostile-proxy.js';
import { PipelineFixture } from './helpers/pipeline-fixture.js';

const PIPELINE = `
name: negative
start_date: 2025-03-01
streams:
  segment_size: { segments: [seg_1] }
`;

let fx: PipelineFixture;
let proxy: HostileProxy;

beforeAll(async () => {
  fx = await PipelineFixture.create({ now: '2025-03-20T12:00:00Z', pipeline: PIPELINE });
  proxy = await HostileProxy.create(fx.emulator.url);
  proxy.tamper = (req, url, res) => {
    if (url.pathname !== '/segments/data_series') return false;
    void fetch(`${fx.emulator.url}${url.pathname}${url.search}`, {
      headers: { Authorization: String(req.headers['authorization']) },
    }).then(async (answer) => {
      const body = (await answer.json()) as { data: { time: string; size: number }[] };
      for (const point of body.data.slice(0, 2)) point.size = -5;
      res.writeHead(answer.status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    });
    return true;
  };
}, 60_000);
afterAll(async () => {
  await proxy?.close();
  await fx?.close();
});

describe('a count below zero', () => {
  it('is stored as the platform sent it, with one warning naming the table, column and first row', async () => {
    const summary = await fx.run({ baseUrl: proxy.url });
    expect(summary.status).toBe('succeeded');
    const negative = summary.warnings.filter((w) => w.code === 'negative_count');
    expect(negative).toHaveLength(1);
    expect(negative[0]!.message).toMatch(
      /^segment_size\.size: the platform sent -5 \(segment_id "seg_1", time 2025-03-01T00:00:00\.000Z\); a count below zero is stored as sent/,
    );
    const rows = await fx.query(`SELECT count(*) AS n FROM "segment_size" WHERE "size" = -5`);
    expect(Number(rows[0]!['n'])).toBe(2);
  }, 60_000);
});
