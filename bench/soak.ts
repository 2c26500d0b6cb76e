// `npm run soak` (not part of npm test): 30 consecutive nightly runs in one process, --until moving a day each night,
// 30 % injected faults, into one DuckDB file. Prints RSS and database size per night and fails (exit 1) if RSS or heap grows
// run over run or the file grows faster than its data. Flags: --nights N (default 30), --json <file>.
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import { resolveRunOptions } from '../src/config/run-options.js';
import { createEmulator } from '../src/emulator/server.js';
import { runPipeline } from '../src/pipeline/run-pipeline.js';
import { flag as arg } from './argv-flag.js';

const PIPELINE = `name: soak
start_date: 2025-01-01
lookback_days: 3
streams:
  purchase_quantity: { unit: day, apps: ["*", app_1], products: ["*", gems_small] }
  revenue:           { unit: day, apps: ["*", app_1], products: ["*"] }
  sessions:          { unit: hour, apps: ["*"], segments: ["*", seg_1] }
  segment_size:      { segments: [seg_1, seg_2] }
  custom_events:     {}
  canvas_summary:    { canvases: [cv_1, cv_2], variant_breakdown: true, step_breakdown: true }
  canvas_details:    { canvases: [cv_1, cv_2] }
  email_templates:   { ids: [tpl_1, tpl_2] }
  content_blocks:    { ids: [cb_1], inclusion_data: true }
  data_integrations: {}
`;
const FIRST_UNTIL = DateTime.fromISO('2025-06-01T00:00:00Z', { zone: 'utc' });
const FAULT_RATE = 0.3;
/** At 30 % faults the default 6 attempts all fail for one request in 1,400: raised so a night fails only by real error. */
const MAX_ATTEMPTS = 12;
/** Nights left out of the RSS trend: the first ones load the backfill and warm caches up. */
const WARM_UP = 5;
/**
 * RSS (and V8 heap) may end at most this much above the nights before: the median of the last third of the nights is
 * compared with the median of the middle third. Medians, not a slope, because RSS moves in steps (allocator arenas,
 * DuckDB's buffer pool) and a single step would read as a trend.
 */
const MAX_MEMORY_GROWTH = 0.05;
/** The file may grow per night by at most this many times the bytes the night's new rows take at night 1's density. */
const MAX_FILE_GROWTH_FACTOR = 3;

