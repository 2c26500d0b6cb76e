// SeriesStateStore on a real DuckDB file: what the planner, `status`, the run's metrics and the dbt catalog read of the
// series state and holes, and the reset of a full refresh.
import { beforeEach, describe, expect, it } from 'vitest';
import { RunLog } from '../../src/load/run-log.js';
import type { HoleUpdate, SeriesStateUpdate } from '../../src/load/series-state-commit.js';
import { SeriesStateStore } from '../../src/load/series-state-store.js';
import type { Warehouse } from '../../src/load/warehouse.js';
import { revenueRow, warehousePerTest, utc } from './warehouse-helpers.js';

const db = warehousePerTest('state.duckdb');
let wh: Warehouse;
let store: SeriesStateStore;

beforeEach(() => {
  wh = db.wh;
  store = new SeriesStateStore(wh);
});

const state = (stream: string, seriesKey: string, unit: string, watermark: string): SeriesStateUpdate => ({
  stream,
  seriesKey,
  unit,
  watermark: utc(watermark),
  rowsLoaded: 1,
});

const hole = (stream: string, seriesKey: string, day: string, status: HoleUpdate['status'] = 'open'): HoleUpdate => ({
  stream,
  seriesKey,
  unit: 'day',
  unitStart: utc(day),
  status,
  attempts: 1,
  reason: `missing ${day}`,
});

async function commit(runId: string, s: SeriesStateUpdate[], holes: HoleUpdate[] = []): Promise<void> {
  await wh.commit({ runId, loadedAt: utc('2024-05-01'), upserts: [], state: s, holes });
}

async function logRun(runId: string, until: string): Promise<void> {
  await new RunLog(wh).begin({ runId, pipeline: 'p', startedAt: utc(until), until: utc(until) });
}

describe('SeriesStateStore on an empty database', () => {
  it('reads no state, no holes, no counts and no units', async () => {
    expect(await store.states()).toEqual([]);
    expect(await store.statesWithFetchedUntil()).toEqual([]);
    expect(await store.holes()).toEqual([]);
    expect(await store.status(utc('2024-05-01'))).toEqual([]);
    expect(await store.openHoleCounts()).toEqual({});
    expect(await store.seriesUnits()).toEqual({});
  });
});

