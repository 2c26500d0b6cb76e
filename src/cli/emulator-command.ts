// `engage-etl emulator`: start the local emulator of the platform's REST interface (or print its identifiers with
// --describe) and keep it up until SIGINT/SIGTERM. Flags are validated here, at the boundary.
import { Command } from 'commander';
import { ConfigError } from '../errors.js';
import { createEmulator } from '../emulator/server.js';
import type { EmulatorOptions } from '../emulator/server.js';
import { demoApiKeyFor, loadKeyFile, buildCredentials } from '../emulator/credentials.js';
import { describeWorkspace } from '../emulator/describe-workspace.js';
import { generateWorkspace } from '../emulator/workspace.js';
import { Clock } from '../emulator/clock.js';
import { parseSeriesFaultFlag } from '../emulator/series-faults.js';
import type { Emulator } from '../emulator/server.js';
import type { IdStyle, WorkspaceSize } from '../emulator/analytics/workspace-size.js';
import { ID_STYLES, MAX_OBJECTS, SIZE_PRESETS } from '../emulator/analytics/workspace-size.js';

/** Raw commander values of the emulator command. */
export interface RawEmulatorFlags {
  port: string;
  host: string;
  seed: string;
  now?: string;
  latencyMs: string;
  faultRate: string;
  keys?: string;
  limitScale: string;
  limitWindowScale: string;
  rateLimits: boolean;
  seriesFault?: string[];
  describe?: boolean;
  size?: string;
  apps?: string;
  products?: string;
  segments?: string;
  events?: string;
  canvases?: string;
  campaigns?: string;
  idStyle?: string;
}

function number(flag: string, raw: string, check: (n: number) => boolean, expected: string): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || !check(n))
    throw new ConfigError(flag, `must be ${expected}, got "${raw}"`);
  return n;
}

/** Turn the raw flags into emulator options; every bad flag is a ConfigError naming it. */
export function resolveEmulatorFlags(flags: RawEmulatorFlags): EmulatorOptions {
  const seed = number(
    '--seed',
    flags.seed,
    (n) => Number.isInteger(n) && n >= 0 && n <= 2 ** 32 - 1,
    'an integer from 0 to 4294967295',
  );
  const opts: EmulatorOptions = {
    seed,
    port: number(
      '--port',
      flags.port,
      (n) => Number.isInteger(n) && n >= 0 && n <= 65_535,
      'an integer from 0 to 65535 (0 picks a free port)',
    ),
    host: flags.host,
    latencyMs: number(
      '--latency-ms',
      flags.latencyMs,
      (n) => n >= 0 && n <= 60_000,
      'a number of milliseconds from 0 to 60000',
    ),
    faultRate: number(
      '--fault-rate',
      flags.faultRate,
      (n) => n >= 0 && n <= 1,
      'a probability from 0 to 1 (e.g. 0.05)',
    ),
    limitScale: number(
      '--limit-scale',
      flags.limitScale,
      (n) => n > 0,
      'a number > 0 (0.01 makes every limit 100 times smaller)',
    ),
    limitWindowScale: number('--limit-window-scale', flags.limitWindowScale, (n) => n > 0, 'a number > 0'),
    rateLimits: flags.rateLimits,
  };
  if (flags.host.trim() === '') throw new ConfigError('--host', 'must be an interface address such as 127.0.0.1');
  if (flags.now !== undefined) {
    try {
      new Clock(flags.now);
    } catch {
      throw new ConfigError('--now', `"${flags.now}" is not an ISO 8601 instant; write e.g. 2025-06-15T12:00:00Z`);
    }
    opts.now = flags.now;
  }
  if (flags.seriesFault !== undefined && flags.seriesFault.length > 0)
    opts.seriesFaults = flags.seriesFault.map(parseSeriesFaultFlag);
  if (flags.keys !== undefined) opts.keys = loadKeyFile(flags.keys, demoApiKeyFor(seed));
  const size = resolveSize(flags);
  if (size !== undefined) opts.size = size;
  const idStyle = flags.idStyle ?? 'demo';
  if (!(ID_STYLES as readonly string[]).includes(idStyle))
    throw new ConfigError('--id-style', `must be one of ${ID_STYLES.join(', ')}, got "${idStyle}"`);
  opts.idStyle = idStyle as IdStyle;
  return opts;
}

