// The scale bench's yardstick, measured in the same bench run on the same machine: the scale pipeline runs once over a
// small workspace of the same model through a recording proxy; then the CPU this machine takes to `JSON.parse` those
// response bytes and to `read_json` the rows they loaded is timed. The sample is fixed (seed, size, span), so the
// yardstick is the same work on every machine and a figure ÷ yardstick compares across machines.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { DateTime } from 'luxon';
import { resolveRunOptions } from '../src/config/run-options.js';
import { createEmulator } from '../src/emulator/server.js';
import { runPipeline } from '../src/pipeline/run-pipeline.js';
import type { ScaleSpan, Yardstick } from './scale-figures.js';
import { scalePipeline } from './scale-figures.js';

/** The sample workspace: the 2k preset's shape at 40 Canvases and 40 campaigns (about 2,000 requests over 17 months). */
const SAMPLE_SIZE = { apps: 5, products: 40, segments: 40, events: 80, canvases: 40, campaigns: 40 } as const;
/** Each timing is the least of this many repetitions: the machine's speed, not a neighbour's burst. */
const REPEATS = 3;

/**
 * A proxy to `upstream` that keeps each request's last 200 answer (asked uncompressed): one per URL, so a retry the
 * machine's load caused (a timeout) does not change the sample.
 */
async function recordingProxy(
  upstream: string,
): Promise<{ url: string; bodies: Map<string, Buffer>; close(): Promise<void> }> {
  const target = new URL(upstream);
  const bodies = new Map<string, Buffer>();
  const server = createServer((req, res) => {
    const headers = { ...req.headers, host: target.host };
    delete headers['accept-encoding'];
    const up = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
      (upRes) => {
        const chunks: Buffer[] = [];
        upRes.on('data', (c: Buffer) => chunks.push(c));
        upRes.on('end', () => {
          const body = Buffer.concat(chunks);
          if (upRes.statusCode === 200) bodies.set(`${req.method} ${req.url}`, body);
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          res.end(body);
        });
      },
    );
    up.on('error', (err) => res.destroy(err));
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function cpuSeconds(fn: () => void): number {
  const before = process.cpuUsage();
  fn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1e6;
}

async function cpuSecondsAsync(fn: () => Promise<void>): Promise<number> {
  const before = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1e6;
}

/** Runs the sample, then times parsing its answers and reading its rows back with DuckDB's read_json. */
export async function measureYardstick(span: ScaleSpan): Promise<Yardstick> {
  const dir = await mkdtemp(join(tmpdir(), 'engage-bench-yardstick-'));
  const emulator = await createEmulator({ seed: 1, port: 0, now: span.now, size: SAMPLE_SIZE });
  const proxy = await recordingProxy(emulator.url);
  try {
    const pipeline = join(dir, 'pipeline.yaml');
    await writeFile(pipeline, scalePipeline(span.start));
    const db = join(dir, 'sample.duckdb');
    const summary = await runPipeline(
      resolveRunOptions(
        { pipeline, baseUrl: proxy.url, apiKey: emulator.demoApiKey, db, out: join(dir, 'parquet'), until: span.until },
        {},
        DateTime.utc(),
      ),
    );
    const tables = summary.tables.filter((t) => t.rows > 0).map((t) => t.table);

    // The rows as NDJSON, one file per table, written before any timing.
    const source = await DuckDBInstance.create(db, { access_mode: 'READ_ONLY' });
    const read = await source.connect();
    let rows = 0;
    try {
      for (const t of tables) {
        await read.run(`COPY "${t}" TO '${join(dir, `${t}.json`)}' (FORMAT json)`);
        rows += Number((await read.runAndReadAll(`SELECT count(*) AS n FROM "${t}"`)).getRowObjects()[0]?.['n'] ?? 0);
      }
    } finally {
      read.closeSync();
      source.closeSync();
    }

    const texts = [...proxy.bodies.values()].map((b) => b.toString('utf8'));
    let parse = Infinity;
    for (let r = 0; r < REPEATS; r++)
      parse = Math.min(
        parse,
        cpuSeconds(() => void texts.reduce((n, t) => n + (JSON.parse(t) === null ? 0 : 1), 0)),
      );

    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    let readJson = Infinity;
    try {
      for (let r = 0; r < REPEATS; r++) {
        readJson = Math.min(
          readJson,
          await cpuSecondsAsync(async () => {
            for (const t of tables)
              await conn.run(`CREATE OR REPLACE TABLE "${t}" AS SELECT * FROM read_json('${join(dir, `${t}.json`)}')`);
          }),
        );
      }
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
    return {
      requests: proxy.bodies.size,
      responseBytes: [...proxy.bodies.values()].reduce((n, b) => n + b.length, 0),
      rows,
      parseCpuSeconds: parse,
      readJsonCpuSeconds: readJson,
    };
  } finally {
    await proxy.close();
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }
}
