// ListingStore on a real DuckDB file: the entries the listings table keeps per list, and what a discovered table holds
// of the objects the lists show.
import { beforeEach, describe, expect, it } from 'vitest';
import { ListingStore } from '../../src/load/listing-store.js';
import { RunLog } from '../../src/load/run-log.js';
import type { Warehouse } from '../../src/load/warehouse.js';
import { tableSpec } from '../../src/streams/table-specs.js';
import { listedObjectsTable } from '../../src/streams/workspace-lists.js';
import { warehousePerTest, utc } from './warehouse-helpers.js';

const db = warehousePerTest('listings.duckdb');
let wh: Warehouse;
let listings: ListingStore;

beforeEach(() => {
  wh = db.wh;
  listings = new ListingStore(wh, listedObjectsTable);
});

const segments = tableSpec('segments');

const entry = (listing: string, id: string, removed?: string) => ({
  listing,
  id,
  name: `name of ${id}`,
  version: 'v1',
  tags: ['t'],
  attributes: { archived: false, n: id.length },
  first_seen_at: utc('2024-04-01'),
  _removed_at: removed ? utc(removed) : null,
});

const segment = (id: string, version: string | null, removed?: string) => ({
  segment_id: id,
  name: id,
  updated_at: utc('2024-04-01'),
  tags: [],
  teams: [],
  _list_version: version,
  _removed_at: removed ? utc(removed) : null,
});

async function upsert(runId: string, table: string, rows: Record<string, unknown>[], loadedAt = '2024-05-01') {
  await wh.commit({ runId, loadedAt: utc(loadedAt), upserts: [{ table, rows }], state: [] });
}

describe('ListingStore on an empty database', () => {
  it('counts no entry and finds nothing to upsert again', async () => {
    expect(await listings.activeCount('segments')).toBe(0);
    expect(await listings.activeEntries('segments')).toEqual([]);
    expect(await listings.entriesLeftOut('segments', ['sg_1'])).toEqual([]);
    expect(await listings.objectsLeftOut(segments, [])).toEqual([]);
    expect((await listings.listVersions(segments)).size).toBe(0);
  });
});

describe('ListingStore', () => {
  it('reads the active entries of one listing only, with their JSON attributes as objects', async () => {
    await upsert('r1', 'listed_objects', [
      entry('segments', 'sg_1'),
      entry('segments', 'sg_2'),
      entry('segments', 'sg_gone', '2024-04-20'),
      entry('canvases', 'cv_1'),
    ]);
    expect(await listings.activeCount('segments')).toBe(2);
    expect(await listings.activeCount('canvases+archived')).toBe(0);
    const active = await listings.activeEntries('segments');
    expect(active.map((r) => r['id']).sort()).toEqual(['sg_1', 'sg_2']);
    expect(active.find((r) => r['id'] === 'sg_1')).toEqual(entry('segments', 'sg_1'));
  });

  it('finds the active entries a listing left out, and none when every id is listed', async () => {
    await upsert('r1', 'listed_objects', [
      entry('segments', 'sg_1'),
      entry('segments', 'sg_2'),
      entry('segments', 'sg_3'),
      entry('segments', 'sg_gone', '2024-04-20'),
      entry('canvases', 'cv_1'),
    ]);
    expect((await listings.entriesLeftOut('segments', ['sg_2'])).map((r) => r['id']).sort()).toEqual(['sg_1', 'sg_3']);
    expect(await listings.entriesLeftOut('segments', ['sg_1', 'sg_2', 'sg_3'])).toEqual([]);
    expect((await listings.entriesLeftOut('segments', [])).map((r) => r['id']).sort()).toEqual([
      'sg_1',
      'sg_2',
      'sg_3',
    ]);
  });

  it('finds the stored objects of a discovered table that the ids leave out, not those already stamped removed', async () => {
    await upsert('r1', 'segments', [
      segment('sg_1', 'v1'),
      segment('sg_2', 'v1'),
      segment('sg_old', 'v1', '2024-04-20'),
    ]);
    const left = await listings.objectsLeftOut(segments, ['sg_2']);
    expect(left.map((r) => r['segment_id'])).toEqual(['sg_1']);
    expect(Object.keys(left[0]!)).toEqual(segments.columns.map((c) => c.name));
  });

  it("gives each object's list version as of the run's --until, else its load time, leaving out removed and unversioned ones", async () => {
    await new RunLog(wh).begin({
      runId: 'logged',
      pipeline: 'p',
      startedAt: utc('2024-05-02'),
      until: utc('2024-05-02T06:00:00'),
    });
    await upsert('logged', 'segments', [segment('sg_1', 'v7')], '2024-05-02T06:30:00');
    await upsert(
      'unlogged',
      'segments',
      [segment('sg_2', 'v3'), segment('sg_none', null), segment('sg_old', 'v1', '2024-04-20')],
      '2024-05-03',
    );
    expect(Object.fromEntries(await listings.listVersions(segments))).toEqual({
      sg_1: { version: 'v7', loadedAt: utc('2024-05-02T06:00:00') },
      sg_2: { version: 'v3', loadedAt: utc('2024-05-03') },
    });
  });
});