/** `--size PRESET`, then each count flag over it (`--size 2k --segments 50`). */
function resolveSize(flags: RawEmulatorFlags): WorkspaceSize | undefined {
  let size: WorkspaceSize | undefined;
  if (flags.size !== undefined) {
    const preset = SIZE_PRESETS[flags.size];
    if (preset === undefined)
      throw new ConfigError(
        '--size',
        `"${flags.size}" is not a size; use one of ${Object.keys(SIZE_PRESETS).join(', ')}, or give counts with --canvases N, --campaigns N …`,
      );
    size = { ...preset };
  }
  for (const kind of ['apps', 'products', 'segments', 'events', 'canvases', 'campaigns'] as const) {
    const raw = flags[kind];
    if (raw === undefined) continue;
    const least = kind === 'apps' || kind === 'events' ? 1 : 0;
    size = {
      ...size,
      [kind]: number(
        `--${kind}`,
        raw,
        (n) => Number.isInteger(n) && n >= least && n <= MAX_OBJECTS,
        `an integer from ${least} to ${MAX_OBJECTS}`,
      ),
    };
  }
  return size;
}

export function makeEmulatorCommand(): Command {
  return new Command('emulator')
    .description("Run a local emulator of the platform's REST API (seeded data, real limits, optional faults)")
    .option('--port <n>', 'TCP port (0 picks a free one)', '4010')
    .option('--host <address>', 'interface to listen on', '127.0.0.1')
    .option('--seed <n>', 'seed of the generated workspace', '1')
    .option('--now <iso>', 'freeze the emulator clock at this ISO 8601 instant (default: real time)')
    .option('--latency-ms <n>', 'delay every answer by this many milliseconds', '0')
    .option('--fault-rate <p>', 'probability (0..1) of an injected fault per request', '0')
    .option('--keys <file>', 'JSON file of extra API keys: { "keys": [ { "key", "name", "permissions" } ] }')
    .option('--limit-scale <x>', "multiply every rate-limit pool's limit", '1')
    .option('--limit-window-scale <x>', "multiply every rate-limit pool's window length", '1')
    .option('--no-rate-limits', 'never answer 429 for an exhausted pool')
    .option(
      '--series-fault <spec>',
      'alter series answers, e.g. endpoint=sessionsDataSeries,mode=drop_all,times=1 (modes drop_all, drop_point, conflicting_duplicate, outside_window; optional at=<time>, times=<n>, rate=<p>; other keys match query values); repeatable',
      (spec: string, all: string[]) => [...all, spec],
      [] as string[],
    )
    .option(
      '--size <preset>',
      `a workspace of a named size instead of the demo's: ${Object.keys(SIZE_PRESETS).join(', ')} (Canvases and campaigns)`,
    )
    .option('--apps <n>', 'number of apps (with --size: instead of its count)')
    .option('--products <n>', 'number of products')
    .option('--segments <n>', 'number of segments')
    .option('--events <n>', 'number of custom event names')
    .option('--canvases <n>', 'number of Canvases')
    .option('--campaigns <n>', 'number of campaigns')
    .option(
      '--id-style <style>',
      'ids as the demo writes them (app_1, cv_3) or as the platform issues them (uuid)',
      'demo',
    )
    .option('--describe', 'print the workspace identifiers (apps, products, Canvases, keys...) as JSON and exit')
    .action(async (flags: RawEmulatorFlags) => {
      const opts = resolveEmulatorFlags(flags);
      if (flags.describe) {
        const seed = opts.seed ?? 1;
        const workspace = generateWorkspace(
          { seed, shape: { size: opts.size ?? {}, idStyle: opts.idStyle ?? 'demo' } },
          buildCredentials(seed, opts.keys ?? []),
        );
        process.stdout.write(`${JSON.stringify(describeWorkspace(workspace), null, 2)}\n`);
        return;
      }
      const emulator = await createEmulator(opts);
      process.stdout.write(
        [
          `engage-etl emulator (seed ${opts.seed}${describeShape(emulator)}) listening on ${emulator.url}`,
          `demo API key (a local fake with every permission): ${emulator.demoApiKey}`,
          `SCIM token: ${emulator.scimToken}`,
          `try: curl -H "Authorization: Bearer ${emulator.demoApiKey}" "${emulator.url}/purchases/quantity_series?length=7"`,
          'identifiers: engage-etl emulator --describe; stop with Ctrl-C',
          '',
        ].join('\n'),
      );
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve();
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      await emulator.close();
      process.stdout.write('engage-etl emulator stopped\n');
    });
}

/** `, 2,000 Canvases, 2,000 campaigns, 400 segments`: what the listening line says of the workspace's size. */
function describeShape(emulator: Emulator): string {
  const a = emulator.state.analytics;
  const n = (count: number, what: string) => `${count.toLocaleString('en-US')} ${what}`;
  return `, ${n(a.canvases.length, 'Canvases')}, ${n(a.campaigns.length, 'campaigns')}, ${n(a.segments.length, 'segments')}, ${n(a.products.length, 'products')}, ${n(a.eventNames.length, 'events')}, ${n(a.apps.length, 'apps')}`;
}
