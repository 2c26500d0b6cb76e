// The committer's packages and back-pressure: each part's rows go to the open package on disk as the part arrives;
// packages commit once MIN_COMMIT_ROWS rows or MAX_COMMIT_DELAY_MS gathered, the next one fills while one commits, and the
// run's scheduler, told what is staged and taken, gives the fetch no room while the open package holds more than
// MAX_STAGED_ROWS.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Warehouse, type CommitResult, type PackageCommit, type PreparedCommit } from '../../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import { Committer, MAX_COMMIT_DELAY_MS, MIN_COMMIT_ROWS, type CommitPart } from '../../src/pipeline/committer.js';
import { MAX_STAGED_ROWS, RunScheduler } from '../../src/pipeline/run-scheduler.js';

let dir: string;
let real: Warehouse;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'committer-'));
  real = await Warehouse.open(join(dir, 'w.duckdb'), WAREHOUSE_TABLES);
});

afterEach(async () => {
  vi.useRealTimers();
  await real.close();
  await rm(dir, { recursive: true, force: true });
});

/**
 * The real warehouse's packages, with commits that end only when the test says so; it records the rows of each package
 * committed, in order, and what its files held on disk when its commit began.
 */
function slowWarehouse(): { wh: Warehouse; batches: number[]; lines: number[]; finishOne: () => void } {
  const batches: number[] = [];
  const lines: number[] = [];
  const finishers: (() => void)[] = [];
  const wh = {
    newPackage: () => real.newPackage(),
    prepareCommit: (commit: PackageCommit) => commit as unknown as PreparedCommit,
    commitPrepared: (prepared: PreparedCommit): Promise<CommitResult> => {
      const commit = prepared as unknown as PackageCommit;
      batches.push(commit.staged.tables.reduce((n, t) => n + t.rows, 0));
      lines.push(commit.staged.tables.reduce((n, t) => n + readFileSync(t.file, 'utf8').split('\n').length - 1, 0));
      return new Promise((resolve) =>
        finishers.push(() => resolve({ tables: {}, rowsChanged: 0, rowsCompared: 0, scopesSearched: 0, appended: [] })),
      );
    },
  } as unknown as Warehouse;
  return { wh, batches, lines, finishOne: () => finishers.shift()?.() };
}

let hour = 0;
function part(rows: number): CommitPart {
  const row = () => ({
    app_id: '*',
    segment_id: '*',
    unit: 'hour',
    time: new Date(Date.UTC(2020, 0, 1) + hour++ * 3_600_000),
    sessions: 1,
  });
  return {
    upserts: [{ table: 'sessions', rows: Array.from({ length: rows }, row) }],
    replaces: [],
    state: [],
    holes: [],
  };
}

