// The built-in emulator of `run --emulator` in a process of its own, as the platform is to a real run: serving a
// backfill (hashing every unit of every series, JSON, HTTP) and fetching and loading it use two cores instead of taking
// turns on one, and the emulator's heap and allocator arenas are not the run's, so the run's peak memory is its own.
// The child is forked with an IPC channel and ends when the channel closes, so a run killed with SIGKILL leaves no
// emulator behind. Run from TypeScript sources (tests) it starts in-process: a child needs the built file.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createEmulator, type EmulatorOptions } from './server.js';

/** What a caller needs of an emulator it does not share memory with. */
export interface EmulatorHandle {
  url: string;
  demoApiKey: string;
  /** The emulator's process (this one's pid when it runs in-process). */
  pid: number;
  close(): Promise<void>;
}

const ROLE = 'engage-etl emulator process';

interface Ready {
  url: string;
  demoApiKey: string;
}

/** Starts an emulator with plain options (no functions: they cannot cross processes) and waits until it listens. */
export async function startEmulatorProcess(opts: Omit<EmulatorOptions, 'rateLimitNow'>): Promise<EmulatorHandle> {
  if (import.meta.url.endsWith('.ts')) {
    const emulator = await createEmulator(opts);
    return { url: emulator.url, demoApiKey: emulator.demoApiKey, pid: process.pid, close: () => emulator.close() };
  }
  const child = fork(fileURLToPath(import.meta.url), [], {
    env: { ...process.env, ENGAGE_ETL_ROLE: ROLE },
    // The run's own flags (an inspector, a heap limit) are not the emulator's.
    execArgv: [],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    serialization: 'json',
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('message', (m) => resolve(m as Ready));
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      reject(new Error(`the emulator process ended (${signal ?? `exit code ${code}`}) before it listened`)),
    );
    child.send({ opts });
  });
  child.removeAllListeners('exit');
  return {
    ...ready,
    pid: child.pid!,
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.disconnect();
      await exited;
    },
  };
}

if (process.env.ENGAGE_ETL_ROLE === ROLE && process.send) {
  delete process.env.ENGAGE_ETL_ROLE;
  const send = process.send.bind(process);
  process.once('message', (m: { opts: EmulatorOptions }) => {
    void createEmulator(m.opts).then((emulator) => {
      // The parent closed the channel (its close(), its exit, or its death): stop serving and end.
      process.once('disconnect', () => void emulator.close().finally(() => process.exit(0)));
      send({ url: emulator.url, demoApiKey: emulator.demoApiKey } satisfies Ready);
    });
  });
}
