import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { FatalError } from '../../src/errors.js';
import { assertWritableDir } from '../../src/export/assert-writable-dir.js';
import { exportParquet } from '../../src/export/export-parquet.js';
import type { TableManifest } from '../../src/export/table-manifest.js';
import { SeriesStateStore } from '../../src/load/series-state-store.js';
import { Warehouse } from '../../src/load/warehouse.js';
import type { LoadBatch } from '../../src/load/warehouse.js';
import { TABLE_SPECS, allColumnNames, tableSpec, WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import type { TableName } from '../../src/streams/table-specs.js';
import { revenueRow, tempDir, utc } from '../load/warehouse-helpers.js';

let dir: string;
let out: string;
let cleanup: () => Promise<void>;
let wh: Warehouse;

const batch = (runId: string, upserts: LoadBatch['upserts'], replaces?: LoadBatch['replaces']): LoadBatch => ({
  runId,
  loadedAt: utc('2024-04-10T06:00:00'),
  upserts,
  state: [],
  ...(replaces ? { replaces } : {}),
});

const FIXTURE: LoadBatch['upserts'] = [
  {
    table: 'revenue',
    rows: [
      revenueRow('2024-03-30', 10.25),
      revenueRow('2024-03-31', 11),
      revenueRow('2024-04-01', 12.5),
      revenueRow('2024-04-01T05:00:00', 1.5, 'app_1', 'gems', 'hour'),
    ],
  },
  {
    table: 'sessions',
    rows: [
      { app_id: '*', segment_id: '*', unit: 'day', time: utc('2024-03-31'), sessions: 9_007_199_254_740_993n },
      { app_id: 'app_1', segment_id: 'seg', unit: 'hour', time: utc('2024-04-02T23:00:00'), sessions: 4 },
    ],
  },
  {
    table: 'custom_events',
    rows: [{ name: 'login', first_seen_at: utc('2024-03-05T10:00:00'), last_seen_at: utc('2024-04-09') }],
  },
  {
    table: 'canvas_variant_summary',
    rows: [
      {
        canvas_id: 'cv_1',
        day: utc('2023-12-31'),
        variant_id: 'a',
        name: 'A',
        entries: 5,
        conversions: 1,
        revenue: 2.5,
      },
      { canvas_id: 'cv_1', day: utc('2024-01-01'), variant_id: 'a', name: 'A', entries: 6, conversions: 2, revenue: 3 },
    ],
  },
  {
    table: 'canvases',
    rows: [
      {
        canvas_id: 'cv_1',
        name: 'Welcome',
        description: 'd',
        created_at: utc('2024-01-01T00:00:00'),
        updated_at: utc('2024-03-01T12:30:00'),
        archived: false,
        draft: true,
        schedule_type: 'action_based',
        first_entry: utc('2024-01-02'),
        last_entry: null,
        channels: ['email', 'push'],
        tags: [],
        teams: ['growth'],
      },
    ],
  },
  {
    table: 'canvas_steps',
    rows: [
      {
        canvas_id: 'cv_1',
        step_id: 's1',
        name: 'Email',
        type: 'message',
        next_step_ids: ['s2'],
        next_paths: [{ name: null, next_step_id: 's2' }],
        channels: ['email'],
        messages: { m1: { channel: 'email', subject: 'Hi' } },
      },
    ],
  },
];

beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  out = join(dir, 'out');
  wh = await Warehouse.open(join(dir, 'w.duckdb'), WAREHOUSE_TABLES);
  await wh.commit(batch('r1', FIXTURE));
});

afterEach(async () => {
  await wh.close();
  await cleanup();
});

async function readParquet(file: string): Promise<Record<string, unknown>[]> {
  return parquetReadObjects({ file: await asyncBufferFromFile(file), compressors });
}

