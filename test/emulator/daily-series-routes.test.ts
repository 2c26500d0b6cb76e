// The daily series over real HTTP: /events/data_series, the four /kpi/*/data_series and /canvas/data_series
// — their shapes, windows, every bad parameter a 400 naming it (never a 500), permissions (403 naming the permission),
// the default pool's accounting and the injected faults, as for every other route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMIT_POOLS } from '../../src/api/endpoints.js';
import type { Emulator } from '../../src/emulator/server.js';
import { call, startEmulator } from './emulator-test-helpers.js';

let em: Emulator;
let event: string;
beforeAll(async () => {
  em = await startEmulator();
  event = (await call(em, '/events/list')).body.events[0];
});
afterAll(() => em.close());

const times = (body: { data: { time: string }[] }): string[] => body.data.map((p) => p.time);

describe('/events/data_series', () => {
  it('answers length days of { time, count } ending with today, oldest first', async () => {
    const r = await call(em, `/events/data_series?event=${event}&length=3`);
    expect(r.status).toBe(200);
    expect(r.body.message).toBe('success');
    expect(times(r.body)).toEqual(['2024-06-13', '2024-06-14', '2024-06-15']);
    for (const p of r.body.data) {
      expect(Object.keys(p).sort()).toEqual(['count', 'time']);
      expect(Number.isInteger(p.count)).toBe(true);
    }
  });

  it('answers hours as hour instants, for one app and one segment', async () => {
    const r = await call(
      em,
      `/events/data_series?event=${event}&length=2&unit=hour&ending_at=2024-06-10T05:59:59Z&app_id=app_2&segment_id=seg_3`,
    );
    expect(r.status).toBe(200);
    expect(times(r.body)).toEqual(['2024-06-10T04:00:00Z', '2024-06-10T05:00:00Z']);
  });

  it('leaves out the units after now', async () => {
    const r = await call(em, `/events/data_series?event=${event}&length=7&ending_at=2024-06-20T00:00:00Z`);
    expect(times(r.body)).toEqual(['2024-06-14', '2024-06-15']);
  });

  it.each([
    ['', /event is required: the name of a custom event; GET \/events\/list gives the names/],
    ['event=', /event is required/],
    [
      'event=no_such_event&length=3',
      /event "no_such_event" is not a custom event of this workspace \(names are case-sensitive\); GET \/events\/list gives the names/,
    ],
    ['event=EVENT&length=0', /length must be an integer from 1 to 100, got "0"/],
    ['event=EVENT', /length is required/],
    ['event=EVENT&length=101', /length must be an integer from 1 to 100/],
    ['event=EVENT&length=3&unit=week', /unit must be "day" or "hour", got "week"/],
    ['event=EVENT&length=3&ending_at=soon', /ending_at must be an ISO 8601 date-time/],
    [
      'event=EVENT&length=3&app_id=app_9',
      /app_id "app_9" is not known to this workspace; use one of app_1, app_2, app_3/,
    ],
    ['event=EVENT&length=3&segment_id=seg_99', /segment_id "seg_99" is not known/],
  ])('refuses ?%s with a 400 saying what to send', async (query, message) => {
    const r = await call(em, `/events/data_series?${query.replace('EVENT', event)}`);
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(message);
  });
});

