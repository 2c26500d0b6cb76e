// `npm run bench -- --scale`: plan and run of the scale pipeline at 2k, 5k and 20k Canvases (and as many
// campaigns), each command in a child process against an emulator in another, beside a yardstick measured in the same
// bench run, so figures compare across machines. Flags: --quick (2k over 3 months), --sizes 2k,5k (presets),
// --months N (history, default 17), --plan-only (plan alone), --time-budget D (run cut after D, as `run` does it; no
// increment then), --json <file>: the last two for a size too large for the time at hand; --no-rate-limits (the
// emulator never answers 429: the run is bound by its own CPU, not by the documented hourly limits); --keep (each size's
// folder is kept and named, to measure `report` or `export` on its database afterwards).
import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { createS3Client, s3Settings } from '../src/store/s3-client.js';
import { SIZE_PRESETS } from '../src/emulator/analytics/workspace-size.js';
import { formatDuration } from '../src/pipeline/plan-estimate.js';
import { startS3TestServer } from '../test/helpers/s3-test-server.js';
import type { Row } from './bench-table.js';
import { machine, n, table } from './bench-table.js';
import type { Yardstick } from './scale-figures.js';
import {
  scaledCost,
  scaleSpan,
  uploadShare,
  yardstickPerMillionRows,
  yardstickPerThousandRequests,
  yardstickSeconds,
} from './scale-figures.js';
import type { ScaleFigures } from './scale-run.js';
import { measureScaleSize } from './scale-run.js';
import { measureYardstick } from './yardstick.js';
import { flag } from './argv-flag.js';

/** The goals at scale, on 2 cores with no `--max-old-space-size`. */
const PLAN_GOAL_MB = 300;
const RUN_GOAL_MB = 500;
/**
 * "`status` and `report` stay fast (seconds)" read as at most this many CPU seconds each: CPU, because a shared machine
 * stretches their wall time by its load (both are printed).
 */
const QUERY_GOAL_CPU_S = 10;
/** The history the scale bench asks by default: 17 months. */
const FULL_MONTHS = 17;

const mb = (x: number) => `${n(x)} MB`;
const s = (ms: number) => formatDuration(ms);
const times = (x: number | undefined) => (x === undefined ? '–' : `${x < 1 ? x.toPrecision(2) : x.toFixed(1)}×`);

