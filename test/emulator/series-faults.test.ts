// Targeted series faults over real HTTP: an outage answer (`data: []`), a point missing the first N times it is asked
// for, a time repeated with another value, a point outside the window — each aimed at an endpoint, a time and query
// values for a number of answers, after which the server is healthy again; bad faults are refused with the field named.
import { afterEach, describe, expect, it } from 'vitest';
import type { RawEmulatorFlags } from '../../src/cli/emulator-command.js';
import { resolveEmulatorFlags } from '../../src/cli/emulator-command.js';
import { ConfigError } from '../../src/errors.js';
import { parseSeriesFaultFlag } from '../../src/emulator/series-faults.js';
import type { Emulator, EmulatorOptions } from '../../src/emulator/server.js';
import { call, startEmulator } from './emulator-test-helpers.js';

let em: Emulator | undefined;
afterEach(async () => {
  await em?.close();
  em = undefined;
});

async function start(opts: EmulatorOptions = {}): Promise<Emulator> {
  em = await startEmulator(opts);
  return em;
}

const times = (body: { data: { time: string }[] }): string[] => body.data.map((p) => p.time);
const SESSIONS = '/sessions/data_series?length=5&ending_at=2024-06-05';
const DAYS = ['2024-06-01', '2024-06-02', '2024-06-03', '2024-06-04', '2024-06-05'];

