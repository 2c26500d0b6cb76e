// SeriesFailureStore on a real DuckDB file: the failed series of each stream's last run.
import { beforeEach, describe, expect, it } from 'vitest';
import { SeriesFailureStore } from '../../src/load/series-failure-store.js';
import type { Warehouse } from '../../src/load/warehouse.js';
import { warehousePerTest, utc } from './warehouse-helpers.js';

const db = warehousePerTest('failures.duckdb');
let wh: Warehouse;
let failures: SeriesFailureStore;

beforeEach(() => {
  wh = db.wh;
  failures = new SeriesFailureStore(wh);
});

const failure = (stream: string, series: string, id?: string) => ({
  stream,
  series,
  ...(id ? { id } : {}),
  error: `${series} failed`,
  retriable: id === undefined,
});

const listed = async (): Promise<string[]> =>
  (await failures.list()).map(
    (r) => `${r['stream']} ${r['series_key']} ${r['object_id']} ${r['retriable']} ${r['run_id']}`,
  );

describe('SeriesFailureStore', () => {
  it('lists nothing in a new database', async () => {
    expect(await failures.list()).toEqual([]);
  });

  it('stores each failure with its id, error and whether a retry can help, by stream and series', async () => {
    await failures.replace(['sessions', 'revenue'], 'r1', utc('2024-05-01'), [
      failure('sessions', 'b'),
      failure('revenue', 'z', 'cv_9'),
      failure('revenue', 'a'),
    ]);
    expect(await listed()).toEqual(['revenue a null true r1', 'revenue z cv_9 false r1', 'sessions b null true r1']);
    expect((await failures.list())[1]?.['error']).toBe('z failed');
  });

  it('replaces only the failures of the streams a run ran: the others keep theirs, and a clean run clears its own', async () => {
    await failures.replace(['revenue', 'sessions'], 'r1', utc('2024-05-01'), [
      failure('revenue', 'a'),
      failure('sessions', 'b'),
    ]);
    await failures.replace(['revenue'], 'r2', utc('2024-05-02'), [failure('revenue', 'c')]);
    expect(await listed()).toEqual(['revenue c null true r2', 'sessions b null true r1']);
    await failures.replace(['sessions'], 'r3', utc('2024-05-03'), []);
    expect(await listed()).toEqual(['revenue c null true r2']);
  });

  it('lists nothing from a database written before the table existed', async () => {
    await failures.replace(['revenue'], 'r1', utc('2024-05-01'), [failure('revenue', 'a')]);
    await wh.query('DROP TABLE "_etl_series_failures"');
    expect(await failures.list()).toEqual([]);
  });
});
