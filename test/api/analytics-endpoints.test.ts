// The endpoint functions on a real server: series normalized to { time, value }, bad points refused with the endpoint
// named, the events list paged by index, the Canvas summary normalized, and content-block booleans sent literally.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  fetchPurchaseQuantity,
  fetchRevenue,
  fetchSegmentSize,
  fetchSessions,
  listEventNames,
} from '../../src/api/analytics-endpoints.js';
import { ApiClient } from '../../src/api/api-client.js';
import { fetchCanvasSummary } from '../../src/api/canvas-summary.js';
import { EVENTS_PAGE_SIZE } from '../../src/api/endpoints.js';
import { fetchCanvasDetails, fetchContentBlock, fetchEmailTemplate } from '../../src/api/metadata-endpoints.js';
import { FatalApiError, FatalError } from '../../src/errors.js';
import { json, TestServer } from './helpers/test-server.js';

let server: TestServer;
let client: ApiClient;

beforeEach(async () => {
  server = await TestServer.create();
  client = ApiClient.create({ baseUrl: server.url, apiKey: 'k-analytics-8c2f4a6e1b39' });
});

afterEach(async () => {
  await client.close();
  await server.close();
});

function answer(body: unknown): void {
  server.handle((_req, res) => json(res, 200, body));
}

