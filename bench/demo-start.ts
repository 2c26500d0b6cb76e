// The demo's `npm start`, first and next: `engage-etl run --emulator` of pipelines/nightly.yaml as a child process in an
// empty folder (so its data/ starts empty), then again on what the first left; then a first run once more in another
// empty folder with ENGAGE_ETL_RUNTIME_DEFAULTS=1 (Node's and DuckDB's own memory settings: what the entry point's
// settings buy). Wall time from spawn to exit, the process's peak RSS, the requests each sent (`--json`), and the
// machine's load average over the run, since other work slows it.
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureCli } from './measure-cli.js';

export interface DemoStart {
  /** `first, runtime defaults`: a first run with ENGAGE_ETL_RUNTIME_DEFAULTS=1. */
  label: 'first' | 'next' | 'first, runtime defaults';
  wallMs: number;
  requests: number;
  status: string;
  /** 1-minute load average when the run ended (2 cores: above 2 means it shared them). */
  loadAverage: number;
  /** The run's process's peak RSS (the emulator runs in a process of its own), from its own getrusage at exit. */
  peakRssMb: number;
}

const here = import.meta.dirname;
const PIPELINE = join(here, '../../pipelines/nightly.yaml');

async function runOnce(cwd: string, label: DemoStart['label'], env: Record<string, string> = {}): Promise<DemoStart> {
  const run = await measureCli(['run', '--emulator', '--pipeline', PIPELINE, '--json'], cwd, env);
  if (run.json === undefined)
    throw new Error(`the demo run exited ${String(run.exitCode)} and printed no JSON summary`);
  const summary = run.json as { status?: string; requests?: { sent?: number } };
  return {
    label,
    wallMs: run.wallMs,
    requests: summary.requests?.sent ?? 0,
    status: summary.status ?? 'no summary',
    loadAverage: loadavg()[0] ?? 0,
    peakRssMb: run.peakRssMb,
  };
}

/** The first `npm start` of a fresh checkout and the next one right after it. */
export async function measureDemoStart(): Promise<DemoStart[]> {
  const cwd = await mkdtemp(join(tmpdir(), 'engage-demo-start-'));
  const bare = await mkdtemp(join(tmpdir(), 'engage-demo-start-defaults-'));
  try {
    const first = await runOnce(cwd, 'first');
    const next = await runOnce(cwd, 'next');
    const defaults = await runOnce(bare, 'first, runtime defaults', { ENGAGE_ETL_RUNTIME_DEFAULTS: '1' });
    return [first, next, defaults];
  } finally {
    await rm(cwd, { recursive: true, force: true });
    await rm(bare, { recursive: true, force: true });
  }
}
