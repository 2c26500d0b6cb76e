// The soak: a first backfill run night after night, into the same database and Parquet folder, through a
// twisting server — 20 % of requests answered 503, 2 % answered 200 with a garbled body (cut short, or not JSON), the
// round trip jumping mid-run, and one list (/segments/list) that answers every page with its first. Each night must
// publish at least what the night before did, delete no file it did not write, leave another workspace's files in the
// same folder alone, end with exit 3 (transient failures) or 1 (the looping list), and end in bounded time; the tenth
// night's tables equal a clean run's, except the stream whose list loops, which fails alone every night holding nothing.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORTED_TABLES, MANIFEST_DIR } from '../../src/export/parquet-layout.js';
import { TABLE_SPECS } from '../../src/streams/table-specs.js';
import type { TableManifest } from '../../src/export/table-manifest.js';
import type { Emulator } from '../../src/emulator/server.js';
import type { RunSummary } from '../../src/pipeline/run-pipeline.js';
import { StreamsFailedError } from '../../src/pipeline/streams-failed-error.js';
import { HostileProxy } from '../hostile/hostile-proxy.js';
import { differences, PipelineRuns } from '../pipeline/alt-server/pipeline-runs.js';
import { VariantServer } from '../pipeline/alt-server/variant-server.js';
import { fileStamps, listFiles, startEmulator, UNTIL } from './reliability-helpers.js';

const FROM = '2025-04-01T00:00:00Z';
const NIGHTS = 10;
/** A night that takes longer than this is a hang (a clean night takes a few seconds on 2 busy cores). */
const NIGHT_BOUND_MS = 40_000;

/** The stream whose list loops: it needs /segments/list, and no other stream does. */
const LOOPING_STREAM = 'segment_size';

const SOAK_YAML = `name: soak
start_date: 2025-04-01
lookback_days: 2
streams:
  revenue:         { unit: day, apps: ["*"], products: ["*"] }
  sessions:        { unit: day, apps: ["*"] }
  segment_size:    { segments: all }
  canvas_summary:  { canvases: [cv_1], source: data_summary, variant_breakdown: true }
  canvas_details:  { canvases: [cv_1, cv_2] }
  email_templates: { ids: [tpl_1] }
`;

/** Another workspace's pipeline publishing into the same folder before the soak starts: its files must never change. */
const FOREIGN_YAML = `name: foreign
workspace: brand_b
start_date: 2025-05-20
lookback_days: 2
streams:
  revenue:         { unit: day, apps: ["*"], products: ["*"] }
  canvas_details:  { canvases: [cv_1] }
`;

/** Another fault pattern: `SOAK_SEED=7 npx vitest run test/reliability/soak.test.ts`. */
const SEED = process.env['SOAK_SEED'] ?? '24';

/**
 * A draw in [0, 1) for the `nth` time `request` is asked on `night`: FNV-1a over them and the seed, then a murmur
 * finalizer. The faults hang on the request, not on its place in the arrival order, so concurrency cannot change which
 * requests fail and a failing soak replays the same way.
 */
function draw(night: number, request: string, nth: number): number {
  let h = 0x811c9dc5;
  for (const c of `${SEED}|${night}|${request}|${nth}`) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
}

