// The demo's `npm start`, first and next: `engage-etl run --emulator` of pipelines/nightly.yaml as a child process in an
// empty folder (so its data/ starts empty), then again on what the first left. Wall time from spawn to exit, the
// requests each sent (`--json`), and the machine's load average over the first run, since other work slows it.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

export interface DemoStart {
  label: 'first' | 'next';
  wallMs: number;
  requests: number;
  status: string;
  /** 1-minute load average when the run ended (2 cores: above 2 means it shared them). */
  loadAverage: number;
}

const here = import.meta.dirname;
const BIN = join(here, '../../bin/engage-etl.js');
const PIPELINE = join(here, '../../pipelines/nightly.yaml');

function runOnce(cwd: string, label: DemoStart['label']): Promise<DemoStart> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, 'run', '--emulator', '--pipeline', PIPELINE, '--json'], { cwd, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', () => {
      const wallMs = performance.now() - started;
      try {
        const summary = JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as { status?: string; requests?: { sent?: number } };
        resolve({ label, wallMs, requests: summary.requests?.sent ?? 0, status: summary.status ?? 'no summary', loadAverage: loadavg()[0] ?? 0 });
      } catch (error) {
        reject(new Error(`the demo run printed no JSON summary: ${out.slice(0, 300)}`, { cause: error }));
      }
    });
  });
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
