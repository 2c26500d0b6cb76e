// The entry point's memory settings: on Linux with process.execve (Node 22.15+, 24) the CLI starts itself again in the
// same process with MALLOC_ARENA_MAX=1 (glibc reads it only at start), UV_THREADPOOL_SIZE=2, DuckDB's allocator
// settings (DUCKDB_JE_MALLOC_CONF), V8's semi-spaces and heap growth bounded, unless the user set them or asked for the
// runtime's defaults (ENGAGE_ETL_RUNTIME_DEFAULTS=1). Checked on the real process:
// its pid stays the one its parent started, /proc/PID/environ is what glibc read and /proc/PID/cmdline the options V8
// read.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const BIN = resolve('bin/engage-etl.js');
const canExec = process.platform === 'linux' && typeof (process as { execve?: unknown }).execve === 'function';
/** What bin/engage-etl.js gives V8 (docs/decisions.md, "The entry point's memory settings"). */
const V8_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=50'];
const v8Flags = (argv: string[]) => argv.filter((a) => /^--(max-semi-space-size|heap-growing-percent)=/.test(a));

/** Starts the emulator through the CLI, waits until it listens, and returns the environment and arguments its process runs with. */
async function environmentOf(env: Record<string, string>): Promise<Map<string, string> & { argv: string[] }> {
  const child = spawn(process.execPath, [BIN, 'emulator', '--port', '0'], {
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    await new Promise<void>((done, fail) => {
      let out = '';
      const timer = setTimeout(() => fail(new Error(`the emulator did not listen within 30 s: ${out}`)), 30_000);
      const seen = (d: Buffer) => {
        out += d.toString();
        if (out.includes('listening on')) {
          clearTimeout(timer);
          done();
        }
      };
      child.stdout.on('data', seen);
      child.stderr.on('data', seen);
      child.on('exit', (code) => fail(new Error(`the emulator exited with ${code}: ${out}`)));
    });
    const raw = readFileSync(`/proc/${child.pid}/environ`, 'utf8');
    const vars = new Map(
      raw
        .split('\0')
        .filter(Boolean)
        .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
    );
    return Object.assign(vars, { argv: readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0') });
  } finally {
    child.kill('SIGTERM');
  }
}

describe('the entry point starts itself with its memory settings', () => {
  it.skipIf(!canExec)(
    'sets MALLOC_ARENA_MAX=1, UV_THREADPOOL_SIZE=2, the semi-spaces and the heap growth in the same process (needs Linux and Node 22.15+)',
    async () => {
      const env = await environmentOf({});
      expect(env.get('MALLOC_ARENA_MAX')).toBe('1');
      expect(env.get('UV_THREADPOOL_SIZE')).toBe('2');
      expect(env.get('DUCKDB_JE_MALLOC_CONF')).toBe('dirty_decay_ms:250,muzzy_decay_ms:0');
      expect(v8Flags(env.argv)).toEqual(V8_FLAGS);
    },
  );

  it.skipIf(!canExec)('keeps the values the user set', async () => {
    const env = await environmentOf({
      MALLOC_ARENA_MAX: '4',
      UV_THREADPOOL_SIZE: '3',
      NODE_OPTIONS: '--max-semi-space-size=4',
      DUCKDB_JE_MALLOC_CONF: 'dirty_decay_ms:1000',
    });
    expect(env.get('MALLOC_ARENA_MAX')).toBe('4');
    expect(env.get('DUCKDB_JE_MALLOC_CONF')).toBe('dirty_decay_ms:1000');
    expect(env.get('UV_THREADPOOL_SIZE')).toBe('3');
    expect(v8Flags(env.argv)).toEqual(['--heap-growing-percent=50']);
  });

  it.skipIf(!canExec)('leaves every setting to Node and DuckDB with ENGAGE_ETL_RUNTIME_DEFAULTS=1', async () => {
    const env = await environmentOf({ ENGAGE_ETL_RUNTIME_DEFAULTS: '1' });
    for (const name of ['MALLOC_ARENA_MAX', 'UV_THREADPOOL_SIZE', 'DUCKDB_JE_MALLOC_CONF'])
      expect(env.has(name)).toBe(false);
    expect(v8Flags(env.argv)).toEqual([]);
  });

  it.skipIf(canExec)("without process.execve (Node 20) runs as started, with glibc's default arenas", async () => {
    const env = await environmentOf({});
    expect(env.has('MALLOC_ARENA_MAX')).toBe(false);
  });
});