/** `work`, or an error naming `what` once `ms` have passed: a hang fails the night instead of the whole suite's timeout. */
async function bounded<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} still running after ${ms / 1000} s: a hang`)), ms);
  });
  try {
    return await Promise.race([work, hang]);
  } finally {
    clearTimeout(timer);
  }
}

/** Bodies a broken hop hands over with a 200: JSON cut off mid-value, and bytes that are no JSON at all. */
const GARBLED = ['{"message":"success","data":[{"time":"2025-03-0', '\u0000\u001f\u008b garbled \ufffd\ufffd'];

/** The Parquet files (relative to `out`) that this database's manifests (`manifests/<table>.json`) name. */
async function namedByManifests(out: string): Promise<Set<string>> {
  const named = new Set<string>();
  for (const { table, folder } of EXPORTED_TABLES) {
    const path = join(out, MANIFEST_DIR, `${table}.json`);
    if (!existsSync(path)) continue;
    const manifest = JSON.parse(await readFile(path, 'utf8')) as TableManifest;
    for (const f of manifest.files) named.add(`${folder}/${f.path}`);
  }
  return named;
}

/**
 * The data tables as published (the Parquet files their manifests name, read through DuckDB) in `left` against `right`:
 * per table, the rows each side has that the other lacks (EXCEPT ALL both ways, data columns), where `where` allows.
 */
async function publishedDifferences(left: string, right: string, where: Record<string, string>): Promise<string[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    const out: string[] = [];
    for (const spec of TABLE_SPECS) {
      const columns = spec.columns.map((c) => c.name).filter((c) => !c.startsWith('_'));
      const read = async (dir: string): Promise<string> => {
        const path = join(dir, MANIFEST_DIR, `${spec.name}.json`);
        const files = existsSync(path) ? (JSON.parse(await readFile(path, 'utf8')) as TableManifest).files : [];
        // A table without files publishes no row: an empty selection of the same columns.
        if (files.length === 0) return `SELECT ${columns.map((c) => `NULL AS "${c}"`).join(', ')} WHERE false`;
        const list = files.map((f) => `'${join(dir, spec.name, f.path).replaceAll("'", "''")}'`).join(', ');
        return `SELECT ${columns.map((c) => `"${c}"`).join(', ')} FROM read_parquet([${list}], union_by_name = true)${where[spec.name] ? ` WHERE ${where[spec.name]}` : ''}`;
      };
      const [l, r] = [await read(left), await read(right)];
      const rows = (
        await conn.runAndReadAll(
          `SELECT (SELECT count(*) FROM (${l} EXCEPT ALL ${r}))::INTEGER AS a, (SELECT count(*) FROM (${r} EXCEPT ALL ${l}))::INTEGER AS b`,
        )
      ).getRowObjects();
      const { a, b } = rows[0] as { a: number; b: number };
      if (a + b > 0) out.push(`${spec.name}: ${a} published row(s) only in ${left}, ${b} only in ${right}`);
    }
    return out;
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/** Rows each manifest of this database publishes, by table. */
async function publishedRows(out: string): Promise<Record<string, number>> {
  const rows: Record<string, number> = {};
  for (const { table } of EXPORTED_TABLES) {
    const path = join(out, MANIFEST_DIR, `${table}.json`);
    if (!existsSync(path)) continue;
    const manifest = JSON.parse(await readFile(path, 'utf8')) as TableManifest;
    rows[table] = manifest.files.reduce((n, f) => n + f.rows, 0);
  }
  return rows;
}

/** Files of another workspace (`workspace=` in their path: the soak's pipeline has none) and an analyst's notes. */
const isForeign = (file: string): boolean =>
  file.endsWith('.txt') || file.split('/').some((part) => part.startsWith('workspace='));