function sizeRows(f: ScaleFigures, y: Yardstick): Row[] {
  const label = `${f.size} (${n(f.canvases)} Canvases, ${n(f.campaigns)} campaigns, ${f.span.months} month${f.span.months === 1 ? '' : 's'} from ${f.span.start})`;
  const plan = scaledCost({ cpuSeconds: f.plan.cpuSeconds, wallMs: f.plan.wallMs, requests: f.plan.requests }, y);
  const rows: Row[] = [
    {
      figure: `${label}: plan --discover peak RSS (${n(f.plan.requests)} requests planned, ${n(f.plan.listRequests)} list pages read; exit ${String(f.plan.exitCode)})`,
      value: mb(f.plan.peakRssMb),
      goal: `≤ ${PLAN_GOAL_MB} MB`,
      ok: f.plan.exitCode === 0 && f.plan.peakRssMb <= PLAN_GOAL_MB,
    },
    {
      figure: `${f.size}: plan wall / CPU; CPU per 1,000 planned requests (× yardstick)`,
      value: `${s(f.plan.wallMs)} / ${n(f.plan.cpuSeconds, 1)} s; ${n(plan.cpuPerThousandRequests, 3)} s (${times(plan.requestRatio)})`,
      goal: '',
      ok: undefined,
    },
  ];
  if (f.run) {
    const run = scaledCost(
      { cpuSeconds: f.run.cpuSeconds, wallMs: f.run.wallMs, requests: f.run.sent, rows: f.run.rows },
      y,
    );
    rows.push(
      {
        figure: `${f.size}: run peak RSS (${f.run.status}, exit ${String(f.run.exitCode)}${f.run.complete ? '' : '; cut by --time-budget'})`,
        value: mb(f.run.peakRssMb),
        goal: `≤ ${RUN_GOAL_MB} MB`,
        ok: f.run.status === 'succeeded' && f.run.peakRssMb <= RUN_GOAL_MB,
      },
      {
        figure: `${f.size}: run wall (× yardstick for as many requests) / CPU`,
        value: `${s(f.run.wallMs)} (${times(run.wallRatio)}) / ${n(f.run.cpuSeconds, 1)} s`,
        goal: '',
        ok: undefined,
      },
      {
        figure: `${f.size}: run CPU per 1,000 requests (× yardstick)`,
        value: `${n(run.cpuPerThousandRequests, 3)} s (${times(run.requestRatio)})`,
        goal: '',
        ok: undefined,
      },
      {
        figure: `${f.size}: run CPU per million rows (${n(f.run.rows)} rows in ${f.run.tables} tables) (× yardstick)`,
        value: `${n(run.cpuPerMillionRows ?? 0, 1)} s (${times(run.rowRatio)})`,
        goal: '',
        ok: undefined,
      },
      f.run.complete
        ? {
            figure: `${f.size}: request ratio (sent / minimum; ${n(f.run.retries)} retries and ${n(f.run.followUps)} follow-ups among those sent)`,
            value: `${(f.run.sent / Math.max(1, f.run.minimum)).toFixed(2)} (${n(f.run.sent)} / ${n(f.run.minimum)})`,
            goal: '1.00',
            ok: f.run.sent === f.run.minimum,
          }
        : {
            figure: `${f.size}: requests sent before the time budget / planned (no ratio: the run was cut)`,
            value: `${n(f.run.sent)} / ${n(f.plan.requests)}`,
            goal: '',
            ok: undefined,
          },
      { figure: `${f.size}: DuckDB file`, value: mb((f.dbBytes ?? 0) / 2 ** 20), goal: '', ok: undefined },
    );
  }
  if (f.status) {
    rows.push({
      figure: `${f.size}: status --json CPU (wall; peak RSS ${mb(f.status.peakRssMb)}, exit ${String(f.status.exitCode)})`,
      value: `${n(f.status.cpuSeconds, 1)} s (${s(f.status.wallMs)})`,
      goal: `≤ ${QUERY_GOAL_CPU_S} s CPU`,
      ok: f.status.exitCode === 0 && f.status.cpuSeconds <= QUERY_GOAL_CPU_S,
    });
  }
  if (f.report) {
    rows.push({
      figure: `${f.size}: report CPU (wall; peak RSS ${mb(f.report.peakRssMb)}, ${n(f.report.bytes / 1024)} KB written, exit ${String(f.report.exitCode)})`,
      value: `${n(f.report.cpuSeconds, 1)} s (${s(f.report.wallMs)})`,
      goal: `≤ ${QUERY_GOAL_CPU_S} s CPU`,
      ok: f.report.exitCode === 0 && f.report.cpuSeconds <= QUERY_GOAL_CPU_S,
    });
  }
  if (f.increment) {
    const share = uploadShare(f.increment.databaseBytes, f.increment.parquetBytes);
    rows.push(
      {
        figure: `${f.size}: nightly increment with --db s3:// (${n(f.increment.sent)} requests, ${s(f.increment.wallMs)}, peak RSS ${mb(f.increment.peakRssMb)}, ${f.increment.status}): uploaded database / changed Parquet (${n(f.increment.parquetFiles)} files)`,
        value: `${mb(f.increment.databaseBytes / 2 ** 20)} / ${n(f.increment.parquetBytes / 1024)} KB`,
        goal: '',
        ok: undefined,
      },
      {
        figure: `${f.size}: the database's share of the increment's upload`,
        value: `${n(100 * share.databaseShare, 1)} %`,
        goal: '',
        ok: undefined,
      },
    );
  }
  return rows;
}

/** Peak RSS growth per 1,000 Canvases between the smallest and the largest size measured (a flat line is the goal). */
function growthRows(all: ScaleFigures[]): Row[] {
  if (all.length < 2) return [];
  const [a, b] = [all[0]!, all.at(-1)!];
  const per = (x: number, y: number) => `${n(((y - x) / (b.canvases - a.canvases)) * 1000, 1)} MB`;
  const rows: Row[] = [
    {
      figure: `plan peak RSS growth per 1,000 Canvases, ${a.size} → ${b.size}`,
      value: per(a.plan.peakRssMb, b.plan.peakRssMb),
      goal: '',
      ok: undefined,
    },
  ];
  if (a.run && b.run)
    rows.push({
      figure: `run peak RSS growth per 1,000 Canvases, ${a.size} → ${b.size}`,
      value: per(a.run.peakRssMb, b.run.peakRssMb),
      goal: '',
      ok: undefined,
    });
  return rows;
}