/** The table in DuckDB as a reader of one Parquet file should see it: no _month, rows in key order, raw bigint. */
async function tableRows(table: TableName, year?: string): Promise<Record<string, unknown>[]> {
  const spec = tableSpec(table);
  const cols = [...spec.columns.map((c) => c.name), '_loaded_at', '_run_id'];
  const where = year ? `WHERE strftime("${spec.partitionSource}", '%Y') = '${year}'` : '';
  // Cast BIGINT to VARCHAR so query() cannot turn them into numbers: the comparison below is on the exact integer.
  const select = spec.columns.map((c) =>
    c.type === 'BIGINT' ? `CAST("${c.name}" AS VARCHAR) AS "${c.name}"` : `"${c.name}"`,
  );
  return wh
    .query(
      `SELECT ${[...select, '"_loaded_at"', '"_run_id"'].join(', ')} FROM "${table}" ${where} ORDER BY ${spec.key.map((k) => `"${k}"`).join(', ')}`,
    )
    .then((rows) => rows.map((row) => Object.fromEntries(cols.map((c) => [c, row[c]]))));
}

/**
 * Normalize what hyparquet returns to tableRows' shape, checking BIGINT comes back as bigint on the way, in key order:
 * a file is ordered by its object and time only (exportOrder), the rest of the key as the table had it.
 */
function normalize(table: TableName, rows: Record<string, unknown>[]): Record<string, unknown>[] {
  const spec = tableSpec(table);
  const keyText = (row: Record<string, unknown>) =>
    spec.key.map((k) => (row[k] instanceof Date ? (row[k] as Date).toISOString() : String(row[k]))).join('\u0000');
  const sorted = [...rows].sort((a, b) => (keyText(a) < keyText(b) ? -1 : keyText(a) > keyText(b) ? 1 : 0));
  return sorted.map((row) => {
    const copy: Record<string, unknown> = { ...row };
    for (const col of spec.columns) {
      const v = row[col.name];
      if (col.type === 'BIGINT' && v !== null) {
        expect(typeof v).toBe('bigint');
        copy[col.name] = String(v);
      }
      if (col.type === 'JSON' && v !== null && typeof v !== 'string') copy[col.name] = JSON.stringify(v);
    }
    return copy;
  });
}

async function snapshot(root: string): Promise<Map<string, { ino: number; mtimeMs: number }>> {
  const files = new Map<string, { ino: number; mtimeMs: number }>();
  for (const rel of (await readdir(root, { recursive: true })) as string[]) {
    if (!rel.endsWith('.parquet')) continue;
    const s = await stat(join(root, rel));
    files.set(rel, { ino: s.ino, mtimeMs: s.mtimeMs });
  }
  return files;
}