describe('SeriesStateStore reads', () => {
  it('orders the states by stream, series and unit, and the holes by stream, series and start, whatever the commit order', async () => {
    await commit('r1', [state('sessions', 'b', 'day', '2024-04-02'), state('revenue', 'z', 'hour', '2024-04-02')]);
    await commit(
      'r2',
      [state('revenue', 'z', 'day', '2024-04-03'), state('revenue', 'a', 'day', '2024-04-01')],
      [hole('sessions', 'b', '2024-03-05'), hole('revenue', 'z', '2024-03-09'), hole('revenue', 'z', '2024-03-02')],
    );
    expect((await store.states()).map((s) => `${s.stream} ${s.seriesKey} ${s.unit} ${s.lastRunId}`)).toEqual([
      'revenue a day r2',
      'revenue z day r2',
      'revenue z hour r1',
      'sessions b day r1',
    ]);
    expect(
      (await store.holes()).map((h) => `${h.stream} ${h.seriesKey} ${h.unitStart.toISOString().slice(0, 10)}`),
    ).toEqual(['revenue z 2024-03-02', 'revenue z 2024-03-09', 'sessions b 2024-03-05']);
  });

  it('gives each watermark the --until of the run that last moved it, and none when that run is not logged', async () => {
    await logRun('r1', '2024-04-02');
    await logRun('r2', '2024-04-05');
    await commit('r1', [state('revenue', 'a', 'day', '2024-04-01'), state('revenue', 'a', 'hour', '2024-04-01')]);
    await commit('r2', [state('revenue', 'a', 'day', '2024-04-04')]);
    await commit('unlogged', [state('sessions', 'a', 'day', '2024-04-04')]);
    const read = await store.statesWithFetchedUntil();
    expect(read.map((s) => [s.stream, s.unit, s.lastRunId, s.fetchedUntil])).toEqual([
      ['revenue', 'day', 'r2', utc('2024-04-05')],
      ['revenue', 'hour', 'r1', utc('2024-04-02')],
      ['sessions', 'day', 'unlogged', undefined],
    ]);
    expect(read[2]).not.toHaveProperty('fetchedUntil');
    // The same rows as states(), with the until added.
    expect(read.map(({ fetchedUntil: _, ...s }) => s)).toEqual(await store.states());
  });

  it('counts only open holes, per stream, and forgets a filled one', async () => {
    await commit(
      'r1',
      [],
      [
        hole('revenue', 'a', '2024-03-01'),
        hole('revenue', 'b', '2024-03-01'),
        hole('revenue', 'a', '2024-03-02', 'confirmed_absent'),
        hole('sessions', 'a', '2024-03-02', 'confirmed_absent'),
      ],
    );
    expect(await store.openHoleCounts()).toEqual({ revenue: 2 });
    await commit('r2', [], [hole('revenue', 'b', '2024-03-01', 'filled')]);
    expect(await store.openHoleCounts()).toEqual({ revenue: 1 });
    expect((await store.holes()).map((h) => `${h.seriesKey} ${h.status}`)).toEqual([
      'a open',
      'a confirmed_absent',
      'a confirmed_absent',
    ]);
  });

  it('reads no open holes from a database written before the holes table existed', async () => {
    await commit('r1', [], [hole('revenue', 'a', '2024-03-01')]);
    await wh.query('DROP TABLE "_etl_holes"');
    expect(await store.openHoleCounts()).toEqual({});
  });

  it('lists the day and hour units each stream loaded, once each in name order, and leaves snapshots out', async () => {
    await commit('r1', [
      state('revenue', 'a', 'hour', '2024-04-01'),
      state('revenue', 'b', 'day', '2024-04-01'),
      state('revenue', 'c', 'day', '2024-04-01'),
      state('canvases', 'snapshot', 'snapshot', '2024-04-01'),
    ]);
    expect(await store.seriesUnits()).toEqual({ revenue: ['day', 'hour'] });
  });

  it('shows a series whose last run is not logged with no run status', async () => {
    await commit('unlogged', [state('revenue', 'a', 'day', '2024-04-01')]);
    expect(await store.status(utc('2024-04-01T12:00:00'))).toMatchObject([
      { stream: 'revenue', lastRunId: 'unlogged', lastRunStatus: null, lastRunFinishedAt: null, stalenessMs: 0 },
    ]);
  });
});

describe('SeriesStateStore.resetStreams', () => {
  it("removes only the reset streams' state and holes, and empties only the tables named", async () => {
    await wh.commit({
      runId: 'r1',
      loadedAt: utc('2024-05-01'),
      upserts: [
        { table: 'revenue', rows: [revenueRow('2024-04-01', 1)] },
        { table: 'canvases', rows: [{ canvas_id: 'cv_1', name: 'c', tags: [] }] },
      ],
      state: [state('revenue', 'a', 'day', '2024-04-02'), state('sessions', 'a', 'day', '2024-04-02')],
      holes: [hole('revenue', 'a', '2024-03-01'), hole('sessions', 'a', '2024-03-01')],
    });
    await store.resetStreams(['revenue'], ['revenue']);
    expect((await store.states()).map((s) => s.stream)).toEqual(['sessions']);
    expect((await store.holes()).map((h) => h.stream)).toEqual(['sessions']);
    expect(
      await wh.query('SELECT (SELECT count(*) FROM "revenue") AS r, (SELECT count(*) FROM "canvases") AS c'),
    ).toEqual([{ r: 0, c: 1 }]);
  });

  it('refuses a table the database does not hold before anything is removed', async () => {
    await commit('r1', [state('revenue', 'a', 'day', '2024-04-02')]);
    await expect(store.resetStreams(['revenue'], ['revenue', 'no_such_table'])).rejects.toThrow(/no_such_table/);
    expect(await store.states()).toHaveLength(1);
  });
});
