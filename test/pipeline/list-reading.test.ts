// Lists read right, over real HTTP through the variant server: pages counted from
// 0 or from 1 are told apart from the answers; a list that loops or passes `max_list_pages` fails only the streams that
// need it, and every other stream is committed and published.
import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { createEmulator } from '../../src/emulator/server.js';
import type { RunSummary } from '../../src/pipeline/run-pipeline.js';
import { StreamsFailedError } from '../../src/pipeline/streams-failed-error.js';
import { PipelineRuns } from './alt-server/pipeline-runs.js';
import type { VariantOptions } from './alt-server/variant-server.js';

const NOW = '2025-03-10T00:00:00Z';
const FROM = '2025-03-01';
const PIPELINE = `
name: lists
start_date: 2025-03-01
streams:
  products:       {}
  canvas_details: { canvases: all }
  segment_size:   { segments: [seg_1] }
`;

let emulator: Emulator;
let runs: PipelineRuns;
let products: string[];

async function productIds(name: string): Promise<string[]> {
  return (await runs.query(name, 'SELECT product_id FROM products ORDER BY product_id')).map((r) =>
    String(r['product_id']),
  );
}

/** A run through a variant; a run whose streams failed alone resolves to its summary too. */
async function runVariant(name: string, options: VariantOptions): Promise<RunSummary> {
  try {
    return (await runs.runThrough(emulator, { name, from: FROM, until: NOW }, options)).summary;
  } catch (err) {
    if (err instanceof StreamsFailedError) return err.summary;
    throw err;
  }
}

beforeAll(async () => {
  emulator = await createEmulator({ seed: 1, now: NOW, rateLimits: false });
  runs = await PipelineRuns.create(PIPELINE);
  await runs.run({ name: 'direct', baseUrl: emulator.url, apiKey: emulator.demoApiKey, from: FROM, until: NOW });
  products = await productIds('direct');
}, 120_000);

afterAll(async () => {
  await emulator?.close();
  await runs?.close();
});

describe('a product list whose pages count from 1', () => {
  it('reads every product once when page 0 answers the first page again', async () => {
    // Pages of 3: the 7 products of the demo workspace take three pages, the last one short.
    expect(products.length).toBe(7);
    const summary = await runVariant('from-one-repeat', {
      lists: { pageSize: 3 },
      pagesFromOne: { paths: ['/purchases/product_list'], pageZero: 'first-page' },
    });
    expect(summary.status).toBe('succeeded');
    expect(await productIds('from-one-repeat')).toEqual(products);
    expect(summary.warnings).toEqual([]);
  }, 60_000);

  it('reads every product when page 0 answers an empty list', async () => {
    const summary = await runVariant('from-one-empty', {
      lists: { pageSize: 3 },
      pagesFromOne: { paths: ['/purchases/product_list'], pageZero: 'empty' },
    });
    expect(summary.status).toBe('succeeded');
    expect(await productIds('from-one-empty')).toEqual(products);
    expect(summary.warnings).toEqual([]);
  }, 60_000);
});

describe('a list that cannot be read', () => {
  it('that loops fails only the streams that need it; the others are committed and published', async () => {
    const summary = await runVariant('looping', { loopingList: '/canvas/list' });
    expect(summary.status).toBe('failed');
    expect(summary.failedStreams.map((f) => f.stream)).toEqual(['canvas_details']);
    expect(summary.failedStreams[0]!.error).toMatch(
      /GET \/canvas\/list: page 2 \(page=1\) repeats \d+ items already seen on earlier pages/,
    );
    expect(await productIds('looping')).toEqual(products);
    expect(Number((await runs.query('looping', 'SELECT count(*) AS n FROM segment_size'))[0]!['n'])).toBe(9);
  }, 60_000);

  it('that passes max_list_pages fails only the streams that need it, naming the option', async () => {
    await writeFile(
      runs.pipelinePath,
      PIPELINE.replace('start_date: 2025-03-01', 'start_date: 2025-03-01\nmax_list_pages: 2').replace(
        '  canvas_details: { canvases: all }\n',
        '',
      ),
    );
    try {
      // Pages of 3: the product list has a third page, one more than the cap.
      const summary = await runVariant('capped', { lists: { pageSize: 3 } });
      expect(summary.failedStreams.map((f) => f.stream)).toEqual(['products']);
      expect(summary.failedStreams[0]!.error).toMatch(
        /GET \/purchases\/product_list: the list is still going at page 3 \(page=2\), past maxPages=2; .*raise max_list_pages/,
      );
      expect(Number((await runs.query('capped', 'SELECT count(*) AS n FROM segment_size'))[0]!['n'])).toBe(9);
    } finally {
      await writeFile(runs.pipelinePath, PIPELINE);
    }
  }, 60_000);
});

