// `npm run bench`: every speed figure of the project, each measured in this one run, printed as a table with the machine
// it ran on. `--quick` shrinks the load sizes for a smoke run; `--json <file>` also writes the figures as JSON.
// `--scale`: plan and run at 2k, 5k and 20k Canvases instead (scale.ts). Not run here, for its length: `node
// dist/bench/stage-formats.js` compares the shipped CSV load package with staging a commit from NDJSON files.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { MAX_STAGED_ROWS } from '../src/pipeline/run-scheduler.js';
import { formatDuration } from '../src/pipeline/plan-estimate.js';
import type { Row } from './bench-table.js';
import { machine, n, table } from './bench-table.js';
import type { LoadChildResult } from './load-child.js';
import { measureCanvasSources } from './canvas-sources.js';
import { measureDemoStart } from './demo-start.js';
import { FIRST_NIGHT_BUDGET, FIRST_NIGHT_SIZE, FIRST_NIGHT_START, measureFirstNight } from './first-night.js';
import { measureLoad } from './load-rate.js';
import { measureNaive } from './naive-baseline.js';
import { measurePublish } from './publish-s3.js';
import { measureQueryRss } from './query-rss.js';
import { measureRequestRatios } from './request-ratio.js';
import { runScaleBench } from './scale.js';
import { LATENCIES_MS, measureWallTime } from './wall-time.js';
import type { WallTimeFigures } from './wall-time.js';

const run = promisify(execFile);
const here = import.meta.dirname;
const DEMO_PIPELINE = join(here, '../../pipelines/nightly.yaml');

