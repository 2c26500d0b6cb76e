// `node dist/bench/export-sort.js [--rows N] [--limits 96MB,192MB,400MB]`: what the export's one sorted COPY of a large
// partition costs under DuckDB memory limits. A table shaped like campaign_message_series (uuid-like ids, a message id,
// a day, 38 counts) is built once in a temp folder; then each limit is measured in a child process of its own (one
// DuckDB thread, the export's Parquet options), which reports its CPU, wall time and peak RSS. The export's limit
// (EXPORT_MEMORY_LIMIT in src/load/warehouse.ts) is chosen from these figures.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { machine, n, table } from './bench-table.js';
import { flag } from './argv-flag.js';

const run = promisify(execFile);
const COUNTS = 38;
const ROWS_PER_ID = 365;

interface SortFigures {
  limit: string;
  wallS: number;
  cpuS: number;
  peakMb: number;
  rows: number;
}

async function build(path: string, rows: number): Promise<void> {
  const db = await DuckDBInstance.create(path);
  const conn = await db.connect();
  const counts = Array.from({ length: COUNTS }, (_, i) => `CAST(hash(i, ${i}) % 100000 AS BIGINT) AS m${i}`).join(', ');
  // Rows in random order, ids as md5 text: no range of ids is a range of the stored table.
  await conn.run(`CREATE TABLE t AS SELECT md5(CAST(i // ${ROWS_PER_ID} AS VARCHAR)) AS id, 'msg_' || (i % 3) AS message,
    DATE '2025-01-01' + CAST(i % ${ROWS_PER_ID} AS INTEGER) AS day, ${counts}
    FROM (SELECT unnest(range(${rows})) AS i) ORDER BY random()`);
  conn.closeSync();
  db.closeSync();
}

/** In the child: one COPY of the whole table under `limit`, sorted as the export sorts (its object, then its day). */
async function sortOnce(path: string, limit: string, out: string): Promise<SortFigures> {
  const db = await DuckDBInstance.create(path, { memory_limit: limit, threads: '1' });
  const conn = await db.connect();
  const started = performance.now();
  const cpu = process.cpuUsage();
  const reader = await conn.runAndReadAll(
    `COPY (SELECT * FROM t ORDER BY id, day) TO '${out}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 32768)`,
  );
  const used = process.cpuUsage(cpu);
  const status = await readFile('/proc/self/status', 'utf8');
  const peakKb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  conn.closeSync();
  db.closeSync();
  return {
    limit,
    wallS: (performance.now() - started) / 1000,
    cpuS: (used.user + used.system) / 1e6,
    peakMb: peakKb / 1024,
    rows: Number(reader.getRows()[0]?.[0] ?? 0),
  };
}

async function main(): Promise<void> {
  if (process.argv.includes('--child')) {
    const figures = await sortOnce(flag('--db')!, flag('--limit')!, flag('--out')!);
    process.stdout.write(`${JSON.stringify(figures)}\n`);
    return;
  }
  const rows = Number(flag('--rows') ?? 3_000_000);
  const limits = (flag('--limits') ?? '96MB,192MB,400MB').split(',');
  const dir = await mkdtemp(join(tmpdir(), 'engage-bench-export-sort-'));
  try {
    const db = join(dir, 'sort.duckdb');
    process.stderr.write(`export-sort: building ${n(rows)} rows of ${COUNTS + 3} columns\n`);
    await build(db, rows);
    const figures: SortFigures[] = [];
    for (const limit of limits) {
      process.stderr.write(`export-sort: one sorted COPY under ${limit}\n`);
      const out = join(dir, `${limit}.parquet`);
      const { stdout } = await run(
        process.execPath,
        [import.meta.filename, '--child', '--db', db, '--limit', limit, '--out', out],
        { maxBuffer: 1 << 20 },
      );
      figures.push(JSON.parse(stdout.trim()) as SortFigures);
      await rm(out, { force: true });
    }
    process.stdout.write(
      `${machine()}\n\n${table(
        figures.map((f) => ({
          figure: `one sorted COPY of ${n(f.rows)} rows × ${COUNTS + 3} columns under ${f.limit}: wall / CPU / peak RSS`,
          value: `${n(f.wallS, 1)} s / ${n(f.cpuS, 1)} s / ${n(f.peakMb)} MB`,
          goal: '',
          ok: undefined,
        })),
      )}\n`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
