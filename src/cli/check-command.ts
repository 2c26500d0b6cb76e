// `engage-etl check`: tests a key and base URL before the nightly run — one cheap request per stream of the pipeline
// file, reporting per stream reachable / permission missing (named) / error, and the rate-limit headroom the server
// reports, then every id the file names looked up in the workspace (check-ids.ts). Exit 0 when every stream is readable
// and every id known, 2 (configuration) otherwise. `--permissions` prints, without any
// request, the permission each stream needs (the README's table is this output); `--list` prints what the key can see
// in the workspace (ids and names of each list), so a user names their own ids.
import { Command } from 'commander';
import { DateTime } from 'luxon';
import { ApiClient } from '../api/api-client.js';
import { DEFAULT_PIPELINE_PATH } from '../config/default-paths.js';
import { STREAM_NAMES } from '../config/pipeline-definition.js';
import { resolveRunOptions } from '../config/run-options.js';
import type { RawRunFlags } from '../config/run-options.js';
import { EXIT } from './exit-codes.js';
import { reportedAsJson, withJsonFailure, writeJsonLine } from './json-line.js';
import { withSource } from './run-command.js';
import { ConfigError } from '../errors.js';
import { checkIds, unknownIdLine } from '../pipeline/check-ids.js';
import type { IdCheck } from '../pipeline/check-ids.js';
import { checkStreams, headroomRecorder } from '../pipeline/check-streams.js';
import { permissionsOf } from '../pipeline/stream-endpoints.js';
import type { CheckOutcome, CheckReport } from '../pipeline/check-streams.js';
import { readInventory } from '../pipeline/workspace-inventory.js';
import type { InventoryList } from '../pipeline/workspace-inventory.js';
import { streamDeclaration } from '../streams/registry.js';
import { printable } from '../text/printable-text.js';

interface CheckFlags extends RawRunFlags {
  permissions?: boolean;
  list?: boolean;
}

/**
 * The permissions each stream needs, as the Markdown table the README shows: those of its default options, and those
 * some option values add (a list for `all`, Canvas `source: data_summary`), all derived from the declarations.
 */
