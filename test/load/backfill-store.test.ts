// BackfillStore on a real DuckDB file: how far each series stream's backfill has come, replaced per stream.
import { beforeEach, describe, expect, it } from 'vitest';
import { BackfillStore, backfillFromRow } from '../../src/load/backfill-store.js';
import type { BackfillProgress } from '../../src/load/backfill-store.js';
import type { Warehouse } from '../../src/load/warehouse.js';
import { warehousePerTest, utc } from './warehouse-helpers.js';

const db = warehousePerTest('backfill.duckdb');
let wh: Warehouse;
let backfill: BackfillStore;

beforeEach(() => {
  wh = db.wh;
  backfill = new BackfillStore(wh);
});

const progress = (stream: string, seriesComplete: number, more: Partial<BackfillProgress> = {}): BackfillProgress => ({
  stream,
  series: 3,
  seriesComplete,
  seriesStarted: 3,
  daysAsked: 400,
  daysCovered: 120,
  loadedFrom: utc('2024-01-10'),
  loadedTo: utc('2024-05-01'),
  order: 'newest_first',
  ...more,
});

describe('BackfillStore', () => {
  it('has nothing unfinished in a new database', async () => {
    expect(await backfill.unfinished()).toEqual([]);
  });

  it('reads back the progress it stored, and lists only the streams not complete, by name', async () => {
    await backfill.replace('r1', [progress('sessions', 1), progress('revenue', 3), progress('kpis', 0)]);
    const rows = await backfill.unfinished();
    expect(rows.map((r) => r['stream'])).toEqual(['kpis', 'sessions']);
    expect(backfillFromRow(rows[1]!)).toEqual(progress('sessions', 1));
    expect(rows[1]?.['run_id']).toBe('r1');
  });

  it("replaces a stream's row with its new progress and leaves the other streams' rows", async () => {
    await backfill.replace('r1', [progress('sessions', 1), progress('kpis', 0)]);
    await backfill.replace('r2', [
      progress('sessions', 2, { daysCovered: 300, order: 'oldest_first', loadedFrom: null }),
    ]);
    expect(await wh.query('SELECT "stream", "run_id" FROM "_etl_backfill" ORDER BY "stream"')).toEqual([
      { stream: 'kpis', run_id: 'r1' },
      { stream: 'sessions', run_id: 'r2' },
    ]);
    const sessions = (await backfill.unfinished()).find((r) => r['stream'] === 'sessions')!;
    expect(backfillFromRow(sessions)).toMatchObject({
      seriesComplete: 2,
      daysCovered: 300,
      order: 'oldest_first',
      loadedFrom: null,
    });
  });

  it('keeps what it holds when given no progress', async () => {
    await backfill.replace('r1', [progress('sessions', 1)]);
    await backfill.replace('r2', []);
    expect((await backfill.unfinished()).map((r) => r['run_id'])).toEqual(['r1']);
  });

  it('reads a row written before the range columns existed as oldest first, every series started, no range known', async () => {
    await wh.query(
      `INSERT INTO "_etl_backfill" ("stream", "series", "series_complete", "days_asked", "days_covered", "run_id", "updated_at")
       VALUES ('sessions', 4, 1, 100, 50, 'old', TIMESTAMP '2024-05-01')`,
    );
    const [row] = await backfill.unfinished();
    expect(backfillFromRow(row!)).toEqual({
      stream: 'sessions',
      series: 4,
      seriesComplete: 1,
      seriesStarted: 4,
      daysAsked: 100,
      daysCovered: 50,
      loadedFrom: null,
      loadedTo: null,
      order: 'oldest_first',
    });
  });

  it('has nothing unfinished in a database written before the table existed', async () => {
    await backfill.replace('r1', [progress('sessions', 1)]);
    await wh.query('DROP TABLE "_etl_backfill"');
    expect(await backfill.unfinished()).toEqual([]);
  });
});
