// One size of `npm run bench -- --scale`: an emulator of that size in a process of its own, then `plan --discover`,
// `run`, `status` and `report` each in a child process of its own, and the next night's increment with `--db s3://`
// (s3rver in the bench's process) — what it uploads: the database object, whole, and the Parquet files it changed.
import { copyFile, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { S3Place } from '../src/store/s3-place.js';
import type { S3TestServer } from '../test/helpers/s3-test-server.js';
import { EmulatorProcess } from './emulator-process.js';
import { measureCli } from './measure-cli.js';
import type { MeasuredCommand } from './measure-cli.js';
import type { ScaleSpan } from './scale-figures.js';
import { scalePipeline } from './scale-figures.js';

export interface CommandFigures {
  exitCode: number | null;
  wallMs: number;
  peakRssMb: number;
  cpuSeconds: number;
}

export interface ScaleFigures {
  size: string;
  canvases: number;
  campaigns: number;
  span: ScaleSpan;
  plan: CommandFigures & { requests: number; minimum: number; listRequests: number };
  /** `complete` false: `--time-budget` cut the run (the increment is then left out). */
  run?: CommandFigures & {
    status: string;
    sent: number;
    retries: number;
    followUps: number;
    minimum: number;
    rows: number;
    tables: number;
    complete: boolean;
  };
  dbBytes?: number;
  status?: CommandFigures;
  report?: CommandFigures & { bytes: number };
  /** `databaseBytes`: the database object the increment uploaded (0 if it left the seeded one in place). */
  increment?: CommandFigures & {
    status: string;
    sent: number;
    databaseBytes: number;
    parquetFiles: number;
    parquetBytes: number;
  };
}

function figures(m: MeasuredCommand): CommandFigures {
  return { exitCode: m.exitCode, wallMs: m.wallMs, peakRssMb: m.peakRssMb, cpuSeconds: m.cpuSeconds };
}

/** Every file under `dir` with its size and modification time. */
async function files(dir: string): Promise<Map<string, { bytes: number; mtimeMs: number }>> {
  const out = new Map<string, { bytes: number; mtimeMs: number }>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const s = await stat(path);
    out.set(path, { bytes: s.size, mtimeMs: s.mtimeMs });
  }
  return out;
}

function num(json: Record<string, unknown> | undefined, ...path: string[]): number {
  let v: unknown = json;
  for (const p of path) v = (v as Record<string, unknown> | undefined)?.[p];
  return typeof v === 'number' ? v : 0;
}

export interface ScaleRunOptions {
  size: string;
  canvases: number;
  campaigns: number;
  span: ScaleSpan;
  /** Only `plan`: the run, status, report and increment are left out (a size too large for the time at hand). */
  planOnly: boolean;
  /** Keep the size's folder (database, Parquet, report) and say where, to measure `report` or `export` on it later. */
  keep?: boolean;
  /** `run --time-budget`: a size too large for the time at hand is cut there, and publishes what it committed. */
  timeBudget: string | undefined;
  /**
   * The emulator's rate limits (default on). Off, a run is bound by the client's CPU instead of the documented hourly
   * limits: the harsher test of its memory, and the only way a 20k, 17-month run fits in an hour or two here.
   */
  rateLimits: boolean;
  store: S3TestServer;
  s3: S3Client;
  step(what: string): void;
}

