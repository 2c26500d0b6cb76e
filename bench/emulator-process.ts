// `engage-etl emulator --size …` in a process of its own, so the measured command's RSS and CPU are its own, not the
// emulator's: started on port 0 with its clock frozen, read for its URL and demo key, stopped by its pid.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const BIN = join(import.meta.dirname, '../../bin/engage-etl.js');
const READY_MS = 120_000;

export class EmulatorProcess {
  readonly url: string;
  readonly apiKey: string;
  readonly #child: ChildProcess;

  private constructor(child: ChildProcess, url: string, apiKey: string) {
    this.#child = child;
    this.url = url;
    this.apiKey = apiKey;
  }

  /**
   * An emulator of the `size` preset whose clock stands at `now`; resolves once it listens. `rateLimits` false: it never
   * answers 429, so a run goes as fast as the client's own CPU allows (the bench's `--no-rate-limits`). Its ids are
   * uuids, as the platform issues them (`ids: 'uuid'`, the default): with the demo's `cmp_1` ids, listed in order, each
   * commit's objects are neighbours and DuckDB's zone maps hide what finding a stored key costs. `ids: 'demo'` with size
   * `demo` is the demo workspace itself. `repo` runs another checkout's emulator (the table fingerprints of an older
   * build).
   */
  static async create(
    size: string,
    now: string,
    opts: { rateLimits?: boolean; ids?: 'uuid' | 'demo'; repo?: string } = {},
  ): Promise<EmulatorProcess> {
    const demoIds = opts.ids === 'demo';
    const args = [
      opts.repo === undefined ? BIN : join(opts.repo, 'bin/engage-etl.js'),
      'emulator',
      '--port',
      '0',
      ...(demoIds && size === 'demo' ? [] : ['--size', size]),
      ...(demoIds ? [] : ['--id-style', 'uuid']),
      '--now',
      now,
      ...(opts.rateLimits === false ? ['--no-rate-limits'] : []),
    ];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-2000)));
    try {
      const { url, apiKey } = await new Promise<{ url: string; apiKey: string }>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`the ${size} emulator did not listen within ${READY_MS / 1000} s: ${err}`)),
          READY_MS,
        );
        child.on('error', reject);
        child.on('exit', (code) =>
          reject(new Error(`the ${size} emulator exited ${String(code)} before listening: ${err}`)),
        );
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
          const apiKey = /demo API key[^:]*: (\S+)/.exec(out)?.[1];
          if (url && apiKey) {
            clearTimeout(timer);
            resolve({ url, apiKey });
          }
        });
      });
      child.removeAllListeners('exit');
      return new EmulatorProcess(child, url, apiKey);
    } catch (error) {
      child.kill('SIGTERM');
      throw error;
    }
  }

  async close(): Promise<void> {
    if (this.#child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => this.#child.on('exit', () => resolve()));
    this.#child.kill('SIGTERM');
    await exited;
  }
}