describe('series faults', () => {
  it('drop_all: the first answer is an outage (data: []), later ones are healthy', async () => {
    const e = await start({ seriesFaults: [{ endpoint: 'sessionsDataSeries', mode: 'drop_all', times: 1 }] });
    const first = await call(e, SESSIONS);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ message: 'success', data: [] });
    expect(times((await call(e, SESSIONS)).body)).toEqual(DAYS);
    expect(e.stats.seriesFaults.drop_all).toBe(1);
    expect(Object.values(e.stats.seriesFaults).reduce((a, b) => a + b, 0)).toBe(1);
  });

  it('drop_point with atTime: the point is missing the first N times an answer holds it; answers without it are untouched', async () => {
    const e = await start();
    e.injectSeriesFault({ endpoint: '/purchases/quantity_series', mode: 'drop_point', atTime: '2024-06-03', times: 2 });
    const path = '/purchases/quantity_series?length=5&ending_at=2024-06-05';
    const healthy = (await call(e, path.replace('length=5', 'length=2'))).body;
    expect(times(healthy)).toEqual(['2024-06-04', '2024-06-05']);
    const full = await call(e, `${path}&app_id=app_1`);
    expect(times(full.body)).toEqual(['2024-06-01', '2024-06-02', '2024-06-04', '2024-06-05']);
    expect(times((await call(e, path)).body)).toEqual(['2024-06-01', '2024-06-02', '2024-06-04', '2024-06-05']);
    expect(times((await call(e, path)).body)).toEqual(DAYS);
    expect(e.stats.seriesFaults.drop_point).toBe(2);
  });

  it('logs every altered answer: request number, endpoint, query, mode and the times dropped, repeated or added', async () => {
    const e = await start({
      seriesFaults: [
        { endpoint: 'sessionsDataSeries', mode: 'drop_all', times: 1 },
        { endpoint: 'sessionsDataSeries', mode: 'outside_window', times: 1 },
      ],
    });
    await call(e, SESSIONS);
    await call(e, '/kpi/dau/data_series?length=1');
    await call(e, SESSIONS);
    await call(e, SESSIONS);
    expect(e.seriesFaultLog()).toEqual([
      {
        sequence: 1,
        endpoint: 'sessionsDataSeries',
        query: 'length=5&ending_at=2024-06-05',
        mode: 'drop_all',
        times: DAYS,
      },
      {
        sequence: 3,
        endpoint: 'sessionsDataSeries',
        query: 'length=5&ending_at=2024-06-05',
        mode: 'outside_window',
        times: ['2024-05-31'],
      },
    ]);
  });

  it('rate: hits matching answers at random, replayed exactly from the seed; spared answers keep their points', async () => {
    const run = async (seed: number) => {
      const e = await startEmulator({
        seed,
        seriesFaults: [{ endpoint: 'sessionsDataSeries', mode: 'drop_point', rate: 0.5 }],
      });
      try {
        const lengths: number[] = [];
        for (let i = 0; i < 30; i++) lengths.push((await call(e, SESSIONS)).body.data.length);
        return { lengths, log: e.seriesFaultLog().map((r) => r.sequence) };
      } finally {
        await e.close();
      }
    };
    const a = await run(1);
    expect(a.lengths.filter((n) => n === 4).length).toBeGreaterThan(5);
    expect(a.lengths.filter((n) => n === 5).length).toBeGreaterThan(5);
    expect(a.log).toEqual(a.lengths.flatMap((n, i) => (n === 4 ? [i + 1] : [])));
    expect(await run(1)).toEqual(a);
    expect((await run(2)).lengths).not.toEqual(a.lengths);
  });

  it('drop_point without atTime drops the middle point (index ⌊n/2⌋), on hourly answers too', async () => {
    const e = await start({ seriesFaults: [{ endpoint: 'eventsDataSeries', mode: 'drop_point' }] });
    const event = (await call(e, '/events/list')).body.events[0];
    const r = await call(e, `/events/data_series?event=${event}&length=4&unit=hour&ending_at=2024-06-10T03:00:00Z`);
    expect(times(r.body)).toEqual(['2024-06-10T00:00:00Z', '2024-06-10T01:00:00Z', '2024-06-10T03:00:00Z']);
  });

  it('conflicting_duplicate: one time appears twice with two different values, right after itself', async () => {
    const e = await start({
      seriesFaults: [
        { endpoint: 'kpiDauDataSeries', mode: 'conflicting_duplicate', atTime: '2024-06-02T00:00:00Z', times: 1 },
      ],
    });
    const healthy = await call(e, '/kpi/dau/data_series?length=1&ending_at=2024-06-05');
    const r = await call(e, '/kpi/dau/data_series?length=3&ending_at=2024-06-03');
    expect(times(r.body)).toEqual(['2024-06-01', '2024-06-02', '2024-06-02', '2024-06-03']);
    expect(r.body.data[2].dau).toBe(r.body.data[1].dau + 1);
    expect(healthy.body.data).toHaveLength(1);
    expect(times((await call(e, '/kpi/dau/data_series?length=3&ending_at=2024-06-03')).body)).toEqual([
      '2024-06-01',
      '2024-06-02',
      '2024-06-03',
    ]);
  });

  it('conflicting_duplicate and drop_point reach the daily stats of a Canvas data series', async () => {
    const e = await start({
      seriesFaults: [
        { endpoint: 'canvasDataSeries', mode: 'conflicting_duplicate', atTime: '2024-06-02', times: 1 },
        { endpoint: 'canvasDataSeries', mode: 'drop_point', atTime: '2024-06-02', times: 1 },
      ],
    });
    const path = '/canvas/data_series?canvas_id=cv_1&ending_at=2024-06-03&length=3&include_variant_breakdown=true';
    const dup = (await call(e, path)).body.data.stats;
    expect(dup.map((s: { time: string }) => s.time)).toEqual(['2024-06-01', '2024-06-02', '2024-06-02', '2024-06-03']);
    expect(dup[2]).not.toEqual(dup[1]);
    expect(dup[2].total_stats.revenue).toBe(dup[1].total_stats.revenue + 1);
    const dropped = (await call(e, path)).body.data.stats;
    expect(dropped.map((s: { time: string }) => s.time)).toEqual(['2024-06-01', '2024-06-03']);
    expect((await call(e, path)).body.data.stats).toHaveLength(3);
  });

  it('outside_window: a point one unit before the window, in the same time form', async () => {
    const e = await start({ seriesFaults: [{ endpoint: 'sessionsDataSeries', mode: 'outside_window' }] });
    const days = await call(e, SESSIONS);
    expect(times(days.body)).toEqual(['2024-05-31', ...DAYS]);
    expect(days.body.data[0].sessions).toBe(days.body.data[1].sessions);
    const hours = await call(e, '/sessions/data_series?length=2&unit=hour&ending_at=2024-06-01T01:00:00Z');
    expect(times(hours.body)).toEqual(['2024-05-31T23:00:00Z', '2024-06-01T00:00:00Z', '2024-06-01T01:00:00Z']);
  });

  it('matches query values: an app, or null for "all apps" (the parameter absent)', async () => {
    const e = await start({
      seriesFaults: [
        { endpoint: 'sessionsDataSeries', mode: 'drop_all', query: { app_id: 'app_2' } },
        { endpoint: 'sessionsDataSeries', mode: 'drop_point', query: { app_id: null, unit: 'hour' } },
      ],
    });
    expect((await call(e, `${SESSIONS}&app_id=app_2`)).body.data).toEqual([]);
    expect(times((await call(e, `${SESSIONS}&app_id=app_1`)).body)).toEqual(DAYS);
    expect(times((await call(e, SESSIONS)).body)).toEqual(DAYS);
    expect(
      (await call(e, '/sessions/data_series?length=3&unit=hour&ending_at=2024-06-01T02:00:00Z')).body.data,
    ).toHaveLength(2);
    expect(
      (await call(e, '/sessions/data_series?length=3&unit=hour&ending_at=2024-06-01T02:00:00Z&app_id=app_1')).body.data,
    ).toHaveLength(3);
  });

  it('leaves errors and other endpoints alone, and clearSeriesFaults heals everything', async () => {
    const e = await start({ seriesFaults: [{ endpoint: 'sessionsDataSeries', mode: 'drop_all' }] });
    const bad = await call(e, '/sessions/data_series?length=0');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/length must be/);
    expect(times((await call(e, '/purchases/quantity_series?length=5&ending_at=2024-06-05')).body)).toEqual(DAYS);
    expect((await call(e, SESSIONS)).body.data).toEqual([]);
    e.clearSeriesFaults();
    expect(times((await call(e, SESSIONS)).body)).toEqual(DAYS);
  });

  it.each([
    [
      { endpoint: 'canvasDataSummary', mode: 'drop_all' },
      /seriesFaults\[0\]\.endpoint: "canvasDataSummary" is not a series endpoint; use one of .*sessionsDataSeries/,
    ],
    [{ endpoint: '/nope', mode: 'drop_all' }, /seriesFaults\[0\]\.endpoint: "\/nope" is not a series endpoint/],
    [
      { endpoint: 'sessionsDataSeries', mode: 'explode' },
      /seriesFaults\[0\]\.mode: "explode" is not a series fault mode; use one of drop_all, drop_point, conflicting_duplicate, outside_window/,
    ],
    [
      { endpoint: 'sessionsDataSeries', mode: 'drop_all', times: 0 },
      /seriesFaults\[0\]\.times: must be an integer ≥ 1/,
    ],
    [
      { endpoint: 'sessionsDataSeries', mode: 'drop_all', atTime: 'tuesday' },
      /seriesFaults\[0\]\.atTime: "tuesday" is not a date or ISO 8601 instant/,
    ],
    [
      { endpoint: 'sessionsDataSeries', mode: 'drop_all', query: { app_id: 3 } },
      /seriesFaults\[0\]\.query\.app_id: must be a string, or null/,
    ],
    [
      { endpoint: 'sessionsDataSeries', mode: 'drop_all', rate: 0 },
      /seriesFaults\[0\]\.rate: must be a probability in \(0, 1\], got 0/,
    ],
  ])('refuses the bad fault %o with a ConfigError naming the field', async (fault, message) => {
    await expect(startEmulator({ seriesFaults: [fault as never] })).rejects.toThrow(message);
    await expect(startEmulator({ seriesFaults: [fault as never] })).rejects.toBeInstanceOf(ConfigError);
  });
});