interface Night {
  night: number;
  until: string;
  seconds: number;
  requests: number;
  retries: number;
  faults: number;
  rows: number;
  rssMb: number;
  heapMb: number;
  dbBytes: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Least-squares slope of y over x. */
function slope(points: [number, number][]): number {
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const num = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const den = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

async function fileBytes(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

async function main(): Promise<void> {
  const nights = Number(arg('--nights') ?? 30);
  if (!Number.isInteger(nights) || nights < WARM_UP + 6)
    throw new Error(`--nights must be an integer ≥ ${WARM_UP + 6}, got ${arg('--nights')}`);
  const gc = (globalThis as { gc?: () => void }).gc;
  const dir = await mkdtemp(join(tmpdir(), 'engage-etl-soak-'));
  const pipeline = join(dir, 'soak.yaml');
  await writeFile(pipeline, PIPELINE);
  const db = join(dir, 'soak.duckdb');
  const out = join(dir, 'parquet');
  const results: Night[] = [];
  console.log(
    `soak: ${nights} nights, fault rate ${FAULT_RATE}, gc ${gc ? 'forced before each reading' : 'not exposed (run node --expose-gc)'}; files in ${dir}`,
  );
  console.log('night  until       s     requests retries faults  rows      RSS MB  heap MB  DuckDB bytes');
  // One service for all nights, as in production (a new server per night would also grow the HTTP client's per-origin
  // connection pools, a leak of the soak, not of engage-etl). Its clock is moved to each night.
  const emulator = await createEmulator({ seed: 1, now: FIRST_UNTIL.toISO()!, faultRate: FAULT_RATE });
  try {
    for (let night = 1; night <= nights; night += 1) {
      const until = FIRST_UNTIL.plus({ days: night - 1 });
      // The service's clock a few hours past midnight, when a nightly job runs.
      const now = until.plus({ hours: 3 });
      emulator.clock.set(now.toJSDate());
      const faultsBefore = Object.values(emulator.stats.faults).reduce((a, b) => a + b, 0);
      const started = Date.now();
      const opts = resolveRunOptions(
        { pipeline, baseUrl: emulator.url, apiKey: emulator.demoApiKey, db, out, until: until.toISO()! },
        {},
        now,
      );
      const summary = await runPipeline(opts, {
        client: { backoffBaseMs: 50, backoffMaxMs: 1000, maxAttempts: MAX_ATTEMPTS },
      });
      gc?.();
      const memory = process.memoryUsage();
      const row: Night = {
        night,
        until: until.toISODate()!,
        seconds: (Date.now() - started) / 1000,
        requests: summary.requests.sent,
        retries: summary.requests.retries,
        faults: Object.values(emulator.stats.faults).reduce((a, b) => a + b, 0) - faultsBefore,
        rows: summary.tables.reduce((n, t) => n + t.rows, 0),
        rssMb: memory.rss / 2 ** 20,
        heapMb: memory.heapUsed / 2 ** 20,
        dbBytes: (await fileBytes(db)) + (await fileBytes(`${db}.wal`)),
      };
      results.push(row);
      console.log(
        `${String(night).padStart(5)}  ${row.until}  ${row.seconds.toFixed(1).padStart(5)}  ${String(row.requests).padStart(7)}  ${String(row.retries).padStart(6)}  ` +
          `${String(row.faults).padStart(6)}  ${String(row.rows).padStart(7)}  ${row.rssMb.toFixed(1).padStart(7)}  ${row.heapMb.toFixed(1).padStart(7)}  ${String(row.dbBytes).padStart(12)}`,
      );
    }
  } finally {
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }

  const steady = results.slice(WARM_UP);
  const third = Math.floor(steady.length / 3);
  const middle = steady.slice(third, 2 * third);
  const lastThird = steady.slice(-third);
  const growth = (pick: (r: Night) => number) => median(lastThird.map(pick)) / median(middle.map(pick)) - 1;
  const rssGrowth = growth((r) => r.rssMb);
  const heapGrowth = growth((r) => r.heapMb);
  const rssSlope = slope(steady.map((r) => [r.night, r.rssMb]));
  const first = results[0]!;
  const last = results.at(-1)!;
  const bytesPerRow = first.dbBytes / first.rows;
  const fileSlope = slope(steady.map((r) => [r.night, r.dbBytes]));
  const rowsSlope = slope(steady.map((r) => [r.night, r.rows]));
  const allowedFileSlope = MAX_FILE_GROWTH_FACTOR * bytesPerRow * rowsSlope;
  const rssOk = rssGrowth <= MAX_MEMORY_GROWTH && heapGrowth <= MAX_MEMORY_GROWTH;
  const sizeOk = fileSlope <= allowedFileSlope;
  const totals = {
    requests: results.reduce((s, r) => s + r.requests, 0),
    retries: results.reduce((s, r) => s + r.retries, 0),
    faults: results.reduce((s, r) => s + r.faults, 0),
  };
  console.log('');
  console.log(
    `runs: ${results.length} succeeded; ${totals.requests} requests, ${totals.faults} faults injected, ${totals.retries} retries`,
  );
  const pct = (x: number) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)} %`;
  console.log(
    `RSS after warm-up (nights ${WARM_UP + 1}–${nights}): ${Math.min(...steady.map((r) => r.rssMb)).toFixed(1)}–${Math.max(...steady.map((r) => r.rssMb)).toFixed(1)} MB; ` +
      `median of the last ${third} nights vs the ${third} before: RSS ${pct(rssGrowth)}, heap ${pct(heapGrowth)} (limit ${pct(MAX_MEMORY_GROWTH)}); slope ${rssSlope.toFixed(2)} MB/night — ${rssOk ? 'flat' : 'GROWING'}`,
  );
  console.log(
    `DuckDB file: ${first.dbBytes} → ${last.dbBytes} bytes for ${first.rows} → ${last.rows} rows; after warm-up ${fileSlope.toFixed(0)} bytes/night for ${rowsSlope.toFixed(0)} rows/night ` +
      `(limit ${allowedFileSlope.toFixed(0)} = ${MAX_FILE_GROWTH_FACTOR} × ${bytesPerRow.toFixed(0)} bytes/row) — ${sizeOk ? 'grows only with data' : 'GROWS FASTER THAN DATA'}`,
  );
  const json = arg('--json');
  if (json)
    await writeFile(
      json,
      `${JSON.stringify({ nights: results, rssGrowth, heapGrowth, rssSlope, fileSlope, rowsSlope, bytesPerRow, rssOk, sizeOk, totals }, null, 2)}\n`,
    );
  if (!rssOk || !sizeOk) process.exitCode = 1;
}

await main();
