// The committer's batching and back-pressure: commits gather rows; fetching goes on while a batch commits, and the next
// batch is taken and converted meanwhile; a producer waits only when the rows after it are too many, and then only until
// they are taken.
import { describe, expect, it } from 'vitest';
import type { CommitResult, LoadBatch, Warehouse } from '../../src/load/warehouse.js';
import { Committer, MAX_COMMIT_DELAY_MS, MAX_PENDING_ROWS, MIN_COMMIT_ROWS, type CommitPart } from '../../src/pipeline/committer.js';

/**
 * A warehouse whose commits end only when the test says so; it records the row count of each batch written, in order,
 * and of each batch prepared (converted, ready to write).
 */
function slowWarehouse(): { wh: Warehouse; batches: number[]; prepared: number[]; finishOne: () => void; pending: () => number } {
  const batches: number[] = [];
  const prepared: number[] = [];
  const finishers: (() => void)[] = [];
  const rowsOf = (batch: LoadBatch): number => batch.upserts.reduce((n, u) => n + u.rows.length, 0);
  const wh = {
    prepareCommit: (batch: LoadBatch) => {
      prepared.push(rowsOf(batch));
      return batch;
    },
    commitPrepared: (batch: LoadBatch): Promise<CommitResult> => {
      batches.push(rowsOf(batch));
      return new Promise((resolve) => finishers.push(() => resolve({ tables: {}, rowsChanged: 0 })));
    },
  } as unknown as Warehouse;
  return { wh, batches, prepared, finishOne: () => finishers.shift()?.(), pending: () => finishers.length };
}

function part(rows: number): CommitPart {
  return { upserts: [{ table: 'sessions', rows: Array.from({ length: rows }, (_, i) => ({ i })) }], replaces: [], state: [], holes: [] };
}

/** Whether a promise has settled after the pending callbacks ran. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
}

describe('Committer', () => {
  it('gathers MIN_COMMIT_ROWS before a commit, converts the next batch while it writes, and makes producers wait only for a take', async () => {
    const { wh, batches, prepared, finishOne } = slowWarehouse();
    const committer = new Committer(wh, 'run-1', () => undefined);
    // One window at a time is no commit: it waits for company.
    for (let i = 0; i < MIN_COMMIT_ROWS / 100 - 1; i++) expect(await settled(committer.add(part(100)))).toBe(true);
    expect(batches).toEqual([]);
    expect(await settled(committer.add(part(100)))).toBe(true);
    expect(batches).toEqual([MIN_COMMIT_ROWS]);
    // While it writes, the next MIN_COMMIT_ROWS rows are taken and converted at once, not written yet.
    for (let i = 0; i < MIN_COMMIT_ROWS / 100; i++) expect(await settled(committer.add(part(100)))).toBe(true);
    expect(prepared).toEqual([MIN_COMMIT_ROWS, MIN_COMMIT_ROWS]);
    expect(batches).toEqual([MIN_COMMIT_ROWS]);
    // Up to MAX_PENDING_ROWS rows more queue behind it and their producers go on at once.
    for (let i = 0; i < MAX_PENDING_ROWS / 100; i++) expect(await settled(committer.add(part(100)))).toBe(true);
    // One more row than the bound: that producer waits until the rows before it are taken.
    const over = committer.add(part(1));
    expect(await settled(over)).toBe(false);
    finishOne();
    // The converted batch is written next, in the order the parts came; the queue behind it still waits.
    expect(await settled(over)).toBe(false);
    expect(batches).toEqual([MIN_COMMIT_ROWS, MIN_COMMIT_ROWS]);
    finishOne();
    expect(await settled(over)).toBe(true);
    expect(batches).toEqual([MIN_COMMIT_ROWS, MIN_COMMIT_ROWS, MAX_PENDING_ROWS + 1]);
    // It did not wait for that batch to be written; a small tail is committed when the run drains.
    finishOne();
    expect(await settled(committer.add(part(10)))).toBe(true);
    const drained = committer.drain();
    await settled(drained);
    finishOne();
    await drained;
    expect(batches).toEqual([MIN_COMMIT_ROWS, MIN_COMMIT_ROWS, MAX_PENDING_ROWS + 1, 10]);
  });

  it('fails the run with a batch that cannot be converted, written or not, and writes nothing after it', async () => {
    const { wh, batches, finishOne } = slowWarehouse();
    const failing = Object.assign(Object.create(wh) as Warehouse, {
      prepareCommit: (batch: LoadBatch) => {
        if (batch.upserts.some((u) => u.rows.some((r) => (r as { bad?: boolean }).bad))) throw new Error('row 3 is bad');
        return wh.prepareCommit(batch);
      },
    });
    const committer = new Committer(failing, 'run-1', () => undefined);
    await committer.add(part(MIN_COMMIT_ROWS));
    expect(batches).toEqual([MIN_COMMIT_ROWS]);
    // Converted while the first batch writes: the failure is the run's, at the next add or at the drain.
    await committer.add({ ...part(MIN_COMMIT_ROWS), upserts: [{ table: 'sessions', rows: [{ bad: true }, ...part(MIN_COMMIT_ROWS).upserts[0]!.rows] }] });
    await expect(committer.add(part(1))).rejects.toThrow('row 3 is bad');
    finishOne();
    await expect(committer.drain()).rejects.toThrow('row 3 is bad');
    expect(batches).toEqual([MIN_COMMIT_ROWS]);
  });

  it('commits a lone part once it has waited MAX_COMMIT_DELAY_MS, so a slow run still shows its progress', async () => {
    const { wh, batches, finishOne } = slowWarehouse();
    const committer = new Committer(wh, 'run-1', () => undefined);
    await committer.add(part(10));
    expect(batches).toEqual([]);
    await new Promise((r) => setTimeout(r, MAX_COMMIT_DELAY_MS + 50));
    expect(batches).toEqual([10]);
    finishOne();
    await committer.drain();
  });

  it('still commits after its delay ran out with nothing left to commit (a loop that ends at once is not left standing)', async () => {
    const { wh, batches, finishOne } = slowWarehouse();
    const committer = new Committer(wh, 'run-1', () => undefined);
    await committer.add(part(10));
    await committer.add(part(MIN_COMMIT_ROWS));
    expect(batches).toEqual([MIN_COMMIT_ROWS + 10]);
    finishOne();
    await new Promise((r) => setTimeout(r, MAX_COMMIT_DELAY_MS + 50));
    await committer.add(part(MIN_COMMIT_ROWS));
    expect(batches).toEqual([MIN_COMMIT_ROWS + 10, MIN_COMMIT_ROWS]);
    // While that commit writes, a part past the bound is taken at once as the next batch: its producer goes on.
    const over = committer.add(part(MAX_PENDING_ROWS + 1));
    expect(await settled(over)).toBe(true);
    finishOne();
    await settled(over);
    finishOne();
    await committer.drain();
    expect(batches).toEqual([MIN_COMMIT_ROWS + 10, MIN_COMMIT_ROWS, MAX_PENDING_ROWS + 1]);
  });
});