async function peakRss(rows: number): Promise<LoadChildResult> {
  const { stdout } = await run(process.execPath, [join(here, 'load-child.js'), String(rows)], { maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as LoadChildResult;
}

async function main(): Promise<void> {
  if (process.argv.includes('--scale')) {
    await runScaleBench(process.argv.slice(2));
    return;
  }
  const quick = process.argv.includes('--quick');
  const jsonAt = process.argv.indexOf('--json');
  const jsonFile = jsonAt >= 0 ? process.argv[jsonAt + 1] : undefined;
  const loadRows = quick ? 200_000 : 1_000_000;
  const rssSizes = quick ? [200_000, 1_000_000] : [1_000_000, 10_000_000];
  const started = performance.now();
  const step = (what: string) =>
    process.stderr.write(`bench: ${what} (${formatDuration(performance.now() - started)} so far)\n`);

  step("the demo's first and next `npm start` (engage-etl run --emulator, child processes)");
  const demo = await measureDemoStart();
  step("the first night of a 200-Canvas workspace (init's plan)");
  const firstNight = await measureFirstNight();
  step('request ratios: 2-year backfill and nightly increment of the demo pipeline');
  const ratios = await measureRequestRatios(DEMO_PIPELINE);
  step('Canvas requests of a 2-year backfill from data_series and from data_summary');
  const canvas = await measureCanvasSources(DEMO_PIPELINE);
  const walls: WallTimeFigures[] = [];
  for (const latency of LATENCIES_MS) {
    step(`wall time of 1,584 default-pool requests at ${latency} ms latency`);
    walls.push(await measureWallTime(latency));
  }
  step(`load rates on ${n(loadRows)} rows`);
  const load = await measureLoad(loadRows);
  const rss: LoadChildResult[] = [];
  for (const size of rssSizes) {
    step(`peak RSS at ${n(size)} rows (child process)`);
    rss.push(await peakRss(size));
  }
  step(`query --format csv to stdout at ${rssSizes.map((s) => n(s)).join(' and ')} rows (child process)`);
  const queryRss = await measureQueryRss(rssSizes);
  step('naive baseline');
  const naive = await measureNaive(LATENCIES_MS[0]);
  step('publish to an object store (s3rver in process): a quarter of history, then the nightly increment');
  const publish = await measurePublish(DEMO_PIPELINE);

  const rows: Row[] = [
    ...demo.map((d) => {
      const goalMs = d.label === 'next' ? 5_000 : 60_000;
      return {
        figure: `demo's ${d.label} \`npm start\` (${n(d.requests)} requests, ${d.status}; load average ${d.loadAverage.toFixed(1)} on ${cpus().length} cores)`,
        value: formatDuration(d.wallMs),
        goal: `≤ ${formatDuration(goalMs)}`,
        ok: d.status === 'succeeded' && d.wallMs <= goalMs,
      };
    }),
    ...demo.map((d) => ({
      figure: `demo's ${d.label} \`npm start\`: peak RSS (the run's process; the emulator's is apart)`,
      value: `${n(d.peakRssMb)} MB`,
      goal: '≤ 500 MB',
      ok: d.peakRssMb <= 500,
    })),
    ...ratios.map((r) => ({
      figure: `request ratio, ${r.label}`,
      value: `${r.ratio.toFixed(2)} (${n(r.sent)} / ${n(r.minimum)})`,
      goal: '1.00',
      ok: r.sent === r.minimum,
    })),
    ...ratios.slice(0, 1).map((r) => ({
      figure: `size of the HTML report after the ${r.label}`,
      value: r.reportBytes === undefined ? 'not written' : `${n(r.reportBytes / 1024)} KB`,
      goal: '≤ 2 MB',
      ok: r.reportBytes !== undefined && r.reportBytes <= 2 * 2 ** 20,
    })),
    ...ratios.slice(1).map((r) => ({
      figure: `details and info requests, ${r.label} (unchanged workspace: list pages only)`,
      value: n(r.perIdRequests),
      goal: '0',
      ok: r.perIdRequests === 0,
    })),
    {
      figure: `Canvas requests, 2-year backfill (${canvas.canvases} Canvases × ${n(canvas.days)} days): data_series / data_summary`,
      value: `${n(canvas.dataSeries)} / ${n(canvas.dataSummary)} = 1/${(canvas.dataSummary / canvas.dataSeries).toFixed(1)}`,
      goal: '≤ 1/13',
      ok: canvas.dataSeries * 13 <= canvas.dataSummary,
    },
    ...walls.map((wall) => ({
      figure: `wall / pool rate bound (${n(wall.requests)} default-pool requests, ${wall.latencyMs} ms latency; plan said ${formatDuration(wall.estimateMs)})`,
      value: `${wall.ratio.toFixed(2)} (${formatDuration(wall.wallMs)} / ${formatDuration(wall.boundMs)})`,
      goal: '≤ 1.15',
      ok: wall.ratio <= 1.15,
    })),
    ...walls.map((wall) => ({
      figure: `peak requests in flight at ${wall.latencyMs} ms latency`,
      value: n(wall.peakInFlight),
      goal: '',
      ok: undefined,
    })),
    {
      figure: '429s from exhausted pools in those runs',
      value: String([...walls, ...ratios].reduce((s, r) => s + r.rateLimited, 0)),
      goal: '0',
      ok: walls.every((w) => w.rateLimited === 0) && ratios.every((r) => r.rateLimited === 0),
    },
    {
      figure: `ingestion rows/s: checked values + Appender (${n(load.rows)} rows)`,
      value: n(load.appenderRate),
      goal: '',
      ok: undefined,
    },
    {
      figure: 'ingestion rows/s: read_json, NDJSON file already written',
      value: n(load.readJsonRate),
      goal: '',
      ok: undefined,
    },
    {
      figure: 'ingestion rows/s: read_json incl. writing the NDJSON file',
      value: n(load.readJsonWithWriteRate),
      goal: '',
      ok: undefined,
    },
    {
      figure: 'ours / read_json (file already written)',
      value: `${(load.appenderRate / load.readJsonRate).toFixed(2)}×`,
      goal: '≥ 0.80×',
      ok: load.appenderRate / load.readJsonRate >= 0.8,
    },
    {
      figure: 'ours / read_json incl. file writing',
      value: `${(load.appenderRate / load.readJsonWithWriteRate).toFixed(2)}×`,
      goal: '≥ 0.80×',
      ok: load.appenderRate / load.readJsonWithWriteRate >= 0.8,
    },
    {
      figure: 'full commit rows/s (stage, de-duplicate, detect changes, insert)',
      value: n(load.commitRate),
      goal: '',
      ok: undefined,
    },
    {
      figure: `Parquet export rows/s (${load.parquetFiles} yearly files, zstd)`,
      value: n(load.parquetRate),
      goal: '',
      ok: undefined,
    },
    {
      figure:
        'rows the Committer holds in the heap while fetching goes on (each part is written to its load package on disk as it arrives)',
      value: `none past \`add\`; no fetch task starts while the open package on disk holds more than ${n(MAX_STAGED_ROWS)} rows`,
      goal: '',
      ok: undefined,
    },
    {
      figure: `first night of a workspace of ${n(FIRST_NIGHT_SIZE.canvases)} Canvases, ${n(FIRST_NIGHT_SIZE.products)} products (uuid ids) from ${FIRST_NIGHT_START}: requests (init's plan; ${n(firstNight.listRequests)} list requests to make it)`,
      value: n(firstNight.requests),
      goal: '',
      ok: undefined,
    },
    {
      figure: `… nights at the platform's rates under a ${FIRST_NIGHT_BUDGET.text} budget (purchases pool: ${n(firstNight.purchasesRequests)} requests at 1,000/hour)`,
      value: n(firstNight.nights),
      goal: '',
      ok: undefined,
    },
    ...rss.map((r) => ({
      figure: `peak RSS, ${n(r.rows)} rows through the Committer (${n(r.rows / (r.ms / 1000))} rows/s)`,
      value: `${n(r.peakRssMb)} MB`,
      goal: '≤ 300 MB',
      ok: r.peakRssMb <= 300 && r.tableRows === r.rows,
    })),
    ...queryRss.map((q) => ({
      figure: `peak RSS, query --format ${q.format} of ${n(q.rows)} rows to stdout (${n(q.bytes / 2 ** 20)} MB written)`,
      value: `${n(q.peakRssMb)} MB`,
      goal: '≤ 400 MB (bounded by the 256 MB DuckDB limit, not by rows)',
      ok: q.peakRssMb <= 400,
    })),
    {
      figure: `naive baseline: ${n(naive.naiveRequests)} sequential day requests + ${n(naive.naiveRows)} INSERTs`,
      value: formatDuration(naive.naiveMs),
      goal: '',
      ok: undefined,
    },
    {
      figure: `ours on the same export (${n(naive.oursRequests)} requests, ${n(naive.oursRows)} rows, Parquet included)`,
      value: formatDuration(naive.oursMs),
      goal: '',
      ok: undefined,
    },
    { figure: 'speed-up over the naive baseline', value: `${naive.speedUp.toFixed(1)}×`, goal: '', ok: undefined },
    {
      figure: `s3 publish, nightly increment: objects and bytes uploaded under --out (tree: ${n(publish.treeObjects)} objects, ${n(publish.treeBytes / 1024)} KB)`,
      value: `${n(publish.incrementObjects)} / ${n(publish.incrementBytes / 1024)} KB`,
      goal: '',
      ok: undefined,
    },
    {
      figure: 's3 publish, nightly increment: data files uploaded / data files in the tree (only changed partitions)',
      value: `${n(publish.incrementDataFiles)} / ${n(publish.treeDataFiles)}`,
      goal: '< 1',
      ok: publish.incrementDataFiles < publish.treeDataFiles,
    },
    {
      figure: 's3 publish, nightly increment: the database object uploaded',
      value: `${n(publish.databaseBytes / 1024)} KB`,
      goal: '',
      ok: undefined,
    },
    {
      figure: 's3 upload throughput of the tree: place put (4 at once) / sequential PutObject loop',
      value: `${n(publish.placeMBps, 1)} / ${n(publish.loopMBps, 1)} MB/s = ${(publish.placeMBps / publish.loopMBps).toFixed(2)}×`,
      goal: '≥ 1×',
      ok: publish.placeMBps >= publish.loopMBps,
    },
  ];

  process.stdout.write(
    `\nengage-etl benchmark — ${new Date().toISOString()}${quick ? ' (--quick)' : ''}\nmachine: ${machine()}\n\n${table(rows)}\n\nbench took ${formatDuration(performance.now() - started)}\n`,
  );
  if (jsonFile)
    await writeFile(
      jsonFile,
      `${JSON.stringify({ machine: machine(), quick, demo, firstNight, ratios, canvas, walls, load, rss, queryRss, naive, publish }, null, 2)}\n`,
    );
}

await main();
