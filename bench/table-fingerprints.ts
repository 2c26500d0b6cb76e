// What a run stored, as one fingerprint per table: its row count and the md5 of its rows in order, over the columns a
// user reads (bookkeeping columns, whose names start with `_`, carry run ids and load times and are left out). Two
// builds of engage-etl that load the same workspace to the same `--until` must give equal fingerprints; the test of
// the load path compares today's with those of the code before load packages, stored in test/fixtures.
//
//   node dist/bench/table-fingerprints.js <repo> <demo|2k|…> <from> <until> <pipeline.yaml> <out.json>
// runs `<repo>`'s emulator (clock frozen at `until`) and `<repo>`'s `run` against it in child processes, then writes
// the fingerprints of the database it produced: the same command serves an older checkout and this one.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { EmulatorProcess } from './emulator-process.js';

export interface TableFingerprint {
  columns: string[];
  rows: number;
  md5: string;
}

export type Fingerprints = Record<string, TableFingerprint>;

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * The fingerprint of every user table of the database at `dbPath` (not the `_etl` bookkeeping). With `columns` given
 * for a table, its fingerprint covers just those, in that order, so a table that gained a column still compares.
 */
export async function tableFingerprints(
  dbPath: string,
  columns: Readonly<Record<string, readonly string[]>> = {},
): Promise<Fingerprints> {
  const instance = await DuckDBInstance.create(dbPath, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  try {
    const tables = (
      await conn.runAndReadAll(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' AND table_type = 'BASE TABLE' AND table_name NOT LIKE '\\_%' ESCAPE '\\' ORDER BY 1`,
      )
    )
      .getRowObjects()
      .map((r) => String(r['table_name']));
    const out: Fingerprints = {};
    for (const table of tables) {
      const own = (
        await conn.runAndReadAll(
          `SELECT column_name FROM information_schema.columns WHERE table_schema = 'main' AND table_name = '${table.replaceAll("'", "''")}' ORDER BY ordinal_position`,
        )
      )
        .getRowObjects()
        .map((r) => String(r['column_name']))
        .filter((c) => !c.startsWith('_'));
      const chosen = columns[table] ? [...columns[table]] : own;
      const missing = chosen.filter((c) => !own.includes(c));
      if (missing.length > 0) throw new Error(`table ${table} lacks the column(s) ${missing.join(', ')}`);
      const row = chosen.length === 0 ? `''` : `CAST(ROW(${chosen.map(quote).join(', ')}) AS VARCHAR)`;
      const [result] = (
        await conn.runAndReadAll(
          `SELECT count(*) AS n, md5(coalesce(string_agg(r, chr(10) ORDER BY r), '')) AS h FROM (SELECT ${row} AS r FROM ${quote(table)})`,
        )
      ).getRowObjects();
      out[table] = { columns: chosen, rows: Number(result!['n']), md5: String(result!['h']) };
    }
    return out;
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/** Runs `node <repo>/bin/engage-etl.js <args>` in `cwd`; resolves with its stdout, rejects with its stderr's tail. */
function cli(repo: string, args: readonly string[], cwd: string, expectExit: readonly number[] = [0]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(repo, 'bin/engage-etl.js'), ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    child.on('error', reject);
    child.on('close', (code) =>
      expectExit.includes(code ?? -1)
        ? resolve(out)
        : reject(new Error(`engage-etl ${args[0]} exited ${String(code)}: ${err}`)),
    );
  });
}

export interface FingerprintRun {
  /** The checkout whose `bin/engage-etl.js` serves the emulator and runs the pipeline. */
  repo: string;
  /** The emulator's size preset (`demo` for the demo workspace). */
  size: string;
  from: string;
  until: string;
  /** The pipeline file's text. */
  pipeline: string;
}

/** Starts `run.repo`'s emulator, runs the pipeline against it into a temp folder, and fingerprints what it stored. */
export async function fingerprintRun(
  run: FingerprintRun,
  columns: Readonly<Record<string, readonly string[]>> = {},
): Promise<Fingerprints> {
  const dir = await mkdtemp(join(tmpdir(), 'engage-etl-fingerprint-'));
  const emulator = await EmulatorProcess.create(run.size, run.until, {
    rateLimits: false,
    ids: run.size === 'demo' ? 'demo' : 'uuid',
    repo: run.repo,
  });
  try {
    const { url, apiKey } = emulator;
    await writeFile(join(dir, 'pipeline.yaml'), run.pipeline);
    await cli(
      run.repo,
      [
        'run',
        '--pipeline',
        'pipeline.yaml',
        '--base-url',
        url,
        '--api-key',
        apiKey,
        '--from',
        run.from,
        '--until',
        run.until,
        '--db',
        'w.duckdb',
        '--out',
        'lake',
        '--quiet',
      ],
      dir,
    );
    return await tableFingerprints(join(dir, 'w.duckdb'), columns);
  } finally {
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const [repo, size, from, until, pipelineFile, outFile] = process.argv.slice(2);
  if (!repo || !size || !from || !until || !pipelineFile || !outFile) {
    process.stderr.write(
      'usage: node dist/bench/table-fingerprints.js <repo> <size> <from> <until> <pipeline.yaml> <out.json>\n',
    );
    process.exit(2);
  }
  const { readFile } = await import('node:fs/promises');
  const pipeline = await readFile(pipelineFile, 'utf8');
  const prints = await fingerprintRun({ repo, size, from, until, pipeline });
  await writeFile(outFile, `${JSON.stringify(prints, null, 1)}\n`);
}

if (process.argv[1] && import.meta.filename === process.argv[1]) await main();