/** Whether a promise has settled after the pending callbacks ran. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
  return done;
}

describe('Committer', () => {
  it('gathers MIN_COMMIT_ROWS before a commit, fills the next package while one commits, and gives the fetch no room past MAX_STAGED_ROWS', async () => {
    // Time stands still, so that MAX_COMMIT_DELAY_MS never passes while a loaded machine writes the rows.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { wh, batches, lines, finishOne } = slowWarehouse();
    const scheduler = RunScheduler.create();
    const committer = new Committer(wh, 'run-1', () => undefined, { room: scheduler });
    // One window at a time is no commit: it waits for company.
    expect(await settled(committer.add(part(MIN_COMMIT_ROWS - 1_000)))).toBe(true);
    expect(batches).toEqual([]);
    expect(await settled(committer.add(part(1_000)))).toBe(true);
    expect(batches).toEqual([MIN_COMMIT_ROWS]);
    // Every row of a committed package is in its files, one line each.
    expect(lines).toEqual([MIN_COMMIT_ROWS]);
    // While it commits, up to MAX_STAGED_ROWS rows go to the next package, and the next fetch task still has room.
    for (let i = 0; i < MAX_STAGED_ROWS / 10_000; i++) expect(await settled(committer.add(part(10_000)))).toBe(true);
    expect(await settled(scheduler.rowRoom())).toBe(true);
    // One more row than the bound: its producer goes on (the rows are on disk), and no next task has room until the
    // commit takes the open package.
    expect(await settled(committer.add(part(1)))).toBe(true);
    const room = scheduler.rowRoom();
    expect(await settled(room)).toBe(false);
    finishOne();
    expect(await settled(room)).toBe(true);
    expect(batches).toEqual([MIN_COMMIT_ROWS, MAX_STAGED_ROWS + 1]);
    finishOne();
    expect(await settled(committer.add(part(10)))).toBe(true);
    const drained = committer.drain();
    await settled(drained);
    finishOne();
    await drained;
    expect(batches).toEqual([MIN_COMMIT_ROWS, MAX_STAGED_ROWS + 1, 10]);
  });

  it("keeps no rows of a part in the heap: a part's lines are in the package's files once `add` returns", async () => {
    const committer = new Committer(real, 'run-1', () => undefined);
    // More than a file's held lines (64 K characters): what `add` wrote is the whole part.
    await committer.add(part(12_345));
    const stage = (await readdir(tmpdir())).filter((name) => name.startsWith(`engage-etl-stage-${process.pid}-`));
    const files = (await Promise.all(stage.map((s) => readdir(join(tmpdir(), s), { recursive: true }))))
      .flat()
      .filter((f) => String(f).endsWith('.csv'));
    expect(files).toEqual([join('package-1', 'sessions.csv')]);
    const text = await readFile(join(tmpdir(), stage[0]!, files[0]!), 'utf8');
    expect(text.split('\n').length - 1).toBe(12_345);
    await committer.drain();
    expect(await real.query(`SELECT count(*)::INT AS n FROM "sessions"`)).toEqual([{ n: 12_345 }]);
    // A committed package's files are gone.
    expect(await readdir(join(tmpdir(), stage[0]!))).toEqual([]);
  });

  it("removes the stage folders a killed run left, and no live process's", async () => {
    const child = spawn(process.execPath, ['-e', '']);
    const deadPid = await new Promise<number>((ok) => child.once('exit', () => ok(child.pid!)));
    const dead = join(tmpdir(), `engage-etl-stage-${deadPid}-left`);
    const alive = join(tmpdir(), `engage-etl-stage-${process.ppid}-kept`);
    await mkdir(join(dead, 'package-1'), { recursive: true });
    await writeFile(join(dead, 'package-1', 'sessions.csv'), '0,"*"\n');
    await mkdir(alive, { recursive: true });
    try {
      real.newPackage();
      expect(existsSync(dead)).toBe(false);
      expect(existsSync(alive)).toBe(true);
    } finally {
      await rm(alive, { recursive: true, force: true });
    }
  });

  it('fails the run with a part whose rows cannot be staged, writes nothing after it, and refuses the fetch room', async () => {
    const { wh, batches, finishOne } = slowWarehouse();
    const scheduler = RunScheduler.create();
    const committer = new Committer(wh, 'run-1', () => undefined, { room: scheduler });
    await committer.add(part(MIN_COMMIT_ROWS));
    expect(batches).toEqual([MIN_COMMIT_ROWS]);
    const bad = part(3);
    bad.upserts[0]!.rows[2]!['sessions'] = 1.5;
    await expect(committer.add(bad)).rejects.toThrow(/sessions row 2 column "sessions": expected an integer/);
    await expect(committer.add(part(1))).rejects.toThrow(/sessions row 2 column "sessions"/);
    // No request is sent for rows that cannot be committed.
    await expect(scheduler.rowRoom()).rejects.toThrow(/sessions row 2 column "sessions"/);
    finishOne();
    await expect(committer.drain()).rejects.toThrow(/sessions row 2 column "sessions"/);
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
    await settled(Promise.resolve());
    expect(batches).toEqual([MIN_COMMIT_ROWS + 10]);
    finishOne();
    await new Promise((r) => setTimeout(r, MAX_COMMIT_DELAY_MS + 50));
    await committer.add(part(MIN_COMMIT_ROWS));
    await settled(Promise.resolve());
    expect(batches).toEqual([MIN_COMMIT_ROWS + 10, MIN_COMMIT_ROWS]);
    finishOne();
    await committer.drain();
  });

  it('commits rows with the watermarks they allow, in the order the parts came (a real DuckDB file)', async () => {
    const committed: CommitResult[] = [];
    const committer = new Committer(real, 'run-1', (r) => committed.push(r));
    const day = (d: number, sessions: number) => ({
      app_id: '*',
      segment_id: '*',
      unit: 'day',
      time: new Date(Date.UTC(2024, 0, d)),
      sessions,
    });
    const state = (d: number) => [
      {
        stream: 'sessions',
        seriesKey: 'app=*',
        unit: 'day',
        watermark: new Date(Date.UTC(2024, 0, d + 1)),
        rowsLoaded: 1,
      },
    ];
    for (let d = 1; d <= 3; d++)
      await committer.add({
        upserts: [{ table: 'sessions', rows: [day(d, d)] }],
        replaces: [],
        state: state(d),
        holes: [],
      });
    // The same key again, later: the last part wins.
    await committer.add({ upserts: [{ table: 'sessions', rows: [day(2, 20)] }], replaces: [], state: [], holes: [] });
    await committer.drain();
    expect(await real.query(`SELECT day(time)::INT AS d, sessions::INT AS s FROM "sessions" ORDER BY 1`)).toEqual([
      { d: 1, s: 1 },
      { d: 2, s: 20 },
      { d: 3, s: 3 },
    ]);
    const [watermark] = await real.query(`SELECT watermark FROM "_etl_series_state" WHERE stream = 'sessions'`);
    expect(watermark?.watermark).toEqual(new Date(Date.UTC(2024, 0, 4)));
    expect(committed.reduce((n, r) => n + r.rowsChanged, 0)).toBe(3);
  });
});
