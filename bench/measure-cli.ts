// One `engage-etl` command as a child process of its own, measured: wall time from spawn to exit, and (through
// rusage-hook.ts) the process's own peak RSS and CPU seconds — what `/usr/bin/time -v` would print, on every platform.
import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ProcessUsage } from './rusage-hook.js';

export interface MeasuredCommand extends ProcessUsage {
  command: string;
  exitCode: number | null;
  wallMs: number;
  /** The last line the command printed on stdout (its `--json` result), parsed; undefined when it printed none. */
  json: Record<string, unknown> | undefined;
}

const here = import.meta.dirname;
const BIN = join(here, '../../bin/engage-etl.js');
// Loaded with --require, not --import: --import starts libuv's thread pool (the ES module loader reads files through it)
// before bin/engage-etl.js can size it, and the process measured would run with four threads where `engage-etl` runs
// with two (bin/engage-etl.js). Node 20.19+ requires the ES module hook synchronously.
const HOOK = join(here, 'rusage-hook.js');

/** Runs `engage-etl <args>` in `cwd` with `env` added; rejects only when the process cannot be measured. */
export async function measureCli(
  args: readonly string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<MeasuredCommand> {
  const usageFile = join(cwd, `.rusage-${process.pid}-${Date.now()}.json`);
  const started = performance.now();
  const child = spawn(process.execPath, ['--require', HOOK, BIN, ...args], {
    cwd,
    env: { ...process.env, ...env, ENGAGE_BENCH_RUSAGE: usageFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  const wallMs = performance.now() - started;
  const command = `engage-etl ${args[0] ?? ''}`;
  let usage: ProcessUsage;
  try {
    usage = JSON.parse(await readFile(usageFile, 'utf8')) as ProcessUsage;
  } catch (error) {
    throw new Error(
      `${command} exited ${String(exitCode)} without writing its resource usage; stderr: ${err.slice(-1000)}`,
      { cause: error },
    );
  } finally {
    await rm(usageFile, { force: true });
  }
  const last = out.trim().split('\n').at(-1) ?? '';
  let json: Record<string, unknown> | undefined;
  try {
    json = last.startsWith('{') ? (JSON.parse(last) as Record<string, unknown>) : undefined;
  } catch {
    json = undefined;
  }
  if (exitCode !== 0 && exitCode !== 3)
    process.stderr.write(`bench: ${command} exited ${String(exitCode)}: ${err.slice(-1500)}\n`);
  return { command, exitCode, wallMs, json, ...usage };
}
