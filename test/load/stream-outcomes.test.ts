// StreamOutcomeStore on a real DuckDB file: each stream's last outcome, with its last success kept through failures.
import { beforeEach, describe, expect, it } from 'vitest';
import { StreamOutcomeStore } from '../../src/load/stream-outcomes.js';
import type { Warehouse } from '../../src/load/warehouse.js';
import { warehousePerTest, utc } from './warehouse-helpers.js';

const db = warehousePerTest('outcomes.duckdb');
let wh: Warehouse;
let outcomes: StreamOutcomeStore;

beforeEach(() => {
  wh = db.wh;
  outcomes = new StreamOutcomeStore(wh);
});

const ok = (stream: string) => ({ stream, status: 'succeeded' as const, error: null });
const failed = (stream: string, error: string) => ({ stream, status: 'failed' as const, error });

describe('StreamOutcomeStore', () => {
  it('lists nothing and knows no success in a new database', async () => {
    expect(await outcomes.list()).toEqual([]);
    expect(await outcomes.lastSuccesses()).toEqual({});
  });

  it("keeps one row per stream: a failure keeps the stream's last success, a success replaces it", async () => {
    await outcomes.record('r1', utc('2024-05-01T01:00:00'), [ok('revenue')]);
    await outcomes.record('r2', utc('2024-05-02T01:00:00'), [failed('revenue', '429 after 8 retries')]);
    expect(await outcomes.list()).toEqual([
      {
        stream: 'revenue',
        status: 'failed',
        error: '429 after 8 retries',
        run_id: 'r2',
        finished_at: utc('2024-05-02T01:00:00'),
        last_success_run_id: 'r1',
        last_success_at: utc('2024-05-01T01:00:00'),
      },
    ]);
    await outcomes.record('r3', utc('2024-05-03T01:00:00'), [ok('revenue')]);
    expect(await outcomes.list()).toMatchObject([
      { stream: 'revenue', status: 'succeeded', error: null, run_id: 'r3', last_success_run_id: 'r3' },
    ]);
  });

  it('lists by stream name and leaves a stream that never succeeded out of the last successes, in whole seconds', async () => {
    await outcomes.record('r1', utc('2024-05-01T01:00:00.600'), [failed('sessions', 'x'), ok('revenue'), ok('kpis')]);
    expect((await outcomes.list()).map((r) => r['stream'])).toEqual(['kpis', 'revenue', 'sessions']);
    const at = Math.round(utc('2024-05-01T01:00:00.600').getTime() / 1000);
    expect(await outcomes.lastSuccesses()).toEqual({ kpis: at, revenue: at });
  });

  it('records no row for a run that names no stream, and leaves the streams it does not name as they were', async () => {
    await outcomes.record('r1', utc('2024-05-01'), [ok('revenue')]);
    await outcomes.record('r2', utc('2024-05-02'), []);
    await outcomes.record('r3', utc('2024-05-03'), [failed('sessions', 'x')]);
    expect((await outcomes.list()).map((r) => `${r['stream']} ${r['run_id']} ${r['last_success_run_id']}`)).toEqual([
      'revenue r1 r1',
      'sessions r3 null',
    ]);
  });
});
