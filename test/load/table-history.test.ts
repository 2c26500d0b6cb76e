// The history tables of definitions, against a real DuckDB file: a version per change of the data, none for a change of
// bookkeeping alone, intervals that follow each other, and a database from before the history tables gaining them.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Warehouse } from '../../src/load/warehouse.js';
import type { CommitResult } from '../../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import { tempDir, utc } from './warehouse-helpers.js';

let dir: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterEach(async () => cleanup());

function segment(name: string, updatedAt: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    segment_id: '5f0c-seg',
    name,
    description: null,
    text_description: null,
    analytics_tracking_enabled: true,
    created_at: utc('2024-01-01'),
    updated_at: utc(updatedAt),
    tags: [],
    teams: [],
    _list_version: updatedAt,
    _removed_at: null,
    ...extra,
  };
}

async function commit(
  wh: Warehouse,
  runId: string,
  until: string,
  rows: Record<string, unknown>[],
): Promise<CommitResult> {
  return wh.commit({
    runId,
    loadedAt: utc(until),
    until: utc(until),
    upserts: [{ table: 'segments', rows }],
    state: [],
  });
}

const versions = (wh: Warehouse) =>
  wh.query(`SELECT "name", "_valid_from", "_valid_to", "_run_id" FROM "segments_history" ORDER BY "_valid_from"`);

describe('segments_history', () => {
  it('starts a version at updated_at when the data changes, ends the previous one there, and ignores a change of _list_version alone', async () => {
    const wh = await Warehouse.open(join(dir, 'w.duckdb'), WAREHOUSE_TABLES);
    try {
      const counted = (r: CommitResult) => r.tables.segments_history;
      expect(counted(await commit(wh, 'r1', '2024-03-02', [segment('Whales', '2024-03-01')]))).toMatchObject({
        inserted: 1,
        updated: 0,
      });
      expect(
        counted(await commit(wh, 'r2', '2024-03-03', [segment('Whales', '2024-03-01', { _list_version: 'moved' })])),
      ).toMatchObject({ inserted: 0, updated: 0 });
      // A rename opens a version and closes the one before it.
      expect(counted(await commit(wh, 'r3', '2024-03-10', [segment('Big spenders', '2024-03-08')]))).toMatchObject({
        inserted: 1,
        updated: 1,
      });
      expect(await versions(wh)).toEqual([
        { name: 'Whales', _valid_from: utc('2024-03-01'), _valid_to: utc('2024-03-08'), _run_id: 'r1' },
        { name: 'Big spenders', _valid_from: utc('2024-03-08'), _valid_to: null, _run_id: 'r3' },
      ]);
    } finally {
      await wh.close();
    }
  });

  it("starts a version at the run's --until when updated_at does not move, and closes the last one when the object is removed", async () => {
    const wh = await Warehouse.open(join(dir, 'w.duckdb'), WAREHOUSE_TABLES);
    try {
      await commit(wh, 'r1', '2024-03-02', [segment('Whales', '2024-03-01')]);
      await commit(wh, 'r2', '2024-03-05', [segment('Whales', '2024-03-01', { analytics_tracking_enabled: false })]);
      await commit(wh, 'r3', '2024-03-09', [
        segment('Whales', '2024-03-01', { analytics_tracking_enabled: false, _removed_at: utc('2024-03-09') }),
      ]);
      expect(await versions(wh)).toEqual([
        { name: 'Whales', _valid_from: utc('2024-03-01'), _valid_to: utc('2024-03-05'), _run_id: 'r1' },
        { name: 'Whales', _valid_from: utc('2024-03-05'), _valid_to: utc('2024-03-09'), _run_id: 'r2' },
      ]);
      // Listed again: a new current version, after the removal.
      await commit(wh, 'r4', '2024-03-12', [segment('Whales', '2024-03-01', { analytics_tracking_enabled: false })]);
      expect((await versions(wh)).at(-1)).toEqual({
        name: 'Whales',
        _valid_from: utc('2024-03-12'),
        _valid_to: null,
        _run_id: 'r4',
      });
      expect(
        await wh.query(
          `SELECT "table_name", "partition" FROM "_etl_dirty_partitions" WHERE "table_name" = 'segments_history'`,
        ),
      ).toEqual([{ table_name: 'segments_history', partition: '' }]);
    } finally {
      await wh.close();
    }
  });

  it("closes the version of a step a re-read Canvas no longer holds, at the run's --until", async () => {
    const wh = await Warehouse.open(join(dir, 'w.duckdb'), WAREHOUSE_TABLES);
    const step = (id: string, name: string) => ({
      canvas_id: 'cv-9',
      step_id: id,
      name,
      type: 'message',
      next_step_ids: [],
      next_paths: [],
      channels: [],
      messages: {},
    });
    const night = async (runId: string, until: string, steps: Record<string, unknown>[]) =>
      wh.commit({
        runId,
        loadedAt: utc(until),
        until: utc(until),
        upserts: [{ table: 'canvas_steps', rows: steps }],
        replaces: [{ table: 'canvas_steps', columns: ['canvas_id'], values: [['cv-9']] }],
        state: [],
      });
    try {
      await night('r1', '2024-03-02', [step('s1', 'Welcome'), step('s2', 'Reminder')]);
      await night('r2', '2024-03-03', [step('s1', 'Welcome!')]);
      expect(
        await wh.query(
          `SELECT "step_id", "name", "_valid_from", "_valid_to" FROM "canvas_steps_history" ORDER BY "step_id", "_valid_from"`,
        ),
      ).toEqual([
        { step_id: 's1', name: 'Welcome', _valid_from: utc('2024-03-02'), _valid_to: utc('2024-03-03') },
        { step_id: 's1', name: 'Welcome!', _valid_from: utc('2024-03-03'), _valid_to: null },
        { step_id: 's2', name: 'Reminder', _valid_from: utc('2024-03-02'), _valid_to: utc('2024-03-03') },
      ]);
    } finally {
      await wh.close();
    }
  });
});