export function permissionsTable(): string {
  const code = (p: string) => `\`${p}\``;
  const rows = streamPermissions().map((s) => {
    const also = Object.entries(s.depending)
      .map(([p, when]) => `${code(p)} with ${when.join(' or ')}`)
      .join('; ');
    return `| ${s.stream} | ${s.needs.map(code).join(', ')} | ${also} | \`${s.endpoint}\` | ${s.pool} |`;
  });
  return [
    '| stream | permissions the key needs | also, depending on options | endpoint | limit pool |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

export function makeCheckCommand(): Command {
  return new Command('check')
    .description(
      "Test the key and base URL: one cheap request per stream of the pipeline file, naming any missing permission, and every id the file names looked up in the workspace's lists.",
    )
    .option('--pipeline <file>', 'pipeline definition (YAML or JSON)', DEFAULT_PIPELINE_PATH)
    .option('--base-url <url>', 'REST base URL of your instance (or ENGAGE_BASE_URL)')
    .option('--api-key <key>', 'REST API key (or ENGAGE_API_KEY, also read from ./.env); never stored or logged')
    .option('--emulator', 'check against the built-in emulator')
    .option('--streams <list>', 'comma-separated streams to check (default: all in the pipeline file)')
    .option('--json', 'print the report as one JSON line on stdout (on failure too), with `error` and `exit_code`')
    .option(
      '--permissions',
      'print the permission each stream needs (Markdown; with --json one JSON line) and send nothing',
    )
    .option(
      '--list',
      'print what the key can see: ids and names of every workspace list (Canvases, campaigns, segments…)',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  engage-etl check --base-url https://rest.example.com\n  engage-etl check --emulator --json\n  engage-etl check --permissions\n  engage-etl check --list --base-url https://rest.example.com\n\nExit 0: every stream (with --list: every list) readable and every id the pipeline names known to the workspace; 2: a permission is missing, the key is refused, the base URL does not answer, or an id is unknown (one line per id, with the nearest listed; --json: unknown_ids).',
    )
    .action(async (flags: CheckFlags) =>
      withJsonFailure(flags.json, async () => {
        if (flags.permissions) {
          if (flags.json) writeJsonLine({ streams: streamPermissions() }, EXIT.done, null);
          else process.stdout.write(`${permissionsTable()}\n`);
          return;
        }
        const opts = resolveRunOptions(flags, process.env, DateTime.utc());
        await withSource(opts, async (o, label) => {
          const recorder = headroomRecorder();
          // Seconds, not the nightly run's patience: a check that waits minutes on a dead host checks nothing.
          const client = ApiClient.create({
            baseUrl: o.baseUrl!,
            apiKey: o.apiKey!,
            maxAttempts: 2,
            maxRetryWaitMs: 2_000,
            timeoutMs: 10_000,
            retryAdvice: 'check --base-url and the network, then check again',
            onEvent: (e) => {
              if (e.type === 'request-finished') recorder.record(e.pool, e.rateLimit);
            },
          });
          try {
            const source = label ?? o.baseUrl!;
            const today = DateTime.utc().startOf('day');
            if (flags.list) {
              const lists = await readInventory(client);
              const ok = lists.every((l) => l.outcome === 'ok');
              const problem = ok
                ? null
                : new ConfigError(
                    problemOf(lists, 'lists'),
                    fixOf(
                      lists,
                      `grant the permission to the key; the lists it may read are shown ${o.json ? 'in lists' : 'above'}`,
                    ),
                  );
              report({ source, lists, ok }, () => formatInventory(lists, source), problem, o.json);
              return;
            }
            const endingAt = today.minus({ milliseconds: 1 }).toISO()!;
            const streams = await checkStreams(client, o.pipeline, o.streams, endingAt);
            const ids = await checkIds(client, o.pipeline, o.streams, endingAt);
            const checked: CheckReport = {
              streams,
              headroom: recorder.headroom(),
              ok: streams.every((s) => s.outcome === 'ok'),
            };
            const unknown =
              ids.unknown.length === 0
                ? ''
                : `${ids.unknown.length} id(s) the workspace does not have: ${ids.unknown.map((u) => `streams.${u.stream}.${u.option} "${u.id}"`).join(', ')} (${o.json ? 'unknown_ids names' : 'listed above with'} the nearest id of each; correct them, or say all)`;
            const problem = !checked.ok
              ? new ConfigError(
                  problemOf(streams, 'streams'),
                  `${fixOf(streams, `grant the permission to the key, or remove the stream from ${o.pipelinePath}`)}${unknown ? `; and ${unknown}` : ''}`,
                )
              : unknown
                ? new ConfigError(o.pipelinePath, unknown)
                : null;
            const fields = {
              source,
              pipeline: o.pipeline.name,
              ...checked,
              ok: checked.ok && ids.unknown.length === 0,
              ids_checked: ids.checked,
              unknown_ids: ids.unknown,
              unverified_ids: ids.unverified,
            };
            report(fields, () => formatCheck(checked, source, o.pipeline.name, ids), problem, o.json);
          } finally {
            await client.close();
          }
        });
      }),
    );
}

/** Prints a check's result (one JSON line, or the text) and fails with `problem` (exit 2) when something is not readable. */
function report(fields: Record<string, unknown>, text: () => string, problem: ConfigError | null, json: boolean): void {
  if (!json) {
    process.stdout.write(text());
    if (problem) throw problem;
    return;
  }
  if (problem) throw reportedAsJson(problem, fields);
  writeJsonLine(fields, EXIT.done, null);
}

/** The permissions of every stream, as `check --permissions --json` prints them. */
function streamPermissions(): {
  stream: string;
  needs: readonly string[];
  depending: Record<string, readonly string[]>;
  endpoint: string;
  pool: string;
}[] {
  return STREAM_NAMES.map((s) => {
    const decl = streamDeclaration(s);
    const { needs, depending } = permissionsOf(decl);
    return {
      stream: s,
      needs,
      depending: Object.fromEntries(depending),
      endpoint: `${decl.endpoint.method} ${decl.endpoint.path}`,
      pool: decl.endpoint.pool,
    };
  });
}

/** What `check` and `check --list` report per stream or list: its name, outcome and the permission it needs. */
interface Checked {
  outcome: CheckOutcome;
  permission: string;
  error: string | null;
}

type Named = Checked & ({ stream: string } | { list: string });

const nameOf = (c: Named) => ('stream' in c ? c.stream : c.list);

function problemOf(checked: Named[], what: string): string {
  const bad = checked.filter((s) => s.outcome !== 'ok');
  if (bad.every((s) => s.outcome === 'unauthorized')) return 'the API key';
  if (bad.every((s) => s.outcome === 'unreachable')) return 'the base URL';
  return `${bad.length} of ${checked.length} ${what}`;
}

/** The fix: the key, the base URL, or per stream (list) the permission missing, then `grant` (what to do about it). */
function fixOf(checked: Named[], grant: string): string {
  const bad = checked.filter((s) => s.outcome !== 'ok');
  if (bad.every((s) => s.outcome === 'unauthorized'))
    return 'the service refused it (401); pass the key of this instance with --api-key or ENGAGE_API_KEY';
  if (bad.every((s) => s.outcome === 'unreachable'))
    return `no answer (${bad[0]!.error ?? 'connection failed'}); check --base-url / ENGAGE_BASE_URL (e.g. https://rest.example.com)`;
  const missing = bad.filter((s) => s.outcome === 'missing_permission');
  const parts = [
    ...missing.map((s) => `${nameOf(s)} needs permission ${s.permission}`),
    ...bad.filter((s) => s.outcome !== 'missing_permission').map((s) => `${nameOf(s)}: ${s.error ?? s.outcome}`),
  ];
  return `${parts.join('; ')}${missing.length > 0 ? `; ${grant}` : ''}`;
}

function formatCheck(r: CheckReport, source: string, pipeline: string, ids: IdCheck): string {
  const ok = r.streams.filter((s) => s.outcome === 'ok').length;
  const width = Math.max(6, ...r.streams.map((s) => s.stream.length));
  const lines = [
    `engage-etl check — pipeline ${pipeline}, source ${source}: ${ok} of ${r.streams.length} streams readable`,
    '',
    `  ${'stream'.padEnd(width)}  ${'result'.padEnd(18)}  ${'permission'.padEnd(26)}  endpoint`,
    ...r.streams.map(
      (s) =>
        `  ${s.stream.padEnd(width)}  ${label(s).padEnd(18)}  ${s.permission.padEnd(26)}  ${s.endpoint}${s.outcome === 'ok' || s.outcome === 'missing_permission' ? '' : ` — ${shortReason(s.error)}`}`,
    ),
  ];
  const found = ids.checked - ids.unknown.length - ids.unverified.reduce((n, u) => n + u.ids.length, 0);
  lines.push(
    '',
    ids.checked === 0
      ? 'ids the pipeline names: none (it says `all` and "*" only)'
      : `ids the pipeline names: ${ids.checked} looked up, ${found} found in the workspace${ids.unknown.length > 0 ? `, ${ids.unknown.length} NOT (below)` : ''}`,
  );
  for (const u of ids.unknown) lines.push(`  UNKNOWN ${unknownIdLine(u)}`);
  for (const u of ids.unverified)
    lines.push(`  not verified (${u.list}: ${u.ids.join(', ')}): ${shortReason(u.error)}`);
  if (r.headroom.length > 0) {
    lines.push('', 'rate-limit headroom the server reports:');
    for (const h of r.headroom) {
      lines.push(
        `  ${h.pool.padEnd(16)}  ${h.remaining ?? '?'} of ${h.limit ?? '?'} left${h.resetsAt ? `, window resets ${h.resetsAt}` : ''}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

/** What the key can see, list by list: ids and names (archived ones marked), or why a list could not be read. */
function formatInventory(lists: InventoryList[], source: string): string {
  const read = lists.filter((l) => l.outcome === 'ok').length;
  const lines = [`engage-etl check --list — source ${source}: ${read} of ${lists.length} lists readable`];
  for (const l of lists) {
    const archived = l.objects.filter((o) => o.archived).length;
    lines.push(
      '',
      `${l.list} (${l.endpoint}, permission ${l.permission}): ${l.outcome === 'ok' ? `${l.objects.length} listed${archived > 0 ? `, ${archived} archived` : ''}` : `${label(l)}${l.outcome === 'missing_permission' ? '' : ` — ${shortReason(l.error)}`}`}`,
    );
    const width = Math.max(2, ...l.objects.map((o) => printable(o.id).length));
    // Products and event names are their own ids: the name is shown only when it says more.
    for (const o of l.objects)
      lines.push(
        `  ${printable(o.id).padEnd(width)}  ${o.name === o.id ? '' : printable(o.name ?? '')}${o.archived ? '  (archived)' : ''}`.trimEnd(),
      );
  }
  return `${lines.join('\n')}\n`;
}

const label = (s: Checked) =>
  s.outcome === 'ok' ? 'ok' : s.outcome === 'missing_permission' ? 'MISSING PERMISSION' : s.outcome.toUpperCase();

/** The cause inside a give-up message (`last failure: …`), or the message itself. */
function shortReason(error: string | null): string {
  return (error && /last failure: (.*?)\. The service/.exec(error)?.[1]) ?? error ?? '';
}
