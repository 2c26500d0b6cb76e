// The plan's memory per Canvas: `plan --discover` of a workspace of N and of 4N Canvases, each planned over 17
// months from the emulator (in this process) through real HTTP, by a child process with --expose-gc that holds nothing
// else: the heap after a full GC with the plan alive, less the heap before it. What both sizes hold alike (modules, the
// HTTP client's pool) cancels out in the difference. A plan that materialises every window again (about 65 KB per
// Canvas of 37 windows) fails at once.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/server.js';

/**
 * Bytes of plan memory one more Canvas may cost: its canvas_summary series (one compact cursor, no windows) and its
 * discovered list entry, about 500 bytes on Node 20 and 24. The bound leaves room for another Node's object layout, not
 * for another window per Canvas, nor for a series made of closures with a range of its own (about 900 bytes).
 */
const BYTES_PER_CANVAS = 800;

const N = 1_000;

const dist = (path: string) => pathToFileURL(resolve('dist/src', path)).href;

// Run as an ES module by `node --expose-gc`: plans from the emulator in argv and prints what the plan holds.
const CHILD = `
const { ApiClient } = await import(${JSON.stringify(dist('api/api-client.js'))});
const { resolveRunOptions } = await import(${JSON.stringify(dist('config/run-options.js'))});
const { planWithoutRunning } = await import(${JSON.stringify(dist('pipeline/plan-for-run.js'))});
const { DateTime } = (await import('node:module')).createRequire(${JSON.stringify(resolve('package.json'))})('luxon');
const [pipeline, db, baseUrl, apiKey] = process.argv.slice(-4);
const heap = () => { globalThis.gc(); globalThis.gc(); return process.memoryUsage().heapUsed; };
const client = ApiClient.create({ baseUrl, apiKey });
const opts = resolveRunOptions({ pipeline, db, baseUrl, apiKey, until: '2025-11-01' }, {}, DateTime.utc());
const before = heap();
const { plan } = await planWithoutRunning(opts, client);
const retained = heap() - before;
await client.close();
process.stdout.write(JSON.stringify({ series: plan.streams.find((s) => s.stream === 'canvas_summary').series, requests: plan.requests, retained }));
`;

const PIPELINE = `name: memory
start_date: 2024-06-01
lookback_days: 3
streams:
  canvas_summary: { canvases: all, source: data_series, variant_breakdown: true, step_breakdown: true }
`;

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plan-memory-'));
  await writeFile(join(dir, 'pipeline.yaml'), PIPELINE);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function planHeld(canvases: number): Promise<{ series: number; requests: number; retained: number }> {
  const emulator = await createEmulator({ size: { canvases, campaigns: 0 }, rateLimits: false });
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--expose-gc',
        '--input-type=module',
        '-e',
        CHILD,
        '--',
        join(dir, 'pipeline.yaml'),
        join(dir, 'none.duckdb'),
        emulator.url,
        emulator.demoApiKey,
      ],
      { maxBuffer: 1 << 20 },
    );
    return JSON.parse(stdout) as { series: number; requests: number; retained: number };
  } finally {
    await emulator.close();
  }
}

describe('plan memory per Canvas', () => {
  it(`stays within ${BYTES_PER_CANVAS} bytes per Canvas from ${N} to ${4 * N} Canvases over 17 months`, async () => {
    const small = await planHeld(N);
    const large = await planHeld(4 * N);
    // The workspaces are what they say, and the plan is a 17-month backfill of every listed Canvas (37 windows each).
    expect(large.series).toBeGreaterThan(3 * small.series);
    expect(large.requests).toBeGreaterThan(30 * large.series);
    const perCanvas = (large.retained - small.retained) / (large.series - small.series);
    expect(
      perCanvas,
      `${Math.round(perCanvas)} bytes per Canvas (${small.retained} bytes at ${small.series}, ${large.retained} at ${large.series})`,
    ).toBeLessThanOrEqual(BYTES_PER_CANVAS);
  }, 60_000);
});