describe('a database from before the history tables', () => {
  it('gains them when opened for writing, one current version per stored row from its updated_at', async () => {
    const path = join(dir, 'old.duckdb');
    const wh = await Warehouse.open(path, WAREHOUSE_TABLES);
    await commit(wh, 'r1', '2024-03-02', [segment('Whales', '2024-03-01')]);
    for (const table of ['canvases', 'canvas_variants', 'canvas_steps', 'campaigns', 'campaign_messages', 'segments'])
      await wh.query(`DROP TABLE "${table}_history"`);
    await wh.query(`DELETE FROM "_etl_dirty_partitions"`);
    await wh.close();

    // Read-only it is read as it is, the absent history tables named; the writer below creates them.
    const readOnly = await Warehouse.open(path, WAREHOUSE_TABLES, { readOnly: true });
    expect([...readOnly.absentHistory].sort()).toEqual([
      'campaign_messages_history',
      'campaigns_history',
      'canvas_steps_history',
      'canvas_variants_history',
      'canvases_history',
      'segments_history',
    ]);
    await readOnly.close();
    const reopened = await Warehouse.open(path, WAREHOUSE_TABLES);
    try {
      expect(await versions(reopened)).toEqual([
        { name: 'Whales', _valid_from: utc('2024-03-01'), _valid_to: null, _run_id: 'r1' },
      ]);
      expect(await reopened.query(`SELECT count(*)::INTEGER AS n FROM "canvases_history"`)).toEqual([{ n: 0 }]);
      expect(await reopened.query(`SELECT "table_name" FROM "_etl_dirty_partitions" ORDER BY 1`)).toEqual([
        { table_name: 'segments_history' },
      ]);
    } finally {
      await reopened.close();
    }
  });
});