export async function runScaleBench(argv: readonly string[]): Promise<void> {
  const quick = argv.includes('--quick');
  const planOnly = argv.includes('--plan-only');
  const keep = argv.includes('--keep');
  const sizes = (flag('--sizes', argv) ?? (quick ? '2k' : '2k,5k,20k')).split(',').map((x) => x.trim());
  for (const size of sizes) {
    if (!SIZE_PRESETS[size] || size === 'demo')
      throw new Error(
        `--sizes: "${size}" is not a size preset; use some of ${Object.keys(SIZE_PRESETS)
          .filter((k) => k !== 'demo')
          .join(', ')}`,
      );
  }
  const span = scaleSpan(Number(flag('--months', argv) ?? (quick ? 3 : FULL_MONTHS)));
  const jsonFile = flag('--json', argv);
  const timeBudget = flag('--time-budget', argv);
  const rateLimits = !argv.includes('--no-rate-limits');
  const started = performance.now();
  const step = (what: string) =>
    process.stderr.write(
      `bench --scale: ${what} (${formatDuration(performance.now() - started)} so far, load average ${loadavg()[0]!.toFixed(1)})\n`,
    );

  // The yardstick's sample is the same work whatever the flags: a 40-Canvas sample over 17 months.
  step(
    'yardstick: the scale pipeline over a 40-Canvas sample, 17 months, then JSON.parse and read_json of what it received',
  );
  const yardstick = await measureYardstick(scaleSpan(FULL_MONTHS));
  const store = await startS3TestServer();
  // The SDK reads credentials from the environment, in this process (the seeding upload) as in the increment's child.
  const saved = { ...process.env };
  Object.assign(process.env, store.env);
  const s3 = createS3Client(s3Settings(store.env));
  const results: ScaleFigures[] = [];
  try {
    for (const size of sizes) {
      const preset = SIZE_PRESETS[size]!;
      results.push(
        await measureScaleSize({
          size,
          canvases: preset.canvases ?? 0,
          campaigns: preset.campaigns ?? 0,
          span,
          planOnly,
          keep,
          timeBudget,
          rateLimits,
          store,
          s3,
          step,
        }),
      );
    }
  } finally {
    s3.destroy();
    await store.close();
    for (const k of Object.keys(store.env)) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  }

  const rows: Row[] = [
    {
      figure: `yardstick: JSON.parse of ${n(yardstick.requests)} responses (${n(yardstick.responseBytes / 2 ** 20, 1)} MB) + read_json of their ${n(yardstick.rows)} rows, CPU`,
      value: `${n(yardstick.parseCpuSeconds, 2)} + ${n(yardstick.readJsonCpuSeconds, 2)} = ${n(yardstickSeconds(yardstick), 2)} s`,
      goal: '',
      ok: undefined,
    },
    {
      figure: 'yardstick per 1,000 requests / per million rows',
      value: `${n(yardstickPerThousandRequests(yardstick), 3)} s / ${n(yardstickPerMillionRows(yardstick), 1)} s`,
      goal: '',
      ok: undefined,
    },
    ...results.flatMap((f) => sizeRows(f, yardstick)),
    ...growthRows(results),
  ];
  const flags = [
    quick ? '--quick' : '',
    planOnly ? '--plan-only' : '',
    `--sizes ${sizes.join(',')}`,
    `--months ${span.months}`,
    timeBudget ? `--time-budget ${timeBudget}` : '',
    rateLimits ? '' : '--no-rate-limits',
  ]
    .filter(Boolean)
    .join(' ');
  process.stdout.write(
    `\nengage-etl benchmark --scale ${flags} — ${new Date().toISOString()}\nmachine: ${machine()}; load average at the end ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}\n\n${table(rows)}\n\nbench took ${formatDuration(performance.now() - started)}\n`,
  );
  if (jsonFile)
    await writeFile(
      jsonFile,
      `${JSON.stringify({ machine: machine(), quick, planOnly, sizes, span, yardstick, results }, null, 2)}\n`,
    );
}
