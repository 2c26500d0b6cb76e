// No flag in the docs goes stale: every `engage-etl …` command line in README.md and docs/ (recipes included) is parsed
// by the CLI's own commander program, with every action replaced by a no-op. A synopsis line (`[--db FILE]`,
// `<target>`) is checked flag by flag against its command's options. The README's shell blocks are run too (below).
import { spawn } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Command } from 'commander';
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { makeProgram } from '../../src/cli/main.js';
import { createEmulator } from '../../src/emulator/server.js';
import { REPO } from '../reliability/reliability-helpers.js';

interface Found {
  file: string;
  tokens: string[];
}

async function docFiles(): Promise<string[]> {
  const entries = await readdir(join(REPO, 'docs'), { recursive: true, withFileTypes: true });
  return [join(REPO, 'README.md'), ...entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name))];
}

/** The code of a file: fenced blocks and inline code spans of Markdown, the whole text of anything else. */
function codeOf(file: string, text: string): string[] {
  if (!file.endsWith('.md')) return [text];
  const blocks = [...text.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
  const prose = text.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '');
  return [...blocks, ...[...prose.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!)];
}

/** Shell words after `at`, up to the end of the command (newline, comment, pipe, redirection, `&&`, `;`, closing quote of a string literal). */
function wordsFrom(code: string, at: number, closer: string | undefined): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let i = at;
  const end = () => {
    if (word !== undefined) words.push(word);
    word = undefined;
  };
  while (i < code.length) {
    const c = code[i]!;
    if (closer !== undefined && c === closer) break;
    if (c === '\\' && code[i + 1] === '\n') {
      i += 2;
      continue;
    }
    if (c === '\n') break;
    if (c === ' ' || c === '\t') {
      end();
      i++;
      continue;
    }
    if (word === undefined && (c === '#' || c === '|' || c === '>' || c === ';' || c === '&' || c === ')')) break;
    if (c === '"' || c === "'") {
      const close = code.indexOf(c, i + 1);
      word = (word ?? '') + code.slice(i + 1, close).replace(/\\"/g, '"');
      i = close + 1;
      continue;
    }
    word = (word ?? '') + c;
    i++;
  }
  end();
  return words;
}

function commandsIn(file: string, text: string): Found[] {
  const found: Found[] = [];
  for (const code of codeOf(file, text)) {
    for (const m of code.matchAll(/(?<![\w/.-])engage-etl(?![\w./-])|bin\/engage-etl\.js(?![\w.])/g)) {
      const after = m.index + m[0].length;
      if (code[after] !== ' ') continue; // an image or unit name, or a list element (checked in recipes.test.ts)
      const quote =
        code[m.index - 1] === '"' || /"[\w/.]*$/.test(code.slice(Math.max(0, m.index - 40), m.index)) ? '"' : undefined;
      const tokens = wordsFrom(code, after, quote);
      if (tokens.length > 0) found.push({ file: relative(REPO, file), tokens });
    }
  }
  return found;
}

/** The program with silent output, errors thrown, and every action a no-op. */
function parser(): Command {
  const program = makeProgram();
  for (const cmd of [program, ...program.commands]) {
    cmd.exitOverride().configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
    if (cmd !== program) cmd.action(() => undefined);
  }
  return program;
}

const SYNOPSIS = /[[\]()<>|…]/;

describe('every engage-etl command line in the docs', async () => {
  const files = await docFiles();
  const all = (await Promise.all(files.map(async (f) => commandsIn(f, await readFile(f, 'utf8'))))).flat();
  const names = parser().commands.map((c) => c.name());
  const checked = all.filter((c) => names.includes(c.tokens[0]!) || c.tokens[0]!.startsWith('-'));

  it('are many, from the README, the docs and every recipe that calls the CLI', () => {
    expect(checked.length).toBeGreaterThan(40);
    const where = new Set(checked.map((c) => c.file));
    for (const f of [
      'README.md',
      'docs/push.md',
      'docs/emulator.md',
      'docs/recipes/crontab',
      'docs/recipes/engage-etl.service',
      'docs/recipes/github-actions-nightly.yml',
      'docs/recipes/airflow_engage_etl.py',
      'docs/recipes/dagster_engage_etl.py',
      'docs/recipes/Dockerfile',
    ]) {
      expect(where, f).toContain(f);
    }
  });

  it.each(checked.map((c) => [`${c.file}: engage-etl ${c.tokens.join(' ').slice(0, 90)}`, c] as const))(
    '%s',
    (_label, c) => {
      const program = parser();
      if (SYNOPSIS.test(c.tokens.join(' '))) {
        const cmd = program.commands.find((x) => x.name() === c.tokens[0])!;
        for (const flag of c.tokens.join(' ').match(/--[a-z][a-z-]*/g) ?? []) {
          expect(
            cmd.options.some((o) => o.long === flag) || flag === '--help',
            `${flag} is not an option of ${cmd.name()}`,
          ).toBe(true);
        }
        return;
      }
      try {
        program.parse(c.tokens, { from: 'user' });
      } catch (err) {
        if (err instanceof CommanderError && err.exitCode === 0) return; // --help, --version
        throw err;
      }
    },
  );
});