describe('/kpi/*/data_series', () => {
  it.each(['dau', 'mau', 'new_users', 'uninstalls'])(
    '%s answers length days of { time, <metric> } ending with today',
    async (metric) => {
      const r = await call(em, `/kpi/${metric}/data_series?length=3`);
      expect(r.status).toBe(200);
      expect(r.body.message).toBe('success');
      expect(times(r.body)).toEqual(['2024-06-13', '2024-06-14', '2024-06-15']);
      for (const p of r.body.data) {
        expect(Object.keys(p).sort()).toEqual([metric, 'time'].sort());
        expect(Number.isInteger(p[metric])).toBe(true);
        expect(p[metric]).toBeGreaterThanOrEqual(0);
      }
      const app = await call(
        em,
        `/kpi/${metric}/data_series?length=2&ending_at=2024-05-02T10:00:00%2B02:00&app_id=app_3`,
      );
      expect(times(app.body)).toEqual(['2024-05-01', '2024-05-02']);
    },
  );

  it.each([
    ['dau', '', /length is required: an integer from 1 to 100/],
    ['mau', 'length=101', /length must be an integer from 1 to 100, got "101"/],
    ['new_users', 'length=3&unit=hour', /unit must be "day", got "hour"/],
    ['uninstalls', 'length=3&ending_at=2024-13-01', /ending_at must be an ISO 8601 date-time/],
    ['dau', 'length=3&app_id=nope', /app_id "nope" is not known to this workspace/],
  ])('/kpi/%s/data_series?%s is a 400 naming the parameter', async (metric, query, message) => {
    const r = await call(em, `/kpi/${metric}/data_series?${query}`);
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(message);
  });

  it('accepts unit=day, the only unit of a daily series', async () => {
    expect((await call(em, '/kpi/dau/data_series?length=1&unit=day')).status).toBe(200);
  });
});

describe('/canvas/data_series', () => {
  it('answers { data: { name, stats: [one element per day] } } with the breakdowns asked for', async () => {
    const r = await call(
      em,
      '/canvas/data_series?canvas_id=cv_2&ending_at=2024-06-10T00:00:00Z&length=3&include_variant_breakdown=true&include_step_breakdown=true',
    );
    expect(r.status).toBe(200);
    expect(r.body.message).toBe('success');
    expect(r.body.data.name).toBe('Win-back lapsed players');
    expect(r.body.data.stats.map((s: { time: string }) => s.time)).toEqual(['2024-06-08', '2024-06-09', '2024-06-10']);
    for (const s of r.body.data.stats) {
      expect(Object.keys(s).sort()).toEqual(['step_stats', 'time', 'total_stats', 'variant_stats']);
      expect(Object.keys(s.total_stats).sort()).toEqual([
        'conversions',
        'conversions_by_entry_time',
        'entries',
        'revenue',
      ]);
    }
    const plain = await call(em, '/canvas/data_series?canvas_id=cv_2&ending_at=2024-06-10T00:00:00Z&length=1');
    expect(Object.keys(plain.body.data.stats[0]).sort()).toEqual(['time', 'total_stats']);
  });

  it('reads starting_at to ending_at as every day from the one to the other, both included', async () => {
    const r = await call(
      em,
      '/canvas/data_series?canvas_id=cv_1&starting_at=2024-05-01T23:00:00Z&ending_at=2024-05-14T01:00:00Z',
    );
    expect(r.body.data.stats).toHaveLength(14);
    expect(r.body.data.stats[0].time).toBe('2024-05-01');
    expect(r.body.data.stats[13].time).toBe('2024-05-14');
  });

  it('defaults ending_at to now and leaves out the days after now', async () => {
    const r = await call(em, '/canvas/data_series?canvas_id=cv_1&length=2');
    expect(r.body.data.stats.map((s: { time: string }) => s.time)).toEqual(['2024-06-14', '2024-06-15']);
    const future = await call(em, '/canvas/data_series?canvas_id=cv_1&starting_at=2024-06-14&ending_at=2024-06-20');
    expect(future.body.data.stats.map((s: { time: string }) => s.time)).toEqual(['2024-06-14', '2024-06-15']);
  });

  it.each([
    ['length=3', /canvas_id must be a string of the Canvas api identifier/],
    ['canvas_id=cv_99&length=3', /canvas_id must be a string of the Canvas api identifier/],
    ['canvas_id=cv_1', /one of starting_at or length is required: length is an integer from 1 to 14/],
    ['canvas_id=cv_1&length=15', /length must be an integer from 1 to 14, got "15"/],
    [
      'canvas_id=cv_1&starting_at=2024-05-01&ending_at=2024-05-15',
      /spans 15 days \(2024-05-01 to 2024-05-15\); at most 14 are allowed: split the window/,
    ],
    [
      'canvas_id=cv_1&starting_at=2024-05-03&ending_at=2024-05-01',
      /starting_at \(2024-05-03\) must not be after ending_at \(2024-05-01\)/,
    ],
    ['canvas_id=cv_1&length=2&include_step_breakdown=yes', /include_step_breakdown must be true or false, got "yes"/],
    ['canvas_id=cv_1&starting_at=2024-05-01&length=99', /length must be an integer from 1 to 14/],
  ])('refuses ?%s with a 400', async (query, message) => {
    const r = await call(em, `/canvas/data_series?${query}`);
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(message);
  });
});

