// The built-in emulator of `run --emulator` on a thread of its own: serving a backfill (hashing every unit of every
// series, JSON, HTTP) and fetching and loading it then use two cores instead of taking turns on one, as they would
// against the real service. Run from TypeScript sources (tests) it starts in-process: a worker needs the built file.
import { once } from 'node:events';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { createEmulator, type EmulatorOptions } from './server.js';

/** What a caller needs of an emulator it does not share memory with. */
export interface EmulatorHandle {
  url: string;
  demoApiKey: string;
  close(): Promise<void>;
}

const ROLE = 'engage-etl emulator thread';

interface Ready {
  url: string;
  demoApiKey: string;
}

/** Starts an emulator with plain options (no functions: they cannot cross threads) and waits until it listens. */
export async function startEmulatorThread(opts: Omit<EmulatorOptions, 'rateLimitNow'>): Promise<EmulatorHandle> {
  if (import.meta.url.endsWith('.ts')) {
    const emulator = await createEmulator(opts);
    return { url: emulator.url, demoApiKey: emulator.demoApiKey, close: () => emulator.close() };
  }
  // A young generation of 8 MB (16 MB semi-spaces by default): what the emulator allocates lives for one answer, and
  // the thread shares the run's memory, so a small young generation lowers the run's peak.
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { role: ROLE, opts },
    resourceLimits: { maxYoungGenerationSizeMb: 8 },
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) =>
      reject(new Error(`the emulator thread ended (exit code ${code}) before it listened`)),
    );
  });
  return {
    ...ready,
    close: async () => {
      const exited = once(worker, 'exit');
      worker.postMessage('close');
      await exited;
    },
  };
}

if (!isMainThread && (workerData as { role?: string } | null)?.role === ROLE) {
  const port = parentPort!;
  const emulator = await createEmulator((workerData as { opts: EmulatorOptions }).opts);
  port.once('message', () => {
    void emulator.close().finally(() => port.close());
  });
  port.postMessage({ url: emulator.url, demoApiKey: emulator.demoApiKey } satisfies Ready);
}