describe('series', () => {
  it('sends the documented parameters and maps integer, integral float and numeric-string values, ignoring extra fields', async () => {
    answer({
      message: 'success',
      data: [
        { time: '2026-01-01', purchase_quantity: 3, extra: 'x' },
        { time: '2026-01-02', purchase_quantity: 2 },
        { time: '2026-01-03T00:00:00Z', purchase_quantity: ' 7 ' },
      ],
    });
    const points = await fetchPurchaseQuantity(client, {
      length: 3,
      endingAt: '2026-01-03T23:59:59Z',
      unit: 'day',
      appId: 'app 1',
    });
    expect(points).toEqual([
      { time: '2026-01-01', value: 3 },
      { time: '2026-01-02', value: 2 },
      { time: '2026-01-03T00:00:00Z', value: 7 },
    ]);
    expect(server.requests[0]?.url).toBe(
      '/purchases/quantity_series?length=3&ending_at=2026-01-03T23%3A59%3A59Z&unit=day&app_id=app+1',
    );
  });

  it('reads each endpoint from its own value field', async () => {
    server.handle((req, res) => {
      const field =
        {
          '/purchases/revenue_series': 'revenue',
          '/sessions/data_series': 'sessions',
          '/segments/data_series': 'size',
        }[req.path] ?? 'none';
      json(res, 200, { message: 'success', data: [{ time: '2026-01-01', [field]: 11 }] });
    });
    const q = { length: 1, endingAt: '2026-01-02T00:00:00Z', unit: 'hour' as const };
    expect(await fetchRevenue(client, q)).toEqual([{ time: '2026-01-01', value: 11 }]);
    expect(await fetchSessions(client, { ...q, segmentId: 's1' })).toEqual([{ time: '2026-01-01', value: 11 }]);
    expect(await fetchSegmentSize(client, { segmentId: 's1', length: 1, endingAt: q.endingAt })).toEqual([
      { time: '2026-01-01', value: 11 },
    ]);
    expect(server.requests[1]?.query.get('segment_id')).toBe('s1');
    expect(server.requests[2]?.query.has('unit')).toBe(false);
  });

  it.each([
    [{ purchase_quantity: 1 }, /data\[1\] has no `time` string/],
    [
      { time: '2026-01-02', purchase_quantity: 'many' },
      /data\[1\] \(time 2026-01-02\) field `purchase_quantity`: "many" is not a number/,
    ],
    [{ time: '2026-01-02', purchase_quantity: null }, /field `purchase_quantity`: null is not a number/],
    [{ time: '2026-01-02' }, /field `purchase_quantity`: missing/],
    [
      { time: '2026-01-02', purchase_quantity: 2.5 },
      /field `purchase_quantity`: 2\.5 is not a whole number, as a count must be/,
    ],
  ])('refuses a bad point %j, naming the endpoint and the point', async (bad, reason) => {
    answer({ message: 'success', data: [{ time: '2026-01-01', purchase_quantity: 1 }, bad] });
    const error = await fetchPurchaseQuantity(client, { length: 2, endingAt: '2026-01-03', unit: 'day' }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FatalApiError);
    expect((error as Error).message).toMatch(
      /^GET \/purchases\/quantity_series \{"length":2,"ending_at":"2026-01-03","unit":"day"\}/,
    );
    expect((error as Error).message).toMatch(reason);
  });

  it('refuses a body whose data is missing or not an array', async () => {
    answer({ message: 'success', data: { time: 'x' } });
    await expect(fetchSessions(client, { length: 1, endingAt: '2026-01-01', unit: 'day' })).rejects.toThrow(
      /`data` is missing or not an array/,
    );
  });

  it('refuses a length outside 1..100 before sending', async () => {
    await expect(fetchRevenue(client, { length: 101, endingAt: '2026-01-01', unit: 'day' })).rejects.toThrow(
      FatalError,
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe('events list', () => {
  it('asks for page 0, 1, 2 and stops at the first short page', async () => {
    const names = Array.from({ length: EVENTS_PAGE_SIZE * 2 + 3 }, (_, i) => `event_${String(i).padStart(4, '0')}`);
    server.handle((req, res) => {
      const page = Number(req.query.get('page'));
      json(res, 200, {
        message: 'success',
        events: names.slice(page * EVENTS_PAGE_SIZE, (page + 1) * EVENTS_PAGE_SIZE),
      });
    });
    const pages: string[][] = [];
    for await (const page of listEventNames(client)) pages.push(page);
    expect(pages.map((p) => p.length)).toEqual([EVENTS_PAGE_SIZE, EVENTS_PAGE_SIZE, 3]);
    expect(pages.flat()).toEqual(names);
    expect(server.requests.map((r) => r.query.get('page'))).toEqual(['0', '1', '2']);
  });

  it('stops at an empty page after exactly full pages', async () => {
    const full = Array.from({ length: EVENTS_PAGE_SIZE }, (_, i) => `e${i}`);
    server.handle((req, res) =>
      json(res, 200, { message: 'success', events: req.query.get('page') === '0' ? full : [] }),
    );
    const pages: string[][] = [];
    for await (const page of listEventNames(client)) pages.push(page);
    // One page per request, the empty one included, so callers count requests exactly.
    expect(pages.map((p) => p.length)).toEqual([EVENTS_PAGE_SIZE, 0]);
    expect(server.requests).toHaveLength(2);
  });

  it('stops with a FatalError when the server ignores the page parameter', async () => {
    const full = Array.from({ length: EVENTS_PAGE_SIZE }, (_, i) => `e${i}`);
    answer({ message: 'success', events: full });
    const run = async (): Promise<void> => {
      for await (const page of listEventNames(client)) void page;
    };
    await expect(run()).rejects.toThrow(/GET \/events\/list: page 2 \(page=1\) repeats 250 items already seen/);
    expect(server.requests).toHaveLength(2);
  });
});

describe('Canvas summary and metadata', () => {
  it('normalizes numbers, keeps optional breakdowns undefined when absent, and sends booleans literally', async () => {
    answer({
      message: 'success',
      data: {
        name: 'Welcome',
        total_stats: { revenue: '12.5', conversions: 3, conversions_by_entry_time: 2, entries: 40 },
      },
    });
    const summary = await fetchCanvasSummary(client, {
      canvasId: 'cv1',
      startingAt: '2026-01-01T00:00:00Z',
      endingAt: '2026-01-08T00:00:00Z',
      includeVariantBreakdown: true,
      includeStepBreakdown: false,
    });
    expect(summary).toEqual({
      name: 'Welcome',
      total_stats: { revenue: 12.5, conversions: 3, conversions_by_entry_time: 2, entries: 40 },
    });
    expect(summary.variant_stats).toBeUndefined();
    const q = server.requests[0]?.query;
    expect(q?.get('include_variant_breakdown')).toBe('true');
    expect(q?.get('include_step_breakdown')).toBe('false');
    expect(q?.has('include_deleted_step_data')).toBe(false);
  });

  it("normalizes variant and step breakdowns: the channel's own fields read as numbers, unknown ones kept and named", async () => {
    answer({
      message: 'success',
      data: {
        name: 'C',
        total_stats: { revenue: 1, conversions: 1, conversions_by_entry_time: 1, entries: 1 },
        variant_stats: { v1: { name: 'A', revenue: 1.5, conversions: '2', entries: 3 } },
        step_stats: {
          s1: {
            name: 'Email',
            revenue: 0,
            conversions: 0,
            conversions_by_entry_time: 0,
            messages: {
              email: [{ sent: '10', opens: 4, influenced_opens: 1, bounces: 0, clicks: 2, fancy: 'x' }],
              ios_push: [{ sent: 5, opens: 1, bounces: 0, direct_opens: '1', notif_button_1_Go_click: 1 }],
            },
          },
        },
      },
    });
    const summary = await fetchCanvasSummary(client, {
      canvasId: 'cv1',
      startingAt: '2026-01-01T00:00:00Z',
      endingAt: '2026-01-02T00:00:00Z',
      includeVariantBreakdown: true,
      includeStepBreakdown: true,
    });
    expect(summary.variant_stats).toEqual({
      v1: { name: 'A', numbers: { revenue: 1.5, conversions: 2, entries: 3 }, extra: {}, unknown: [] },
    });
    expect(summary.step_stats?.s1?.messages.email).toEqual([
      {
        numbers: { sent: 10, opens: 4, influenced_opens: 1, bounces: 0, clicks: 2 },
        extra: { fancy: 'x' },
        unknown: ['fancy'],
      },
    ]);
    // A push step message without influenced_opens: absent, not a failure; its button clicks kept, not unknown.
    expect(summary.step_stats?.s1?.messages.ios_push).toEqual([
      {
        numbers: { sent: 5, opens: 1, bounces: 0, direct_opens: 1 },
        extra: { notif_button_1_Go_click: 1 },
        unknown: [],
      },
    ]);
  });

  it('refuses a summary whose totals are not numbers, and a range over 14 days before sending', async () => {
    answer({
      message: 'success',
      data: { name: 'C', total_stats: { revenue: 'lots', conversions: 1, conversions_by_entry_time: 1, entries: 1 } },
    });
    const base = { canvasId: 'cv1', includeVariantBreakdown: false, includeStepBreakdown: false };
    await expect(
      fetchCanvasSummary(client, { ...base, startingAt: '2026-01-01T00:00:00Z', endingAt: '2026-01-02T00:00:00Z' }),
    ).rejects.toThrow(/data\.total_stats\.revenue: "lots" is not a number/);
    await expect(
      fetchCanvasSummary(client, { ...base, startingAt: '2026-01-01T00:00:00Z', endingAt: '2026-01-16T00:00:00Z' }),
    ).rejects.toThrow(/at most 14 days/);
    expect(server.requests).toHaveLength(1);
  });

  it('sends include_inclusion_data as a literal true or false and returns the block', async () => {
    answer({ message: 'success', content_block_id: 'cb1', name: 'Footer', content: '<p/>', inclusion_count: 2 });
    expect((await fetchContentBlock(client, 'cb1', true)).name).toBe('Footer');
    await fetchContentBlock(client, 'cb1', false);
    expect(server.requests.map((r) => r.query.get('include_inclusion_data'))).toEqual(['true', 'false']);
  });

  it('fetches Canvas details and email templates and refuses a body missing their identity', async () => {
    answer({ message: 'success', name: 'Canvas', steps: [] });
    expect((await fetchCanvasDetails(client, 'cv1')).name).toBe('Canvas');
    expect(server.requests[0]?.url).toBe('/canvas/details?canvas_id=cv1');
    answer({ template_name: 'T' });
    await expect(fetchEmailTemplate(client, 'et1')).rejects.toThrow(/`email_template_id` is undefined, not a string/);
  });
});
