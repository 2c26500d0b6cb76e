// The emulator of `run --emulator` in a process of its own: it serves, it ends when closed, and it ends when the run
// that started it is killed with SIGKILL, so no emulator is left listening. The built module is imported (from sources
// the emulator starts in-process, and there would be no child to check).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { startEmulatorProcess as Start } from '../../src/emulator/emulator-process.js';

const BUILT = resolve('dist/src/emulator/emulator-process.js');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number, withinMs: number): Promise<boolean> {
  const until = Date.now() + withinMs;
  while (Date.now() < until) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !alive(pid);
}

describe.skipIf(!existsSync(BUILT))('the emulator process of run --emulator (built module)', () => {
  it('serves the demo workspace from another pid, and ends when closed', async () => {
    const { startEmulatorProcess } = (await import(pathToFileURL(BUILT).href)) as {
      startEmulatorProcess: typeof Start;
    };
    const em = await startEmulatorProcess({ seed: 1 });
    expect(em.pid).not.toBe(process.pid);
    const res = await fetch(`${em.url}/canvas/list`, { headers: { authorization: `Bearer ${em.demoApiKey}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { canvases: unknown[] }).canvases.length).toBeGreaterThan(0);
    await em.close();
    expect(await gone(em.pid, 5_000)).toBe(true);
    await expect(fetch(`${em.url}/canvas/list`)).rejects.toThrow();
  });

  it('ends when the process that started it is killed with SIGKILL', async () => {
    const script = `import(${JSON.stringify(pathToFileURL(BUILT).href)}).then(async (m) => {
      const em = await m.startEmulatorProcess({ seed: 1 });
      console.log(JSON.stringify({ pid: em.pid }));
      setInterval(() => {}, 1000);
    });`;
    const parent = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const pid = await new Promise<number>((resolveLine, reject) => {
      let out = '';
      parent.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const line = /\{"pid":\d+\}/.exec(out)?.[0];
        if (line) resolveLine((JSON.parse(line) as { pid: number }).pid);
      });
      parent.on('exit', (code) => reject(new Error(`the parent exited ${String(code)} before the emulator listened`)));
    });
    expect(alive(pid)).toBe(true);
    parent.kill('SIGKILL');
    expect(await gone(pid, 5_000)).toBe(true);
  });
});