describe('soak: ten nights of a first backfill through a twisting server', () => {
  let em: Emulator;
  let runs: PipelineRuns;
  let variant: VariantServer;
  let proxy: HostileProxy;
  const out = (): string => join(runs.dir, 'soak-parquet');

  beforeAll(async () => {
    em = await startEmulator();
    runs = await PipelineRuns.create(SOAK_YAML);
    // The clean run: the same pipeline straight against the emulator.
    await runs.run({ name: 'clean', baseUrl: em.url, apiKey: em.demoApiKey, from: FROM, until: UNTIL });
    // Another workspace publishes into the soak's folder first (its own database, its own pipeline file).
    const foreign = await PipelineRuns.create(FOREIGN_YAML);
    try {
      await foreign.run({
        name: 'foreign',
        baseUrl: em.url,
        apiKey: em.demoApiKey,
        from: '2025-05-20T00:00:00Z',
        until: UNTIL,
        flags: { out: out() },
      });
    } finally {
      await foreign.close();
    }
    // Segments listed two to a page, so a list that answers every page with its first never ends.
    variant = await VariantServer.create(em, { lists: { pageSize: 2 }, loopingList: '/segments/list' });
    proxy = await HostileProxy.create(variant.url);
  }, 60_000);

  afterAll(async () => {
    await proxy?.close();
    await variant?.close();
    await em?.close();
    await runs?.close();
  });

  it('publishes more each night, deletes only its own files, and ends equal to a clean run but for the looping list', async () => {
    // Files an analyst left beside the tables: not engage-etl's, so never its to delete.
    await writeFile(join(out(), 'README.txt'), 'where the warehouse lives\n');
    await writeFile(join(out(), 'revenue', 'notes.txt'), 'revenue is in cents before June\n');
    const foreignBefore = Object.fromEntries(Object.entries(await fileStamps(out())).filter(([f]) => isForeign(f)));
    expect(Object.keys(foreignBefore).length).toBeGreaterThan(0);

    let night = 0;
    const asked = new Map<string, number>();
    let garbled = 0;
    let refused = 0;
    proxy.tamper = (_req, url, res) => {
      const request = `${url.pathname}${url.search}`;
      const nth = (asked.get(request) ?? 0) + 1;
      asked.set(request, nth);
      const r = draw(night, request, nth);
      if (r < 0.2) {
        refused++;
        res.writeHead(503, { 'Content-Type': 'application/json' });
        res.end('{"message":"Service Unavailable"}');
        return true;
      }
      if (r < 0.22) {
        garbled++;
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(GARBLED[r < 0.21 ? 0 : 1]);
        return true;
      }
      return false;
    };

    let previous:
      | { counts: Record<string, number>; published: Record<string, number>; watermarks: Map<string, string> }
      | undefined;
    const exits: number[] = [];
    for (night = 1; night <= NIGHTS; night++) {
      asked.clear();
      const filesBefore = (await listFiles(out())).filter((f) => !isForeign(f));
      const namedBefore = await namedByManifests(out());

      // The round trip jumps from nothing to 150 ms once the night has sent a few requests.
      proxy.latencyMs = 0;
      const sentBefore = proxy.received.length;
      const jump = setInterval(() => {
        if (proxy.received.length - sentBefore > 5) proxy.latencyMs = 150;
      }, 20);
      const started = performance.now();
      let summary: RunSummary;
      let exit: number;
      try {
        summary = await bounded(
          NIGHT_BOUND_MS,
          `night ${night}`,
          runs.run({
            name: 'soak',
            baseUrl: proxy.url,
            apiKey: em.demoApiKey,
            from: FROM,
            until: UNTIL,
            flags: { maxInFlight: '6' },
            // Two attempts a request: with 22 % of answers refused or garbled, about one request in twenty fails for good, so
            // the backfill spans several nights (six attempts would almost never fail one).
            client: { maxAttempts: 2, backoffBaseMs: 5, backoffMaxMs: 20, timeoutMs: 5_000 },
          }),
        );
        exit = summary.status === 'failed' ? 1 : summary.status === 'succeeded' ? 0 : 3;
      } catch (err) {
        if (!(err instanceof StreamsFailedError)) throw err;
        summary = err.summary;
        exit = 1;
      } finally {
        clearInterval(jump);
      }
      const seconds = (performance.now() - started) / 1000;
      exits.push(exit);
      const label = `night ${night} (exit ${exit}, ${seconds.toFixed(1)} s, ${summary.failedSeries.length} series failed)`;
      expect(proxy.latencyMs, `${label}: the round trip jumped`).toBe(150);

      // The looping stream fails every night: for good (exit 1) once its list answered page 1 as page 0, or for a 503 on
      // the way there (exit 3). Every other failure is transient, and no failure of another stream ends the night.
      expect(
        summary.failedStreams.map((f) => f.stream),
        label,
      ).toContain(LOOPING_STREAM);
      const loop = summary.failedSeries.filter((f) => f.stream === LOOPING_STREAM);
      for (const f of loop) {
        expect(f.error, label).toMatch(
          f.retriable
            ? /failed with (503|200)/
            : /GET \/segments\/list: page 2 \(page=1\) repeats 2 items already seen/,
        );
      }
      const others = summary.failedSeries.filter((f) => f.stream !== LOOPING_STREAM);
      expect(
        others.filter((f) => !f.retriable),
        label,
      ).toEqual([]);
      expect(exit, label).toBe(loop.some((f) => !f.retriable) ? 1 : 3);
      if (night === 1) expect(others.length, 'the first night leaves windows to the next').toBeGreaterThan(0);

      // Nothing deleted that this database's manifests did not name before the night; every name of the new manifests exists.
      const filesAfter = new Set(await listFiles(out()));
      const gone = filesBefore.filter((f) => !filesAfter.has(f) && !namedBefore.has(f));
      expect(gone, `${label}: files deleted that this database had not published`).toEqual([]);
      const namedAfter = await namedByManifests(out());
      expect(
        [...namedAfter].filter((f) => !filesAfter.has(f)),
        `${label}: manifests name missing files`,
      ).toEqual([]);
      // The bookkeeping names exactly what is missing: the night's failed series.
      const recorded = await runs.query('soak', 'SELECT count(*)::INTEGER AS n FROM "_etl_series_failures"');
      expect(recorded[0]?.['n'], `${label}: _etl_series_failures`).toBe(summary.failedSeries.length);
      const foreignAfter = Object.fromEntries(Object.entries(await fileStamps(out())).filter(([f]) => isForeign(f)));
      expect(foreignAfter, `${label}: the other workspace's files`).toEqual(foreignBefore);

      // Never fewer rows than the night before, in DuckDB or in the manifests; no watermark moves back.
      const counts = await runs.counts('soak');
      const published = await publishedRows(out());
      const watermarks = new Map(
        (
          await runs.query(
            'soak',
            `SELECT stream || '/' || series_key AS k, CAST(watermark AS VARCHAR) AS w FROM "_etl_series_state" WHERE watermark IS NOT NULL`,
          )
        ).map((r) => [String(r['k']), String(r['w'])]),
      );
      if (previous) {
        for (const [table, n] of Object.entries(previous.counts))
          expect(counts[table], `${label}: rows of ${table}`).toBeGreaterThanOrEqual(n);
        for (const [table, n] of Object.entries(previous.published)) {
          if (table.startsWith('_etl_')) continue;
          expect(published[table] ?? 0, `${label}: published rows of ${table}`).toBeGreaterThanOrEqual(n);
        }
        for (const [series, w] of previous.watermarks)
          expect((watermarks.get(series) ?? '') >= w, `${label}: watermark of ${series} went back from ${w}`).toBe(
            true,
          );
      }
      previous = { counts, published, watermarks };
    }

    // The twists happened: about a fifth of the requests refused, some bodies garbled, the loop seen.
    expect(refused).toBeGreaterThan(proxy.received.length * 0.1);
    expect(garbled).toBeGreaterThan(0);
    expect(exits).toContain(1);

    // The tenth night holds the clean run's data, but for what the looping list feeds (the segment sizes and the segments'
    // list entries), of which it holds nothing wrong: no row the clean run lacks.
    const diffs = await runs.diff('soak', 'clean', { listed_objects: "listing <> 'segments'" });
    expect(differences(diffs.filter((d) => d.table !== 'segment_size'))).toEqual([]);
    expect(await runs.query('soak', 'SELECT * FROM "_etl_holes"'), 'holes left after ten nights').toEqual([]);
    // The lake readers see holds the same: the Parquet files the manifests name.
    const lake = await publishedDifferences(out(), join(runs.dir, 'clean-parquet'), {
      listed_objects: "listing <> 'segments'",
      segment_size: 'false',
    });
    expect(lake).toEqual([]);
    const looped = await runs.diff('soak', 'clean', { listed_objects: "listing = 'segments'" });
    for (const d of looped.filter((l) => l.table === 'segment_size' || l.table === 'listed_objects'))
      expect(d.onlyLeft, d.samples.join('\n')).toBe(0);
  }, 240_000);
});