export async function measureScaleSize(o: ScaleRunOptions): Promise<ScaleFigures> {
  const dir = await mkdtemp(join(tmpdir(), `engage-bench-scale-${o.size}-`));
  o.step(`${o.size}: emulator (its own process)`);
  const emulator = await EmulatorProcess.create(o.size, o.span.now, { rateLimits: o.rateLimits });
  try {
    const pipeline = join(dir, 'pipeline.yaml');
    await writeFile(pipeline, scalePipeline(o.span.start));
    const db = join(dir, 'engage.duckdb');
    const out = join(dir, 'parquet');
    const source = ['--pipeline', pipeline, '--base-url', emulator.url, '--api-key', emulator.apiKey];

    o.step(`${o.size}: plan --discover over ${o.span.months} month${o.span.months === 1 ? '' : 's'}`);
    const plan = await measureCli(
      ['plan', ...source, '--db', db, '--until', o.span.until, '--discover', '--json'],
      dir,
    );
    const result: ScaleFigures = {
      size: o.size,
      canvases: o.canvases,
      campaigns: o.campaigns,
      span: o.span,
      plan: {
        ...figures(plan),
        requests: num(plan.json, 'requests'),
        minimum: num(plan.json, 'minimum'),
        listRequests: num(plan.json, 'sent'),
      },
    };
    if (o.planOnly) return result;

    o.step(
      `${o.size}: run over ${o.span.months} month${o.span.months === 1 ? '' : 's'} (${result.plan.requests.toLocaleString('en-US')} requests planned)`,
    );
    const run = await measureCli(
      [
        'run',
        ...source,
        '--db',
        db,
        '--out',
        out,
        '--until',
        o.span.until,
        '--json',
        '--quiet',
        ...(o.timeBudget ? ['--time-budget', o.timeBudget] : []),
      ],
      dir,
    );
    const tables = (run.json?.['tables'] ?? []) as { inserted: number; updated: number }[];
    result.run = {
      ...figures(run),
      status: String(run.json?.['status'] ?? 'no summary'),
      sent: num(run.json, 'requests', 'sent'),
      retries: num(run.json, 'requests', 'retries'),
      followUps: num(run.json, 'requests', 'followUps'),
      minimum: num(run.json, 'requests', 'minimum'),
      rows: tables.reduce((n, t) => n + t.inserted + t.updated, 0),
      tables: tables.length,
      complete: run.json?.['complete'] !== false,
    };
    result.dbBytes = (await stat(db)).size;

    o.step(`${o.size}: status and report on the database (${(result.dbBytes / 2 ** 20).toFixed(0)} MB)`);
    result.status = figures(await measureCli(['status', '--db', db, '--json'], dir));
    const reportFile = join(dir, 'report.html');
    const report = await measureCli(['report', '--db', db, '--output', reportFile], dir);
    result.report = { ...figures(report), bytes: (await stat(reportFile).catch(() => ({ size: 0 }))).size };

    if (!result.run.complete) return result;
    o.step(`${o.size}: the next night's increment with --db s3:// (s3rver)`);
    const key = `scale-${o.size}/engage.duckdb`;
    const upload = join(dir, 'upload.duckdb');
    await copyFile(db, upload);
    await new S3Place({ client: o.s3, bucket: o.store.bucket, prefix: '', scratchDir: dir }).put(key, upload);
    const seeded = await o.s3.send(new HeadObjectCommand({ Bucket: o.store.bucket, Key: key }));
    const before = await files(out);
    await mkdir(join(dir, 'work'), { recursive: true });
    const increment = await measureCli(
      [
        'run',
        ...source,
        '--db',
        `s3://${o.store.bucket}/${key}`,
        '--out',
        out,
        '--work-dir',
        join(dir, 'work'),
        '--until',
        o.span.next,
        '--json',
        '--quiet',
      ],
      dir,
      o.store.env,
    );
    const after = await files(out);
    const changed = [...after].filter(
      ([path, f]) =>
        path.endsWith('.parquet') && (before.get(path)?.mtimeMs !== f.mtimeMs || before.get(path)?.bytes !== f.bytes),
    );
    const head = await o.s3.send(new HeadObjectCommand({ Bucket: o.store.bucket, Key: key }));
    result.increment = {
      ...figures(increment),
      status: String(increment.json?.['status'] ?? 'no summary'),
      sent: num(increment.json, 'requests', 'sent'),
      databaseBytes:
        head.ETag === seeded.ETag && head.LastModified?.getTime() === seeded.LastModified?.getTime()
          ? 0
          : (head.ContentLength ?? 0),
      parquetFiles: changed.length,
      parquetBytes: changed.reduce((n, [, f]) => n + f.bytes, 0),
    };
    return result;
  } finally {
    await emulator.close();
    if (o.keep) o.step(`${o.size}: kept ${dir}`);
    else await rm(dir, { recursive: true, force: true });
  }
}