describe('what every route gets', () => {
  const PERMISSIONS: [string, string][] = [
    ['/events/data_series?event=EVENT&length=1', 'events.data_series'],
    ['/kpi/dau/data_series?length=1', 'kpi.dau.data_series'],
    ['/kpi/mau/data_series?length=1', 'kpi.mau.data_series'],
    ['/kpi/new_users/data_series?length=1', 'kpi.new_users.data_series'],
    ['/kpi/uninstalls/data_series?length=1', 'kpi.uninstalls.data_series'],
    ['/canvas/data_series?canvas_id=cv_1&length=1', 'canvas.data_series'],
  ];

  it('refuses a key without the permission with a 403 naming it, and answers a key that has only it', async () => {
    const keys = PERMISSIONS.map(([, permission], i) => ({
      key: `only-${i}-5d0c8e2a7b41f396`,
      name: `only ${permission}`,
      permissions: [permission],
    }));
    const limited = await startEmulator({
      keys: [
        ...keys,
        { key: 'sessions-only-9e3f1a7c2b05', name: 'sessions only', permissions: ['sessions.data_series'] },
      ],
    });
    try {
      for (const [i, [path, permission]] of PERMISSIONS.entries()) {
        const url = path.replace('EVENT', event);
        const denied = await call(limited, url, { key: 'sessions-only-9e3f1a7c2b05' });
        expect(denied.status, url).toBe(403);
        expect(denied.body.message).toContain(`requires the ${permission} permission`);
        expect(denied.body.message).not.toContain('sessions-only-9e3f1a7c2b05');
        expect((await call(limited, url, { key: `only-${i}-5d0c8e2a7b41f396` })).status, url).toBe(200);
        expect((await call(limited, url)).status, `${url} with the demo key`).toBe(200);
      }
    } finally {
      await limited.close();
    }
  });

  it('draws from the default pool, with its headers, and answers 429 once it is spent', async () => {
    const scaled = await startEmulator({ limitScale: 2 / LIMIT_POOLS.default.limit });
    try {
      for (const [path] of PERMISSIONS) {
        const before = scaled.stats.byPool.default;
        const url = path.replace('EVENT', event);
        const r = await call(scaled, url);
        expect(scaled.stats.byPool.default, url).toBe(before + 1);
        expect(r.headers.get('x-ratelimit-limit')).toBe('2');
      }
      const spent = await call(scaled, '/kpi/dau/data_series?length=1');
      expect(spent.status).toBe(429);
      expect(spent.body.message).toBe('API rate limit exceeded');
    } finally {
      await scaled.close();
    }
  });

  it('gets injected faults at fault rate 1, like every other route', async () => {
    const faulty = await startEmulator({ faultRate: 1 });
    try {
      for (const [path] of PERMISSIONS) {
        const res = await fetch(`${faulty.url}${path.replace('EVENT', event)}`, {
          headers: { Authorization: `Bearer ${faulty.demoApiKey}` },
        }).then(
          async (r) => ({
            status: r.status,
            ok: await r.text().then(
              () => true,
              () => false,
            ),
          }),
          () => ({ status: 0, ok: false }),
        );
        expect(res.status === 200 && res.ok, path).toBe(false);
      }
      expect(Object.values(faulty.stats.faults).reduce((a, b) => a + b, 0)).toBe(PERMISSIONS.length);
    } finally {
      await faulty.close();
    }
  });
});
