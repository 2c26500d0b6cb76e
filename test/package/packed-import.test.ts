// The package as a user gets it: `npm pack`, install the tarball into a fresh project, import by name and run a pipeline
// against the emulator. Catches a `main`/`exports` that points at nothing, a file left out of the tarball, or a public
// name that is not exported.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');

describe('the packed package', () => {
  let dir: string;
  let project: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engage-pack-'));
    project = join(dir, 'project');
    // --ignore-scripts: the suite has just built dist/ (npm test builds first); packing must not rebuild under vitest.
    await run('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], { cwd: ROOT });
    const tarball = (await readdir(dir)).find((f) => f.endsWith('.tgz'))!;
    await run('mkdir', ['-p', project]);
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({ name: 'user-project', version: '1.0.0', type: 'module', private: true }),
    );
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(dir, tarball)], {
      cwd: project,
      timeout: 240_000,
    });
  }, 300_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('imports by name and runs a pipeline against the emulator, as the README shows', async () => {
    await writeFile(
      join(project, 'pipeline.yaml'),
      [
        'name: lib',
        'start_date: 2025-01-01',
        'streams:',
        '  revenue: { apps: ["*"], products: ["*"] }',
        '  canvas_summary: { canvases: [cv_1] }',
        '',
      ].join('\n'),
    );
    await writeFile(
      join(project, 'main.mjs'),
      `
import { createEmulator, loadPipelineFile, resolveRunOptions, runPipeline, runPush, Warehouse, WAREHOUSE_TABLES } from 'engage-etl';
import { DateTime } from 'luxon';
const emulator = await createEmulator({ seed: 1, now: '2025-03-01T06:00:00Z' });
try {
  const pipeline = loadPipelineFile('pipeline.yaml');
  const opts = resolveRunOptions({ pipeline: 'pipeline.yaml', baseUrl: emulator.url, apiKey: emulator.demoApiKey, db: 'out/lib.duckdb', out: 'out/parquet', until: '2025-03-01T06:00:00Z' }, {}, DateTime.fromISO('2025-03-01T06:01:00Z'));
  const summary = await runPipeline(opts);
  const wh = await Warehouse.open('out/lib.duckdb', WAREHOUSE_TABLES, { readOnly: true });
  const [row] = await wh.query('SELECT count(*) AS n FROM revenue');
  await wh.close();
  console.log(JSON.stringify({ streams: pipeline.streamNames, status: summary.status, revenueRows: row.n, runPush: typeof runPush }));
} finally {
  await emulator.close();
}
`,
    );
    // luxon comes with engage-etl as its dependency; the user's script borrows it for the --until instant.
    const { stdout } = await run('node', ['main.mjs'], { cwd: project, timeout: 120_000 });
    const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(result).toEqual({
      streams: ['revenue', 'canvas_summary'],
      status: 'succeeded',
      revenueRows: 60,
      runPush: 'function',
    });
  }, 180_000);

  it('does not expose internals by deep import, nor the helpers taken out of the public surface', async () => {
    await writeFile(
      join(project, 'deep.mjs'),
      `
const lib = await import('engage-etl');
let deep = 'refused';
try { await import('engage-etl/dist/src/api/paginate-link.js'); deep = 'allowed'; } catch {}
console.log(JSON.stringify({ paginateLink: typeof lib.paginateLink, parseLinkHeader: typeof lib.parseLinkHeader, expectSuccess: typeof lib.expectSuccess, deep }));
`,
    );
    const { stdout } = await run('node', ['deep.mjs'], { cwd: project, timeout: 60_000 });
    expect(JSON.parse(stdout.trim())).toEqual({
      paginateLink: 'undefined',
      parseLinkHeader: 'undefined',
      expectSuccess: 'undefined',
      deep: 'refused',
    });
  }, 60_000);
});
