// The demo's `npm start`, first and next: `engage-etl run --emulator` of pipelines/nightly.yaml as a child process in an
// empty folder (so its data/ starts empty), then again on what the first left. Wall time from spawn to exit, the
// process's peak RSS, the requests each sent (`--json`), and the machine's load average over the first run, since
// other work slows it.
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureCli } from './measure-cli.js';

export interface DemoStart {
  label: 'first' | 'next';
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

async function runOnce(cwd: string, label: DemoStart['label']): Promise<DemoStart> {
  const run = await measureCli(['run', '--emulator', '--pipeline', PIPELINE, '--json'], cwd);
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
  try {
    const first = await runOnce(cwd, 'first');
    const next = await runOnce(cwd, 'next');
    return [first, next];
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
}