describe('exportParquet', () => {
  it('writes year partitions and single files that hyparquet reads back equal to the DuckDB tables, row for row', async () => {
    const summary = await exportParquet(wh, out, { scope: 'all' });
    // 11 rows, and the 2 versions of canvas_steps_history its steps made.
    expect(summary.rowsWritten).toBe(13);
    expect(await readdir(join(out, 'revenue'))).toEqual(['year=2024']);
    expect(existsSync(join(out, 'revenue', 'year=2024', 'data.parquet'))).toBe(true);
    expect(existsSync(join(out, 'custom_events', 'year=2024', 'data.parquet'))).toBe(true);
    expect((await readdir(join(out, 'canvas_variant_summary'))).sort()).toEqual(['year=2023', 'year=2024']);
    expect(existsSync(join(out, 'canvases', 'data.parquet'))).toBe(true);
    expect(existsSync(join(out, 'email_templates'))).toBe(false);

    for (const [table, year] of [
      ['revenue', '2024'],
      ['sessions', '2024'],
      ['canvas_variant_summary', '2023'],
      ['canvas_variant_summary', '2024'],
    ] as const) {
      const fromFile = normalize(table, await readParquet(join(out, table, `year=${year}`, 'data.parquet')));
      expect(fromFile).toEqual(await tableRows(table, year));
    }
    for (const table of ['canvases', 'canvas_steps'] as const) {
      const fromFile = normalize(table, await readParquet(join(out, table, 'data.parquet')));
      expect(fromFile).toEqual(await tableRows(table));
    }
    const [sessions] = await readParquet(join(out, 'sessions', 'year=2024', 'data.parquet'));
    expect(sessions?.sessions).toBe(9_007_199_254_740_993n);
    expect(sessions?.time).toEqual(utc('2024-03-31'));
  });

  it('reads back in DuckDB with hive_partitioning as exactly the table: same columns in order, EXCEPT empty both ways, same count', async () => {
    await exportParquet(wh, out, { scope: 'all' });
    for (const spec of TABLE_SPECS) {
      if (!existsSync(join(out, spec.name))) continue;
      const source = spec.partitionSource
        ? `(SELECT * EXCLUDE ("year"), strftime("${spec.partitionSource}", '%Y-%m') AS "_month" FROM read_parquet('${join(out, spec.name)}/**/*.parquet', hive_partitioning=true))`
        : `read_parquet('${join(out, spec.name)}/*.parquet')`;
      const described = await wh.query(`DESCRIBE SELECT * FROM ${source}`);
      expect(described.map((r) => r.column_name)).toEqual(allColumnNames(spec));
      const [diff] = await wh.query(
        `SELECT (SELECT count(*) FROM (SELECT * FROM ${source} EXCEPT ALL SELECT * FROM "${spec.name}")) AS extra,
                (SELECT count(*) FROM (SELECT * FROM "${spec.name}" EXCEPT ALL SELECT * FROM ${source})) AS missing,
                (SELECT count(*) FROM ${source}) AS exported, (SELECT count(*) FROM "${spec.name}") AS stored`,
      );
      expect(diff).toMatchObject({ extra: 0, missing: 0 });
      expect(diff?.exported).toBe(diff?.stored);
    }
  });

  it('writes manifests listing every file with its rows and bytes, and leaves no staging folder', async () => {
    await exportParquet(wh, out, { scope: 'all' });
    const manifest = JSON.parse(await readFile(join(out, 'manifests', 'revenue.json'), 'utf8')) as TableManifest;
    expect(manifest.partitionColumn).toBe('year');
    expect(manifest.files.map((f) => [f.path, f.partition, f.rows])).toEqual([['year=2024/data.parquet', '2024', 4]]);
    for (const f of manifest.files) expect(f.bytes).toBe((await stat(join(out, 'revenue', f.path))).size);
    const canvases = JSON.parse(await readFile(join(out, 'manifests', 'canvases.json'), 'utf8')) as TableManifest;
    expect(canvases.files).toEqual([
      {
        path: 'data.parquet',
        partition: null,
        rows: 1,
        bytes: (await stat(join(out, 'canvases', 'data.parquet'))).size,
      },
    ]);
    expect((await readdir(out)).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('rewrites nothing when nothing is dirty, and only the touched partition after a change', async () => {
    await exportParquet(wh, out, { scope: 'dirty' });
    expect(await wh.query(`SELECT count(*) AS n FROM "_etl_dirty_partitions"`)).toEqual([{ n: 0 }]);
    const before = await snapshot(out);
    await new Promise((ok) => setTimeout(ok, 20));

    const idle = await exportParquet(wh, out, { scope: 'dirty' });
    expect(idle).toMatchObject({ filesWritten: 0, filesRemoved: 0, tables: [] });
    expect(await snapshot(out)).toEqual(before);

    await wh.commit(batch('r2', [{ table: 'revenue', rows: [revenueRow('2024-04-01', 99)] }]));
    const touched = await exportParquet(wh, out, { scope: 'dirty' });
    expect(touched.tables).toEqual([{ table: 'revenue', filesWritten: 1, filesRemoved: 0, rowsWritten: 4 }]);
    const after = await snapshot(out);
    for (const [rel, s] of before) {
      if (rel === join('revenue', 'year=2024', 'data.parquet')) expect(after.get(rel)?.ino).not.toBe(s.ino);
      else expect(after.get(rel)).toEqual(s);
    }
    const manifest = JSON.parse(await readFile(join(out, 'manifests', 'revenue.json'), 'utf8')) as TableManifest;
    expect(manifest.files.map((f) => f.rows)).toEqual([4]);
  });

  it('removes the file and folder of a partition that became empty, and drops it from the manifest', async () => {
    await exportParquet(wh, out, { scope: 'all' });
    await wh.commit(
      batch(
        'r2',
        [],
        [{ table: 'canvas_variant_summary', columns: ['canvas_id', 'day'], values: [['cv_1', utc('2023-12-31')]] }],
      ),
    );
    const summary = await exportParquet(wh, out, { scope: 'dirty' });
    expect(summary.tables).toEqual([
      { table: 'canvas_variant_summary', filesWritten: 0, filesRemoved: 1, rowsWritten: 0 },
    ]);
    expect(existsSync(join(out, 'canvas_variant_summary', 'year=2023'))).toBe(false);
    const manifest = JSON.parse(
      await readFile(join(out, 'manifests', 'canvas_variant_summary.json'), 'utf8'),
    ) as TableManifest;
    expect(manifest.files.map((f) => f.path)).toEqual(['year=2024/data.parquet']);
  });

  it('removes the files of a full refresh on the next dirty export', async () => {
    await exportParquet(wh, out, { scope: 'all' });
    await new SeriesStateStore(wh).resetStreams(['revenue'], ['revenue']);
    await exportParquet(wh, out, { scope: 'dirty' });
    expect(await readdir(join(out, 'revenue'))).toEqual([]);
    const manifest = JSON.parse(await readFile(join(out, 'manifests', 'revenue.json'), 'utf8')) as TableManifest;
    expect(manifest.files).toEqual([]);
  });

  it('keeps the partitions dirty when an export fails midway, so the next export redoes them', async () => {
    // A folder where the file should go makes the rename over it fail, as a crash between files would leave things.
    await mkdir(join(out, 'revenue', 'year=2024', 'data.parquet'), { recursive: true });
    await expect(exportParquet(wh, out, { scope: 'dirty', tables: ['revenue'] })).rejects.toThrow();
    expect(
      (await wh.query(`SELECT "partition" FROM "_etl_dirty_partitions" WHERE "table_name" = 'revenue' ORDER BY 1`)).map(
        (r) => r.partition,
      ),
    ).toEqual(['2024-03', '2024-04']);
    expect((await readdir(out)).filter((n) => n.startsWith('.staging-'))).toEqual([]);
    expect(existsSync(join(out, 'manifests', 'revenue.json'))).toBe(false);

    await rm(join(out, 'revenue', 'year=2024', 'data.parquet'), { recursive: true });
    const retry = await exportParquet(wh, out, { scope: 'dirty', tables: ['revenue'] });
    expect(retry.tables).toEqual([{ table: 'revenue', filesWritten: 1, filesRemoved: 0, rowsWritten: 4 }]);
  });

  it('writes a large year in row groups of at most 32,768 rows sorted by object and time, under the export limits (one DuckDB thread)', async () => {
    const products = ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7'];
    const rows = products.flatMap((product) =>
      Array.from({ length: 8_760 }, (_, h) =>
        revenueRow(new Date(Date.UTC(2023, 0, 1, h)).toISOString(), h % 97, 'app_1', product, 'hour'),
      ),
    );
    // Inserted newest first, so only the export's ORDER BY puts them in order.
    await wh.commit(batch('r2', [{ table: 'revenue', rows: rows.reverse() }]));
    await wh.liftCommitLimits();
    const [setting] = await wh.query(`SELECT current_setting('threads') AS threads`);
    expect(Number(setting?.threads)).toBe(1);
    await exportParquet(wh, out, { scope: 'all' });
    const file = join(out, 'revenue', 'year=2023', 'data.parquet');
    const meta = await parquetMetadataAsync(await asyncBufferFromFile(file));
    const sizes = meta.row_groups.map((g) => Number(g.num_rows));
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(70_080);
    expect(sizes.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(32_768);
    const back = await readParquet(file);
    // In the export's order: the first key column, then the time (the products of an hour in any order).
    const keys = back.map((r) => `${r.app_id as string}|${(r.time as Date).toISOString()}`);
    expect(keys.every((k, i) => i === 0 || keys[i - 1]! <= k)).toBe(true);
    expect(new Set(back.map((r) => `${r.product as string}|${(r.time as Date).toISOString()}`)).size).toBe(70_080);
  });

  it('reads a year larger than one sort holds once, whatever its ids look like, and writes it in the order of its objects and times', async () => {
    // 336,000 rows of 9 columns: past what the export's memory limit sorts without spilling. Ids are uuids, so no
    // range of ids maps to a range of the stored table.
    const apps = Array.from({ length: 2_000 }, () => randomUUID());
    const rows = apps.flatMap((app) =>
      Array.from({ length: 168 }, (_, h) =>
        revenueRow(new Date(Date.UTC(2023, 5, 1, h)).toISOString(), (h * 7) % 97, app, 'p0', 'hour'),
      ),
    );
    await wh.commit(batch('r2', [{ table: 'revenue', rows: rows.reverse() }]));
    await wh.liftCommitLimits();
    await wh.query(`CALL enable_logging('QueryLog')`);
    await exportParquet(wh, out, { scope: 'all', tables: ['revenue'] });
    const statements = await wh.query(`SELECT message FROM duckdb_logs WHERE type = 'QueryLog'`);
    const reads = statements.map((s) => String(s.message)).filter((sql) => sql.includes('FROM "revenue"'));
    // One listing of the table's years (its time column alone), then one COPY per year, each reading its year once.
    const listing = 'SELECT DISTINCT lpad(CAST(year("time")';
    expect(reads.filter((sql) => sql.startsWith(listing))).toHaveLength(1);
    const years = reads.filter((sql) => !sql.startsWith(listing));
    expect(
      years.filter((sql) => sql.includes(`"time" >= DATE '2023-01-01' AND "time" < DATE '2024-01-01'`)),
    ).toHaveLength(1);
    expect(years).toHaveLength(2);
    for (const sql of years)
      expect(sql).toMatch(
        /^COPY \(SELECT .* FROM "revenue" WHERE "time" >= DATE '\d{4}-01-01' AND "time" < DATE '\d{4}-01-01' ORDER BY "app_id", "time"\) TO /,
      );
    const back = await readParquet(join(out, 'revenue', 'year=2023', 'data.parquet'));
    expect(back.length).toBe(336_000);
    const keys = back.map((r) => `${r.app_id as string}|${(r.time as Date).toISOString()}`);
    expect(keys).toEqual([...keys].sort());
    expect((await readdir(out, { recursive: true })).filter((f) => String(f).includes('.slice-'))).toEqual([]);
  });

  it('removes staging folders left by a killed export', async () => {
    const child = spawn(process.execPath, ['-e', '']);
    const deadPid = await new Promise<number>((ok) => child.once('exit', () => ok(child.pid!)));
    const stale = join(out, `.staging-${deadPid}-deadbeef`, 'revenue');
    await mkdir(stale, { recursive: true });
    await writeFile(join(stale, '2024-03.data.parquet.part'), 'half a file');
    await exportParquet(wh, out, { scope: 'dirty' });
    expect((await readdir(out)).filter((n) => n.startsWith('.staging-'))).toEqual([]);
  });
});

describe('assertWritableDir', () => {
  it('creates a missing output folder', async () => {
    await assertWritableDir(join(dir, 'a', 'b'));
    expect(existsSync(join(dir, 'a', 'b'))).toBe(true);
  });

  it('refuses an output path under a file, naming the path and how to fix it', async () => {
    await writeFile(join(dir, 'file'), 'x');
    const check = assertWritableDir(join(dir, 'file', 'out'));
    await expect(check).rejects.toBeInstanceOf(FatalError);
    await expect(check).rejects.toThrow(
      `cannot write Parquet output to ${join(dir, 'file', 'out')}: a file is in the way of the folder (ENOTDIR); pass a writable --out`,
    );
  });
});
