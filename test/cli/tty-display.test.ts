// The terminal display under a real pseudo-terminal: tmux runs `engage-etl run` at 40 and at 120 columns, and the final
// screen (the whole scrollback, read with capture-pane) holds exactly one copy of the block — no stale lines left by
// redraws — with the elapsed time and the total line, every line within the width.
import { execFileSync, spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { optionalTool, whenToolMissing } from '../helpers/optional-tool.js';
import type { Target } from '../reliability/reliability-helpers.js';
import { CLI, UNTIL, makeTarget, removeDir, startEmulator, tempDir } from '../reliability/reliability-helpers.js';

const tmuxTool = optionalTool('tmux', 'apt-get install tmux', { command: 'tmux', args: ['-V'] });
const hasTmux = tmuxTool.available;
const SOCKET = `engage-tty-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

describe.runIf(hasTmux)('the terminal display', () => {
  let dir: string;
  let em: Emulator;

  beforeAll(async () => {
    dir = await tempDir('engage-tty-');
    em = await startEmulator({ latencyMs: 5 });
  });
  afterAll(async () => {
    spawnSync('tmux', ['-L', SOCKET, 'kill-server']);
    await em?.close();
    await removeDir(dir);
  });

  async function finalScreen(width: number, t: Target): Promise<string[]> {
    const session = `w${width}`;
    const command = [
      process.execPath,
      CLI,
      'run',
      '--pipeline',
      t.pipeline,
      '--base-url',
      em.url,
      '--db',
      t.db,
      '--out',
      t.out,
      '--until',
      UNTIL,
    ]
      .map(quote)
      .join(' ');
    tmux(
      'new-session',
      '-d',
      '-s',
      session,
      '-x',
      String(width),
      '-y',
      '60',
      `ENGAGE_API_KEY=${quote(em.demoApiKey)} ${command}; echo EXIT=$?; sleep 600`,
    );
    const deadline = Date.now() + 90_000;
    let screen = '';
    while (Date.now() < deadline) {
      screen = tmux('capture-pane', '-p', '-t', session, '-S', '-', '-E', '-');
      if (/EXIT=\d+/.test(screen)) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    tmux('kill-session', '-t', session);
    expect(screen, screen).toMatch(/EXIT=0/);
    return screen.split('\n').map((l) => l.trimEnd());
  }

  it.each([40, 120])(
    'at %i columns leaves one block with the elapsed time and the total, no stale lines',
    async (width) => {
      const t = await makeTarget(dir, `w${width}`);
      const lines = await finalScreen(width, t);
      const headers = lines.filter((l) => / · elapsed /.test(l));
      expect(headers, lines.join('\n')).toHaveLength(1);
      expect(headers[0]).toMatch(/^done · elapsed \d+:\d{2}/);
      const totals = lines.filter((l) => /^ {2}total +\d+%/.test(l));
      expect(totals, lines.join('\n')).toHaveLength(1);
      expect(totals[0]).toMatch(/^ {2}total +100%/);
      for (const stream of ['purchase_quantity', 'sessions', 'custom_events', 'content_blocks']) {
        expect(
          lines.filter((l) => new RegExp(`^ {2}${stream} +\\d+%`).test(l)),
          stream,
        ).toHaveLength(1);
      }
      // The block is drawn at the terminal's width minus one column: no line of it wrapped onto the next.
      const block = lines.slice(lines.indexOf(headers[0]!), lines.indexOf(totals[0]!) + 1);
      // Header, one row per stream and per list discovery reads (custom_events' page), the total.
      expect(block.length).toBe(13);
      for (const l of block) expect(l.length).toBeLessThan(width);
      if (width >= 120) expect(totals[0]).toMatch(/\d+\/\d+ req [\d,]+ rows/);
    },
    120_000,
  );
});

whenToolMissing(tmuxTool, 'the terminal display under a pseudo-terminal');
