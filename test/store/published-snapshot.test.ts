// The published snapshot and the working copy on real DuckDB files: publish replaces --db whole while a reader holds the
// old file, a fresh database and an older installation both start right, and the files other programs leave are handled.
import { existsSync } from 'node:fs';
import { readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import {
  openPublished,
  openWorkingCopy,
  prepareWorkingCopy,
  publishSnapshot,
  snapshotFiles,
} from '../../src/store/published-snapshot.js';
import { RunLog } from '../../src/load/run-log.js';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import { tempDirPerTest } from '../load/warehouse-helpers.js';

const t = tempDirPerTest();

/** Rows of `_etl_runs` as a raw DuckDB reader of `path` sees them. */
async function runIds(path: string): Promise<string[]> {
  const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  try {
    return (await conn.runAndReadAll(`SELECT "run_id" FROM "_etl_runs" ORDER BY 1`))
      .getRowObjectsJson()
      .map((r) => String(r['run_id']));
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

async function logRun(wh: Warehouse, runId: string): Promise<void> {
  await new RunLog(wh).begin({
    runId,
    pipeline: 'p',
    startedAt: new Date('2025-01-01T00:00:00Z'),
    until: new Date('2025-01-01T00:00:00Z'),
  });
}

describe('published snapshot', () => {
  it('names the working copy and the stamp beside --db, hidden', () => {
    expect(snapshotFiles('/data/engage.duckdb')).toEqual({
      published: '/data/engage.duckdb',
      working: '/data/.engage.duckdb.work',
      stamp: '/data/.engage.duckdb.published',
      lastRun: '/data/.engage.duckdb.last-run.json',
    });
  });

  it('publishes the working copy over --db: a reader holding the old file keeps it whole, a reader opening afterwards sees the new state', async () => {
    const db = join(t.dir, 'engage.duckdb');
    const first = await openWorkingCopy(db);
    expect(first.notes).toEqual([]);
    await logRun(first.warehouse, 'r1');
    await publishSnapshot(first.warehouse, db);
    const oldReader = await DuckDBInstance.create(db, { access_mode: 'READ_ONLY' });
    const oldConn = await oldReader.connect();
    try {
      await logRun(first.warehouse, 'r2');
      // Before publishing, the published file is the previous state, whatever the working copy holds.
      expect(await runIds(db)).toEqual(['r1']);
      await publishSnapshot(first.warehouse, db);
      expect(
        (await oldConn.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM "_etl_runs"`)).getRowObjectsJson(),
      ).toEqual([{ n: 1 }]);
    } finally {
      oldConn.closeSync();
      oldReader.closeSync();
      await first.warehouse.close();
    }
    expect(await runIds(db)).toEqual(['r1', 'r2']);
    expect((await readdir(t.dir)).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it('adopts an existing database (no working copy yet) by copying it, leaving the published file to its readers', async () => {
    const db = join(t.dir, 'engage.duckdb');
    const old = await Warehouse.open(db, WAREHOUSE_TABLES);
    await logRun(old, 'before-upgrade');
    await old.close();
    const inode = (await stat(db)).ino;
    const { warehouse, notes } = await openWorkingCopy(db);
    try {
      expect(notes.map((n) => n.code)).toEqual(['snapshot_adopted']);
      expect((await warehouse.query(`SELECT "run_id" FROM "_etl_runs"`)).map((r) => r['run_id'])).toEqual([
        'before-upgrade',
      ]);
      expect((await stat(db)).ino).toBe(inode);
    } finally {
      await warehouse.close();
    }
  });

  it('keeps a published file another program changed during the run as <db>.replaced-<time>', async () => {
    const db = join(t.dir, 'engage.duckdb');
    const { warehouse } = await openWorkingCopy(db);
    try {
      await publishSnapshot(warehouse, db);
      const other = await DuckDBInstance.create(db);
      const conn = await other.connect();
      await conn.run(`CREATE TABLE mine AS SELECT 42 AS answer`);
      conn.closeSync();
      other.closeSync();
      const { notes } = await publishSnapshot(warehouse, db);
      expect(notes.map((n) => n.code)).toEqual(['snapshot_replaced']);
      const aside = (await readdir(t.dir)).find((f) => f.startsWith('engage.duckdb.replaced-'));
      expect(aside).toBeDefined();
      const kept = await DuckDBInstance.create(join(t.dir, aside!), { access_mode: 'READ_ONLY' });
      const keptConn = await kept.connect();
      expect((await keptConn.runAndReadAll('SELECT answer FROM mine')).getRows()).toEqual([[42]]);
      keptConn.closeSync();
      kept.closeSync();
    } finally {
      await warehouse.close();
    }
  });

  it('refuses to adopt a published file with an unfinished write-ahead log, saying what to do', async () => {
    const db = join(t.dir, 'engage.duckdb');
    const old = await Warehouse.open(db, WAREHOUSE_TABLES);
    await old.close();
    await writeFile(`${db}.wal`, 'x');
    await expect(prepareWorkingCopy(db)).rejects.toThrow(
      /has an unfinished write-ahead log .*close that program .* and run again/,
    );
  });

  it('removes the copy a killed writer left half-made, and only when its process is gone', async () => {
    const db = join(t.dir, 'engage.duckdb');
    const dead = join(t.dir, '.engage.duckdb.999999999-0a1b2c3d.part');
    const alive = join(t.dir, `.engage.duckdb.${process.ppid}-0a1b2c3d.part`);
    await writeFile(dead, 'half');
    await writeFile(alive, 'in use');
    await prepareWorkingCopy(db);
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(alive)).toBe(true);
  });

  it('tells a reader that the first run has not published yet', async () => {
    const db = join(t.dir, 'engage.duckdb');
    const { warehouse } = await openWorkingCopy(db);
    try {
      await expect(openPublished(db)).rejects.toThrow(
        /no published database at .*engage\.duckdb yet: the first run has not finished/,
      );
    } finally {
      await warehouse.close();
    }
  });
});