describe('what a list says about its objects', () => {
  const CANVASES_ONLY = `
name: canvases
start_date: 2025-03-01
streams:
  canvas_details: { canvases: all }
`;
  let only: PipelineRuns;
  let canvases: string[];

  const removed = async (name: string, table: 'listed_objects' | 'canvases'): Promise<number> =>
    Number((await only.query(name, `SELECT count(*) AS n FROM ${table} WHERE _removed_at IS NOT NULL`))[0]!['n']);

  /** A run of the Canvas-only pipeline through a variant; returns its summary and the /canvas/details requests it sent. */
  async function run(
    name: string,
    options: VariantOptions,
    until = NOW,
  ): Promise<{ summary: RunSummary; details: number }> {
    const { summary, variant } = await only.runThrough(emulator, { name, from: FROM, until }, options);
    return { summary, details: variant.stats.byPath['/canvas/details'] ?? 0 };
  }

  beforeAll(async () => {
    only = await PipelineRuns.create(CANVASES_ONLY);
    await only.run({ name: 'direct', baseUrl: emulator.url, apiKey: emulator.demoApiKey, from: FROM, until: NOW });
    canvases = (await only.query('direct', 'SELECT canvas_id FROM canvases ORDER BY canvas_id')).map((r) =>
      String(r['canvas_id']),
    );
  }, 60_000);

  afterAll(async () => only?.close());

  it('a list that shrinks by more than half for one read is read again, warned about, and removes nothing', async () => {
    expect(canvases.length).toBeGreaterThan(2);
    await run('shrink', {});
    // The first read lists one Canvas; the second, all of them.
    let reads = 0;
    const { summary } = await run('shrink', {
      listEntries: (path, entries, page) => {
        if (path !== '/canvas/list') return entries;
        if (page === 0) reads++;
        return reads > 1 ? entries : page === 0 ? entries.slice(0, 1) : [];
      },
    });
    expect(summary.warnings.map((w) => w.code)).toEqual(['list_shrank']);
    expect(summary.warnings[0]!.message).toMatch(
      new RegExp(
        `GET /canvas/list listed 1 canvases where ${canvases.length} are stored; read again, it listed ${canvases.length}\\. The reads disagree`,
      ),
    );
    expect([await removed('shrink', 'listed_objects'), await removed('shrink', 'canvases')]).toEqual([0, 0]);
  }, 60_000);

  it('a list that shrinks in both reads marks the missing objects removed, and says so', async () => {
    const { summary } = await run('shrink', {
      listEntries: (path, entries, page) => (path !== '/canvas/list' ? entries : page === 0 ? entries.slice(0, 1) : []),
    });
    expect(summary.warnings.map((w) => w.code)).toEqual(['list_shrank']);
    expect(summary.warnings[0]!.message).toMatch(
      new RegExp(`Both reads agree: the ${canvases.length - 1} missing are marked removed`),
    );
    expect([await removed('shrink', 'listed_objects'), await removed('shrink', 'canvases')]).toEqual([
      canvases.length - 1,
      canvases.length - 1,
    ]);
  }, 60_000);

  it('an entry that turns archived without a new last_edited has its details read again', async () => {
    await run('archived', {});
    const archive = (path: string, entries: Record<string, unknown>[]) =>
      path === '/canvas/list' ? entries.map((e) => (e['id'] === canvases[0] ? { ...e, archived: true } : e)) : entries;
    expect((await run('archived', { listEntries: archive })).details).toBe(1);
    expect((await run('archived', { listEntries: archive })).details).toBe(0);
    const [row] = await only.query('archived', `SELECT attributes FROM listed_objects WHERE id = '${canvases[0]}'`);
    expect(JSON.parse(String(row!['attributes']))).toMatchObject({ archived: true });
  }, 60_000);

  it('entries without a usable last_edited are re-read once a week, with a note', async () => {
    const undated = (path: string, entries: Record<string, unknown>[]) =>
      path === '/canvas/list' ? entries.map(({ last_edited: _gone, ...e }) => e) : entries;
    await run('undated', {});
    const first = await run('undated', { listEntries: undated });
    expect(first.summary.status).toBe('succeeded');
    expect(first.details).toBe(canvases.length);
    const sameWeek = await run('undated', { listEntries: undated }, '2025-03-16T00:00:00Z');
    expect(sameWeek.details).toBe(0);
    expect(sameWeek.summary.warnings).toEqual([]);
    const weekLater = await run('undated', { listEntries: undated }, '2025-03-17T00:00:00Z');
    expect(weekLater.details).toBe(canvases.length);
    expect(weekLater.summary.warnings.map((w) => [w.code, w.stream])).toEqual([
      ['objects_reread_without_edit_time', 'canvas_details'],
    ]);
    expect(weekLater.summary.warnings[0]!.message).toMatch(
      new RegExp(
        `^${canvases.length} listed object\\(s\\) of canvas_details have no usable last_edited .* re-read every 7 days`,
      ),
    );
  }, 90_000);
});
