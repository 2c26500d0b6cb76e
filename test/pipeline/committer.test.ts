// The committer's batching and back-pressure: commits gather rows; fetching goes on while a batch commits; a producer
// waits only when the next batch is already full, and then only until the commit in progress ends and takes it.
import { describe, expect, it } from 'vitest';
import type { CommitResult, LoadBatch, Warehouse } from '../../src/load/warehouse.js';
import { Committer, MAX_COMMIT_DELAY_MS, MAX_PENDING_ROWS, MIN_COMMIT_ROWS, type CommitPart } from '../../src/pipeline/committer.js';

/** A warehouse whose commits end only when the test says so; it records each batch's row count. */
function slowWarehouse(): { wh: Warehouse; batches: number[]; finishOne: () => void; pending: () => number } {
  const batches: number[] = [];
  const finishers: (() => void)[] = [];
  const wh = {
    commit: (batch: LoadBatch): Promise<CommitResult> => {
      batches.push(batch.upserts.reduce((n, u) => n + u.rows.length, 0));
      return new Promise((resolve) => finishers.push(() => resolve({ tables: {}, rowsChanged: 0 })));
    },
  } as unknown as Warehouse;
  return { wh, batches, finishOne: () => finishers.shift()?.(), pending: () => finishers.length };
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
  it('gathers MIN_COMMIT_ROWS before a commit, lets producers go on while it writes, and waits only for the next batch\'s take', async () => {
    const { wh, batches, finishOne } = slowWarehouse();
    const committer = new Committer(wh, 'run-1', () => undefined);
    // One window at a time is no commit: it waits for company.
    for (let i = 0; i < MIN_COMMIT_ROWS / 100 - 1; i++) expect(await settled(committer.add(part(100)))).toBe(true);
    expect(batches).toEqual([]);
    expect(await settled(committer.add(part(100)))).toBe(true);
    expect(batches).toEqual([MIN_COMMIT_ROWS]);
    // While it writes, up to MAX_PENDING_ROWS rows queue for the next batch and their producers go on at once.
    for (let i = 0; i < MAX_PENDING_ROWS / 100; i++) expect(await settled(committer.add(part(100)))).toBe(true);
    // One more row than the bound: that producer waits until the commit in progress ends and takes the next batch.
    const over = committer.add(part(1));
    expect(await settled(over)).toBe(false);
    finishOne();
    expect(await settled(over)).toBe(true);
    expect(batches).toEqual([MIN_COMMIT_ROWS, MAX_PENDING_ROWS + 1]);
    // It did not wait for that second batch to be written; a small tail is committed when the run drains.
    finishOne();
    expect(await settled(committer.add(part(10)))).toBe(true);
    const drained = committer.drain();
    await settled(drained);
    finishOne();
    await drained;
    expect(batches).toEqual([MIN_COMMIT_ROWS, MAX_PENDING_ROWS + 1, 10]);
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
    // Past the bound, a producer is let go once the next commit takes its part.
    const over = committer.add(part(MAX_PENDING_ROWS + 1));
    expect(await settled(over)).toBe(false);
    finishOne();
    expect(await settled(over)).toBe(true);
    finishOne();
    await committer.drain();
    expect(batches).toEqual([MIN_COMMIT_ROWS + 10, MIN_COMMIT_ROWS, MAX_PENDING_ROWS + 1]);
  });
});
