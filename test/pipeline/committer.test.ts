// The committer's back-pressure: fetching goes on while a batch commits; a producer waits only when the next batch is
// already full, and then only until the commit in progress ends and takes it — never for the whole commit loop.
import { describe, expect, it } from 'vitest';
import type { CommitResult, LoadBatch, Warehouse } from '../../src/load/warehouse.js';
import { Committer, MAX_PENDING_ROWS, type CommitPart } from '../../src/pipeline/committer.js';

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
  it('lets producers go on while a batch commits, up to MAX_PENDING_ROWS waiting for the next one', async () => {
    const { wh, batches, finishOne } = slowWarehouse();
    const committer = new Committer(wh, 'run-1', () => undefined);
    // The first part starts a commit at once; the ones after it wait for the next batch and return at once.
    expect(await settled(committer.add(part(100)))).toBe(true);
    for (let i = 0; i < MAX_PENDING_ROWS / 100; i++) expect(await settled(committer.add(part(100)))).toBe(true);
    expect(batches).toEqual([100]);
    // One more row than the bound: that producer waits until the commit in progress ends and takes the next batch.
    const over = committer.add(part(1));
    expect(await settled(over)).toBe(false);
    finishOne();
    expect(await settled(over)).toBe(true);
    expect(batches).toEqual([100, MAX_PENDING_ROWS + 1]);
    // It did not wait for that second batch to be written.
    finishOne();
    await committer.drain();
    expect(batches).toHaveLength(2);
  });
});