describe('--series-fault', () => {
  const defaults: RawEmulatorFlags = {
    port: '4010',
    host: '127.0.0.1',
    seed: '1',
    latencyMs: '0',
    faultRate: '0',
    limitScale: '1',
    limitWindowScale: '1',
    rateLimits: true,
  };

  it('reads endpoint, mode, at, times and query values, and may be repeated', () => {
    expect(
      parseSeriesFaultFlag(
        'endpoint=sessionsDataSeries,mode=drop_point,at=2024-06-01T05:00:00Z,times=2,rate=0.25,app_id=app_1,unit=hour',
      ),
    ).toEqual({
      endpoint: 'sessionsDataSeries',
      mode: 'drop_point',
      atTime: '2024-06-01T05:00:00Z',
      times: 2,
      rate: 0.25,
      query: { app_id: 'app_1', unit: 'hour' },
    });
    const opts = resolveEmulatorFlags({
      ...defaults,
      seriesFault: ['endpoint=kpiDauDataSeries,mode=drop_all', 'endpoint=/canvas/data_series,mode=outside_window'],
    });
    expect(opts.seriesFaults).toEqual([
      { endpoint: 'kpiDauDataSeries', mode: 'drop_all' },
      { endpoint: '/canvas/data_series', mode: 'outside_window' },
    ]);
  });

  it.each([
    ['mode=drop_all', /--series-fault: "mode=drop_all" needs endpoint= and mode=/],
    ['endpoint=sessionsDataSeries,drop_all', /each part must be key=value/],
    ['endpoint=sessionsDataSeries,mode=drop_all,times=once', /times must be an integer ≥ 1, got "once"/],
    ['endpoint=sessionsDataSeries,mode=melt', /--series-fault\.mode: "melt" is not a series fault mode/],
    [
      'endpoint=sessionsDataSeries,mode=drop_all,rate=often',
      /--series-fault\.rate: must be a probability in \(0, 1\], got NaN/,
    ],
  ])('refuses %s', (spec, message) => {
    expect(() => parseSeriesFaultFlag(spec)).toThrow(message);
  });
});
