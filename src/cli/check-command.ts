// `engage-etl check`: tests a key and base URL before the nightly run — one cheap request per stream of the pipeline
// file, reporting per stream reachable / permission missing (named) / error, and the rate-limit headroom the server
// reports. Exit 0 when every stream is readable, 2 (configuration) otherwise. `--permissions` prints, without any
// request, the permission each stream needs (the README's table is this output).
import { Command } from 'commander';
import { DateTime } from 'luxon';
import { ApiClient } from '../api/api-client.js';
import { DEFAULT_PIPELINE_PATH } from '../config/default-paths.js';
import { STREAM_NAMES } from '../config/pipeline-definition.js';
import { resolveRunOptions } from '../config/run-options.js';
import type { RawRunFlags } from '../config/run-options.js';
import { createEmulator } from '../emulator/server.js';
import type { Emulator } from '../emulator/server.js';
import { ConfigError } from '../errors.js';
import { checkStreams, headroomRecorder } from '../pipeline/check-streams.js';
import type { CheckReport, StreamCheck } from '../pipeline/check-streams.js';
import { streamDeclaration } from '../streams/registry.js';

interface CheckFlags extends RawRunFlags {
  permissions?: boolean;
}

/** The permission each stream needs, as the Markdown table the README shows. */
export function permissionsTable(): string {
  const rows = STREAM_NAMES.map((s) => {
    const { endpoint } = streamDeclaration(s);
    return `| ${s} | \`${endpoint.permission ?? ''}\` | \`${endpoint.method} ${endpoint.path}\` | ${endpoint.pool} |`;
  });
  return ['| stream | permission the key needs | endpoint | limit pool |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

export function makeCheckCommand(): Command {
  return new Command('check')
    .description('Test the key and base URL: one cheap request per stream of the pipeline file, naming any missing permission.')
    .option('--pipeline <file>', 'pipeline definition (YAML or JSON)', DEFAULT_PIPELINE_PATH)
    .option('--base-url <url>', 'REST base URL of your instance (or ENGAGE_BASE_URL)')
    .option('--api-key <key>', 'REST API key (or ENGAGE_API_KEY, also read from ./.env); never stored or logged')
    .option('--emulator', 'check against the built-in emulator')
    .option('--streams <list>', 'comma-separated streams to check (default: all in the pipeline file)')
    .option('--json', 'print the report as one JSON line')
    .option('--permissions', 'print the permission each stream needs (Markdown) and send nothing')
    .addHelpText('after', '\nExamples:\n  engage-etl check --base-url https://rest.example.com\n  engage-etl check --emulator --json\n  engage-etl check --permissions\n\nExit 0: every stream readable; 2: a permission is missing, the key is refused or the base URL does not answer.')
    .action(async (flags: CheckFlags) => {
      if (flags.permissions) {
        process.stdout.write(`${permissionsTable()}\n`);
        return;
      }
      const opts = resolveRunOptions(flags, process.env, DateTime.utc());
      let emulator: Emulator | undefined;
      let client: ApiClient | undefined;
      try {
        let baseUrl = opts.baseUrl;
        let apiKey = opts.apiKey;
        if (opts.emulator) {
          emulator = await createEmulator({ seed: 1 });
          baseUrl = emulator.url;
          apiKey ??= emulator.demoApiKey;
        }
        const recorder = headroomRecorder();
        // Seconds, not the nightly run's patience: a check that waits minutes on a dead host checks nothing.
        client = ApiClient.create({
          baseUrl: baseUrl!,
          apiKey: apiKey!,
          maxAttempts: 2,
          maxRetryWaitMs: 2_000,
          timeoutMs: 10_000,
          retryAdvice: 'check --base-url and the network, then check again',
          onEvent: (e) => {
            if (e.type === 'request-finished') recorder.record(e.pool, e.rateLimit);
          },
        });
        const endingAt = DateTime.utc().startOf('day').minus({ milliseconds: 1 }).toISO()!;
        const streams = await checkStreams(client, opts.pipeline, opts.streams, endingAt);
        const report: CheckReport = { streams, headroom: recorder.headroom(), ok: streams.every((s) => s.outcome === 'ok') };
        const source = opts.emulator ? 'built-in emulator' : baseUrl!;
        process.stdout.write(opts.json ? `${JSON.stringify({ source, pipeline: opts.pipeline.name, ...report })}\n` : formatCheck(report, source, opts.pipeline.name));
        if (!report.ok) throw new ConfigError(problemOf(streams), fixOf(streams, opts.pipelinePath));
      } finally {
        await client?.close();
        await emulator?.close();
      }
    });
}

function problemOf(streams: StreamCheck[]): string {
  const bad = streams.filter((s) => s.outcome !== 'ok');
  if (bad.every((s) => s.outcome === 'unauthorized')) return 'the API key';
  if (bad.every((s) => s.outcome === 'unreachable')) return 'the base URL';
  return `${bad.length} of ${streams.length} streams`;
}

function fixOf(streams: StreamCheck[], pipelinePath: string): string {
  const bad = streams.filter((s) => s.outcome !== 'ok');
  if (bad.every((s) => s.outcome === 'unauthorized')) return 'the service refused it (401); pass the key of this instance with --api-key or ENGAGE_API_KEY';
  if (bad.every((s) => s.outcome === 'unreachable')) return `no answer (${bad[0]!.error ?? 'connection failed'}); check --base-url / ENGAGE_BASE_URL (e.g. https://rest.example.com)`;
  const missing = bad.filter((s) => s.outcome === 'missing_permission');
  const parts = [
    ...missing.map((s) => `${s.stream} needs permission ${s.permission}`),
    ...bad.filter((s) => s.outcome !== 'missing_permission').map((s) => `${s.stream}: ${s.error ?? s.outcome}`),
  ];
  return `${parts.join('; ')}${missing.length > 0 ? `; grant the permission to the key, or remove the stream from ${pipelinePath}` : ''}`;
}

export function formatCheck(r: CheckReport, source: string, pipeline: string): string {
  const ok = r.streams.filter((s) => s.outcome === 'ok').length;
  const width = Math.max(6, ...r.streams.map((s) => s.stream.length));
  const label = (s: StreamCheck) => (s.outcome === 'ok' ? 'ok' : s.outcome === 'missing_permission' ? 'MISSING PERMISSION' : s.outcome.toUpperCase());
  const lines = [
    `engage-etl check — pipeline ${pipeline}, source ${source}: ${ok} of ${r.streams.length} streams readable`,
    '',
    `  ${'stream'.padEnd(width)}  ${'result'.padEnd(18)}  ${'permission'.padEnd(26)}  endpoint`,
    ...r.streams.map((s) => `  ${s.stream.padEnd(width)}  ${label(s).padEnd(18)}  ${s.permission.padEnd(26)}  ${s.endpoint}${s.outcome === 'ok' || s.outcome === 'missing_permission' ? '' : ` — ${shortReason(s.error)}`}`),
  ];
  if (r.headroom.length > 0) {
    lines.push('', 'rate-limit headroom the server reports:');
    for (const h of r.headroom) {
      lines.push(`  ${h.pool.padEnd(16)}  ${h.remaining ?? '?'} of ${h.limit ?? '?'} left${h.resetsAt ? `, window resets ${h.resetsAt}` : ''}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The cause inside a give-up message (`last failure: …`), or the message itself. */
function shortReason(error: string | null): string {
  return (error && /last failure: (.*?)\. The service/.exec(error)?.[1]) ?? error ?? '';
}