// The README's shell blocks are also RUN, in order, in one folder holding the clone's pipelines/, as a user copies them
// after `npm install`:
// `npx engage-etl` is a shim onto this clone's bin, the real service is the emulator (the only edits: its URL for
// https://rest.example.com, its keys and ids for the <placeholders> and `...`). Blocks it cannot run are skipped, each
// for the reason SKIPPED names; every other block must exit 0.
const SKIPPED: readonly { why: string; test: RegExp }[] = [
  {
    why: 'npm install / test / start: the install step, the suite this test is part of, and the demo run other tests cover',
    test: /\bnpm (install|test|start)\b/,
  },
  { why: 'object storage: run against s3rver by test/store/object-storage.test.ts', test: /s3:\/\// },
  { why: 'a synopsis, not a command: its flags are parsed above', test: /\[--|<target>|\(--sql/ },
  {
    why: 'starts the emulator, which serves until stopped (the test starts its own)',
    test: /engage-etl emulator\s*(#|$)/m,
  },
];

describe("the README's shell blocks, run as written", async () => {
  const readme = await readFile(join(REPO, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((m) => ({
    line: readme.slice(0, m.index).split('\n').length,
    code: m[1]!,
  }));
  const skipped = blocks.map((b) => ({ ...b, why: SKIPPED.find((s) => s.test.test(b.code))?.why }));

  it('runs most of them and says why it skips the others', () => {
    const ran = skipped.filter((b) => b.why === undefined);
    expect(ran.length).toBeGreaterThanOrEqual(5);
    for (const b of skipped.filter((x) => x.why !== undefined)) expect(b.why, `line ${b.line}`).toMatch(/\w/);
  });

  it('every block it can run exits 0, in order, in one fresh folder', async () => {
    const em = await createEmulator({
      seed: 1,
      size: { canvases: 6, campaigns: 6, segments: 6, products: 4, events: 6 },
    });
    const dir = await mkdtemp(join(tmpdir(), 'engage-readme-'));
    try {
      const bin = join(dir, '.bin');
      await mkdir(bin);
      // The clone's files the commands read by default (pipelines/nightly.yaml), as in a fresh clone.
      await cp(join(REPO, 'pipelines'), join(dir, 'pipelines'), { recursive: true });
      await writeFile(
        join(bin, 'npx'),
        `#!/bin/sh\n[ "$1" = engage-etl ] || exit 127\nshift\nexec "${process.execPath}" "${join(REPO, 'bin', 'engage-etl.js')}" "$@"\n`,
      );
      await chmod(join(bin, 'npx'), 0o755);
      const scim = [...em.state.people.dashboardUsers.values()][0]!.id;
      const fill = (code: string) =>
        code
          .replaceAll('https://rest.example.com', em.url)
          .replaceAll('<your REST API key>', em.demoApiKey)
          .replaceAll('ENGAGE_API_KEY=...', `ENGAGE_API_KEY=${em.demoApiKey}`)
          .replaceAll('<token>', em.scimToken)
          .replaceAll('<scim id>', scim);
      const env = {
        PATH: `${bin}:${process.env['PATH'] ?? ''}`,
        HOME: dir,
        TZ: 'UTC',
        ENGAGE_BASE_URL: em.url,
        ENGAGE_API_KEY: em.demoApiKey,
      };
      for (const b of skipped.filter((x) => x.why === undefined)) {
        const r = await bash(fill(b.code), dir, env);
        expect(r.status, `README.md:${b.line}\n${b.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`).toBe(0);
      }
    } finally {
      await em.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 600_000);
});

/** Runs `script` with `bash -e` (asynchronously: the emulator answers from this process meanwhile). */
function bash(
  script: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('bash', ['-e', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', reject);
    child.once('close', (status) => resolvePromise({ status, stdout, stderr }));
  });
}
