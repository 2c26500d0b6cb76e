// PartitionBook on a real DuckDB file: the partitions commits mark dirty, their clearing, and the partitions a table's
// rows fall in as the export writes them.
import { beforeEach, describe, expect, it } from 'vitest';
import { PartitionBook } from '../../src/load/partition-book.js';
import { WHOLE_TABLE_PARTITION } from '../../src/load/table-definition.js';
import type { Warehouse } from '../../src/load/warehouse.js';
import { tableSpec } from '../../src/streams/table-specs.js';
import { revenueRow, warehousePerTest, utc } from './warehouse-helpers.js';

const db = warehousePerTest('book.duckdb');
let wh: Warehouse;
let book: PartitionBook;

beforeEach(() => {
  wh = db.wh;
  book = new PartitionBook(wh);
});

const revenue = tableSpec('revenue');
const canvases = tableSpec('canvases');

async function load(): Promise<void> {
  await wh.commit({
    runId: 'r1',
    loadedAt: utc('2024-05-01'),
    upserts: [
      {
        table: 'revenue',
        rows: [revenueRow('2023-12-31', 1), revenueRow('2024-01-01', 2), revenueRow('2024-03-01', 3)],
      },
      { table: 'canvases', rows: [{ canvas_id: 'cv_1', name: 'c', tags: [] }] },
    ],
    state: [],
  });
}

const sorted = (dirty: Map<string, Set<string>>): Record<string, string[]> =>
  Object.fromEntries([...dirty].map(([table, parts]) => [table, [...parts].sort()]));

describe('PartitionBook', () => {
  it('holds nothing dirty and no partitions in a new database', async () => {
    expect((await book.dirty()).size).toBe(0);
    expect(await book.years(revenue)).toEqual([]);
    expect([...(await book.rowsByPartition(revenue))]).toEqual([]);
    expect([...(await book.rowsByPartition(canvases))]).toEqual([]);
  });

  it('reads the partitions a commit marked dirty, by table, once each', async () => {
    await load();
    await load();
    // A table that keeps a history marks its history table dirty with it.
    expect(sorted(await book.dirty())).toEqual({
      canvases: [WHOLE_TABLE_PARTITION],
      canvases_history: [WHOLE_TABLE_PARTITION],
      revenue: ['2023-12', '2024-01', '2024-03'],
    });
  });

  it('clears only the partitions named, of the table named', async () => {
    await load();
    await book.clear('revenue', ['2023-12', '2024-03', '2022-01']);
    await book.clear('canvases_history', [WHOLE_TABLE_PARTITION]);
    const left = { canvases: [WHOLE_TABLE_PARTITION], revenue: ['2024-01'] };
    expect(sorted(await book.dirty())).toEqual(left);
    await book.clear('revenue', []);
    expect(sorted(await book.dirty())).toEqual(left);
  });

  it('counts the rows of each year of a partitioned table, and of a single-file table as one partition', async () => {
    await load();
    expect((await book.years(revenue)).sort()).toEqual(['2023', '2024']);
    expect(Object.fromEntries(await book.rowsByPartition(revenue))).toEqual({ '2023': 1, '2024': 2 });
    expect(await book.years(canvases)).toEqual([]);
    expect([...(await book.rowsByPartition(canvases))]).toEqual([[WHOLE_TABLE_PARTITION, 1]]);
  });
});
