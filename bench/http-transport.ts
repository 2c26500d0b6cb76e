// `node dist/bench/http-transport.js [--requests N] [--rounds R]`: the API client's CPU per request with each transport,
// against the demo workspace's emulator in a process of its own (no rate limits). The same N requests (30 days of one
// custom event's series, 16 in flight) are sent through the default transport (node:http) and through `fetch`, in
// alternating rounds in one process, so a busy machine slows both alike; the first round of each warms the JIT and is
// not counted. Not part of `npm run bench`.
import { ApiClient } from '../src/api/api-client.js';
import { ENDPOINTS } from '../src/api/endpoints.js';
import { fetchTransport } from '../src/api/fetch-transport.js';
import type { HttpTransport } from '../src/api/http-transport.js';
import { nodeHttpTransport } from '../src/api/node-http-transport.js';
import { flag } from './argv-flag.js';
import { machine } from './bench-table.js';
import { EmulatorProcess } from './emulator-process.js';

const IN_FLIGHT = 16;
const NOW = '2026-11-01T00:00:00Z';

async function cpuPerRequest(em: EmulatorProcess, events: string[], transport: HttpTransport, requests: number) {
  const client = ApiClient.create({ baseUrl: em.url, apiKey: em.apiKey, transport });
  try {
    const before = process.cpuUsage();
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        for (let i = next++; i < requests; i = next++) {
          await client.request({
            endpoint: ENDPOINTS.eventsDataSeries,
            query: { event: events[i % events.length], length: 30, unit: 'day', ending_at: '2026-10-30T00:00:00Z' },
          });
        }
      }),
    );
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000 / requests;
  } finally {
    await client.close();
  }
}

async function main(): Promise<void> {
  const requests = Number(flag('--requests') ?? 2000);
  const rounds = Number(flag('--rounds') ?? 4);
  const em = await EmulatorProcess.create('demo', NOW, { rateLimits: false });
  try {
    const listing = await ApiClient.create({ baseUrl: em.url, apiKey: em.apiKey }).request<{ events: string[] }>({
      endpoint: ENDPOINTS.eventsList,
      query: { page: 0 },
    });
    const events = listing.body.events;
    const figures: Record<'node:http' | 'fetch', number[]> = { 'node:http': [], fetch: [] };
    for (let round = 0; round < rounds; round++) {
      for (const [name, make] of [
        ['node:http', nodeHttpTransport],
        ['fetch', () => fetchTransport(globalThis.fetch)],
      ] as const) {
        const ms = await cpuPerRequest(em, events, make(), requests);
        if (round > 0) figures[name].push(ms);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
    console.log(`machine: ${machine()}`);
    for (const [name, xs] of Object.entries(figures)) {
      console.log(
        `${name.padEnd(9)} client CPU per request: median ${median(xs).toFixed(3)} ms (${xs.map((x) => x.toFixed(3)).join(', ')})`,
      );
    }
    console.log(`node:http / fetch: ${(median(figures['node:http']) / median(figures.fetch)).toFixed(2)}`);
  } finally {
    await em.close();
  }
}

await main();
