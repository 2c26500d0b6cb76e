// RunLog on a real DuckDB file: a run's begin and end, the newest run, the count of ended runs, and the closing of runs
// whose process died.
import { beforeEach, describe, expect, it } from 'vitest';
import { RunLog } from '../../src/load/run-log.js';
import type { RunEnd } from '../../src/load/run-log.js';
import type { Warehouse } from '../../src/load/warehouse.js';
import { warehousePerTest, utc } from './warehouse-helpers.js';

const db = warehousePerTest('runs.duckdb');
let wh: Warehouse;
let log: RunLog;

beforeEach(() => {
  wh = db.wh;
  log = new RunLog(wh);
});

const begin = (runId: string, startedAt: string, pid = 4242) =>
  log.begin({ runId, pipeline: 'nightly', startedAt: utc(startedAt), until: utc('2024-05-01'), pid });

const finish = (runId: string, status: RunEnd['status'], error?: string) =>
  log.finish({
    runId,
    finishedAt: utc('2024-05-01T02:00:00'),
    status,
    requests: 12,
    rowsChanged: 34,
    ...(error ? { error } : {}),
  });

describe('RunLog on an empty database', () => {
  it('has no latest run, no ended runs and nothing abandoned', async () => {
    expect(await log.latest()).toBeUndefined();
    expect(await log.endedCount()).toBe(0);
    expect(await log.closeAbandoned(utc('2024-05-01'))).toEqual([]);
  });
});

describe('RunLog', () => {
  it('records a run as running, then updates that row with its end', async () => {
    await begin('r1', '2024-05-01T01:00:00');
    expect(await log.latest()).toMatchObject({
      run_id: 'r1',
      status: 'running',
      requests: 0,
      finished_at: null,
      pid: 4242,
    });
    await finish('r1', 'failed', 'the API refused the key');
    expect(await log.latest()).toEqual({
      run_id: 'r1',
      status: 'failed',
      started_at: utc('2024-05-01T01:00:00'),
      finished_at: utc('2024-05-01T02:00:00'),
      until: utc('2024-05-01'),
      requests: 12,
      rows_changed: 34,
      error: 'the API refused the key',
      pid: 4242,
    });
    expect(await wh.query('SELECT count(*) AS n FROM "_etl_runs"')).toEqual([{ n: 1 }]);
  });

  it('takes the latest run by its start, not by the order the rows were written', async () => {
    await begin('later', '2024-05-02T01:00:00');
    await begin('earlier', '2024-05-01T01:00:00');
    expect((await log.latest())?.['run_id']).toBe('later');
  });

  it('counts only the runs that ended and recorded their end', async () => {
    for (const [id, status] of [
      ['ok', 'succeeded'],
      ['holes', 'completed_with_holes'],
      ['some', 'incomplete'],
      ['bad', 'failed'],
      ['stopped', 'interrupted'],
    ] as const) {
      await begin(id, '2024-05-01T01:00:00');
      await finish(id, status);
    }
    await begin('still', '2024-05-01T03:00:00');
    await begin('killed', '2024-05-01T04:00:00');
    await log.closeAbandoned(utc('2024-05-01T05:00:00'));
    expect(await log.endedCount()).toBe(4);
  });

  it('closes only the runs still logged as running, oldest first, and leaves ended ones as they were', async () => {
    await begin('done', '2024-05-01T00:00:00');
    await finish('done', 'succeeded');
    await begin('b', '2024-05-01T02:00:00', 2);
    await begin('a', '2024-05-01T01:00:00', 1);
    expect(await log.closeAbandoned(utc('2024-05-01T03:00:00'))).toEqual(['a (pid 1)', 'b (pid 2)']);
    const rows = await wh.query('SELECT "run_id", "status", "finished_at", "error" FROM "_etl_runs" ORDER BY "run_id"');
    expect(rows.map((r) => [r['run_id'], r['status'], r['finished_at']])).toEqual([
      ['a', 'abandoned', utc('2024-05-01T03:00:00')],
      ['b', 'abandoned', utc('2024-05-01T03:00:00')],
      ['done', 'succeeded', utc('2024-05-01T02:00:00')],
    ]);
    expect(rows[0]?.['error']).toMatch(/ended without recording its end/);
    expect(rows[2]?.['error']).toBeNull();
    expect(await log.closeAbandoned(utc('2024-05-01T04:00:00'))).toEqual([]);
  });
});
