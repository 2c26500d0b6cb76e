// The committer's batching and back-pressure: commits gather rows; fetching goes on while a batch commits, and the next
// batch is taken and converted meanwhile; a producer waits only when the rows after it are too many, and then only until
// they are taken.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Warehouse, type CommitResult, type LoadBatch } from '../../src/load/warehouse.js';
import { Committer, MAX_COMMIT_DELAY_MS, MAX_PENDING_ROWS, MIN_COMMIT_ROWS, REOPEN_EVERY_MS, ROW_WIDTH, countedRows, type CommitPart } from '../../src/pipeline/committer.js';

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
      return new Promise((resolve) => finishers.push(() => resolve({ tables: {}, rowsChanged: 0, rowsCompared: 0 })));
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
  void p.then(() => (done = true), () => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
}

/** A part of `rows` rows of `columns` columns each. */
function widePart(rows: number, columns: number): CommitPart {
  const row = (i: number) => Object.fromEntries(Array.from({ length: columns }, (_, c) => [`c${c}`, i]));
  return { upserts: [{ table: 'campaign_message_series', rows: Array.from({ length: rows }, (_, i) => row(i)) }], replaces: [], state: [], holes: [] };
}

describe('Committer', () => {
  it('counts a row wider than ROW_WIDTH columns as its columns over ROW_WIDTH, so wide batches commit sooner', async () => {
    expect(countedRows(widePart(100, ROW_WIDTH))).toBe(100);
    expect(countedRows(widePart(100, 3 * ROW_WIDTH))).toBe(300);
    expect(countedRows({ upserts: [...widePart(10, 2 * ROW_WIDTH).upserts, ...part(7).upserts, { table: 'x', rows: [] }] })).toBe(27);
    const { wh, batches } = slowWarehouse();
    const committer = new Committer(wh, 'run', () => {});
    // A fifth of MIN_COMMIT_ROWS narrow rows waits for more; as many rows five times as wide fill a commit at once.
    await committer.add(part(MIN_COMMIT_ROWS / 5));
    expect(batches).toEqual([]);
    await committer.add(widePart(MIN_COMMIT_ROWS / 5, 5 * ROW_WIDTH));
    expect(batches).toEqual([(2 * MIN_COMMIT_ROWS) / 5]);
  });

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

  it('lets a request claim room only while the rows pending and those claimed by requests in flight stay within the bound', async () => {
    const { wh, batches, finishOne } = slowWarehouse();
    const committer = new Committer(wh, 'run-1', () => undefined);
    // A kind not seen yet sends one request at a time: the second waits for the first one's rows.
    const first = committer.room('sessions');
    expect(first.claim()).toBe(true);
    const second = committer.room('sessions');
    expect(second.claim()).toBe(false);
    const secondFree = second.whenFree();
    expect(await settled(secondFree)).toBe(false);
    await committer.add(part(1_000), first);
    expect(await settled(secondFree)).toBe(true);
    expect(second.claim()).toBe(true);
    // 1,000 pending and 1,000 claimed: requests claim until their claims would pass MAX_PENDING_ROWS, then one cannot.
    const inFlight = [second];
    while (1_000 + 1_000 * (inFlight.length + 1) <= MAX_PENDING_ROWS) {
      const room = committer.room('sessions');
      expect(room.claim()).toBe(true);
      inFlight.push(room);
    }
    const held = committer.room('sessions');
    expect(held.claim()).toBe(false);
    const heldFree = held.whenFree();
    expect(await settled(heldFree)).toBe(false);
    // A request that failed gives its room back: the held one may go.
    inFlight.pop()!.release();
    expect(await settled(heldFree)).toBe(true);
    expect(held.claim()).toBe(true);
    inFlight.push(held);
    const next = committer.room('sessions');
    expect(next.claim()).toBe(false);
    const nextFree = next.whenFree();
    // The answers come: once MIN_COMMIT_ROWS are pending a commit takes them, and the next request may go.
    for (const room of inFlight) await committer.add(part(1_000), room);
    expect(batches).toEqual([MIN_COMMIT_ROWS]);
    expect(await settled(nextFree)).toBe(true);
    expect(next.claim()).toBe(true);
    next.release();
    finishOne();
    await committer.drain();
  });

  it('commits at once when a request waits for room and none in flight would bring more, rather than after its delay', async () => {
    const { wh, batches, finishOne } = slowWarehouse();
    const committer = new Committer(wh, 'run-1', () => undefined);
    const first = committer.room('campaign_series');
    expect(first.claim()).toBe(true);
    await committer.add(part(16_000), first);
    expect(batches).toEqual([]);
    // 16,000 pending and parts of about 16,000: the next request cannot fit beside them, and nothing else will come.
    const next = committer.room('campaign_series');
    expect(next.claim()).toBe(false);
    const free = next.whenFree();
    expect(batches).toEqual([16_000]);
    expect(await settled(free)).toBe(true);
    expect(next.claim()).toBe(true);
    next.release();
    finishOne();
    await committer.drain();
  });

  it('fails the requests waiting for room when a commit fails, and lets none claim after', async () => {
    const { wh } = slowWarehouse();
    let fail: (error: Error) => void = () => undefined;
    const failing = Object.assign(Object.create(wh) as Warehouse, {
      commitPrepared: () => new Promise((_resolve, reject) => (fail = reject)),
    });
    const committer = new Committer(failing, 'run-1', () => undefined);
    const first = committer.room('sessions');
    expect(first.claim()).toBe(true);
    await committer.add(part(MIN_COMMIT_ROWS), first);
    // The batch writes; one request of MIN_COMMIT_ROWS rows is in flight, the next waits for room.
    expect(committer.room('sessions').claim()).toBe(true);
    const held = committer.room('sessions');
    expect(held.claim()).toBe(false);
    const free = held.whenFree();
    expect(await settled(free)).toBe(false);
    fail(new Error('disk full'));
    await expect(free).rejects.toThrow('disk full');
    expect(() => committer.room('sessions').claim()).toThrow('disk full');
    await expect(committer.drain()).rejects.toThrow('disk full');
  });

  it('opens the database again after a commit once REOPEN_EVERY_MS has passed, and every row stays (a real DuckDB file)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'committer-reopen-'));
    const wh = await Warehouse.open(join(dir, 'w.duckdb'));
    try {
      let rows = 0;
      const committer = new Committer(wh, 'run-1', (r) => (rows += r.rowsChanged), undefined, 0);
      const day = (d: number) => ({ app_id: '*', segment_id: '*', unit: 'day', time: new Date(Date.UTC(2024, 0, d)), sessions: d });
      for (let d = 1; d <= 3; d++) {
        await committer.add({ upserts: [{ table: 'sessions', rows: [day(d)] }], replaces: [], state: [], holes: [] });
        await committer.drain();
      }
      expect(committer.reopens).toBe(3);
      expect(rows).toBe(3);
      expect(await wh.query(`SELECT sum(sessions)::INT AS s, count(*)::INT AS n FROM "sessions"`)).toEqual([{ s: 6, n: 3 }]);
      // The default waits three minutes: a test-length run never reopens.
      const lazy = new Committer(wh, 'run-2', () => undefined);
      await lazy.add({ upserts: [{ table: 'sessions', rows: [day(4)] }], replaces: [], state: [], holes: [] });
      await lazy.drain();
      expect(lazy.reopens).toBe(0);
      expect(REOPEN_EVERY_MS).toBe(180_000);
    } finally {
      await wh.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

