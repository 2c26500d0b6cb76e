// `engage-etl push <target>`: send rows from SQL, a table or a file to a write endpoint — only what changed since the
// last acknowledged push. Some rows failed (listed) is "completed with warnings": exit 3.
import { Command } from 'commander';
import { DEFAULT_DB_PATH } from '../config/default-paths.js';
import { completedWithWarnings, EXIT } from './exit-codes.js';
import { withJsonFailure, writeJsonLine } from './json-line.js';
import type { DryRunReport } from '../push/dry-run-report.js';
import type { RawPushFlags } from '../push/push-options.js';
import { resolvePushOptions } from '../push/push-options.js';
import { TARGET_NAMES } from '../push/push-target.js';
import type { PushSummary } from '../push/run-push.js';
import { runPush } from '../push/run-push.js';
import { PUSH_TARGETS } from '../push/target-registry.js';

/** Failed rows printed; the rest are in `_push_log`. */
const PRINTED_FAILURES = 20;

export function makePushCommand(): Command {
  const targets = TARGET_NAMES.map((name) => `  ${name.padEnd(26)} ${PUSH_TARGETS[name].summary}`).join('\n');
  return new Command('push')
    .description(
      "Push rows from the DuckDB warehouse (or a file) to the platform's write endpoints, sending only what changed.",
    )
    .argument('<target>', `what to write: ${TARGET_NAMES.join(', ')}`)
    .option('--sql <query>', "SELECT whose columns follow the target's conventions (docs/push.md)")
    .option('--table <name>', 'push every row of this warehouse table')
    .option('--file <path>', 'push the rows of a .csv, .json/.ndjson or .parquet file')
    .option(
      '--db <file>',
      'DuckDB database: source tables and the push ledger (the push works on .<name>.work beside it and publishes it over --db)',
      DEFAULT_DB_PATH,
    )
    .option('--base-url <url>', 'REST base URL of your instance (or ENGAGE_BASE_URL)')
    .option('--api-key <key>', 'REST API key (or ENGAGE_API_KEY); never stored or logged')
    .option(
      '--scim-token <token>',
      'SCIM token for dashboard-user-deletions (or ENGAGE_SCIM_TOKEN); never stored or logged',
    )
    .option('--request-origin <origin>', 'X-Request-Origin of SCIM requests (or ENGAGE_REQUEST_ORIGIN)')
    .option('--batch-size <n>', "rows per request (default: the endpoint's maximum; user-attributes 50 to 75)")
    .option(
      '--inc <columns>',
      'user-attributes: comma-separated integer columns holding running totals, sent as {"inc": increase}',
    )
    .option('--mirror', 'subscriptions: unsubscribe pairs pushed before that left the query')
    .option('--catalog <name>', 'catalog-items: the catalog the items belong to')
    .option(
      '--update',
      'catalog-items: edit existing items one by one (PATCH, changed fields only, 50/min) instead of creating in bulk',
    )
    .option('--dry-run', 'print counts per endpoint, sample payloads, request count and ETA; send and write nothing')
    .option('--confirm', 'required by irreversible targets (removals, suppressions, cancellations, deletions)')
    .option('--max-rows <n>', 'refuse the push when more rows than this would be sent')
    .option(
      '--json',
      'print the summary or dry-run report as one JSON line on stdout (on failure too), with `error` and `exit_code`',
    )
    .option(
      '--max-wait <duration>',
      "longest wait for a rate-limit window before failing, e.g. 10m or 2h (default: the pool's window + 5 min)",
    )
    .option(
      '--max-in-flight <n>',
      'the most requests in flight at once (default: each pool keeps what its rate and the round trip call for)',
    )
    .addHelpText(
      'after',
      `\nTargets:\n${targets}\n\nA push whose rows were all accepted or unchanged exits 0; one with rows rejected, invalid or transient exits 3 (listed; all in _push_log).\n\nExamples:\n  engage-etl push subscriptions --sql "SELECT 'sg_email_1' AS subscription_group_id, 'unsubscribed' AS subscription_state, external_id FROM churned"\n  engage-etl push user-attributes --table crm_users --inc loyalty_points --dry-run`,
    )
    .action(async (targetName: string, flags: RawPushFlags) =>
      withJsonFailure(flags.json, async () => {
        const opts = resolvePushOptions(targetName, flags, process.env);
        const result = await runPush(opts, {
          onWait: (w) => {
            process.stderr.write(
              `push: waiting for limit pool "${w.pool}" until ${new Date(w.resumesAt).toISOString()}: ${w.reason}\n`,
            );
          },
          onProgress: (p) => {
            process.stderr.write(
              `push: batch ${p.batch}/${p.batches} answered: ${p.rows} rows (${p.accepted} accepted, ${p.failed} failed)\n`,
            );
          },
        });
        if (result.kind === 'dry-run') {
          if (opts.json) writeJsonLine({ ...result.report }, EXIT.done, null);
          else process.stdout.write(formatDryRun(result.report));
          return;
        }
        const partial = result.summary.status === 'partial';
        if (opts.json) writeJsonLine({ ...result.summary }, partial ? EXIT.incomplete : EXIT.done, null);
        else process.stdout.write(formatPushSummary(result.summary));
        if (partial) completedWithWarnings();
      }),
    );
}

export function formatDryRun(r: DryRunReport): string {
  const lines = [
    `dry run of push ${r.target} — nothing sent, nothing written`,
    `source: ${r.source}`,
    `rows: ${r.rowsRead} read, ${r.rowsToSend} to send, ${r.rowsUnchanged} unchanged, ${r.rowsInvalid} invalid, ${r.rowsStillRefused} refused before and unchanged`,
    `requests: ${r.requests}; ETA under the rate limits: ${r.etaSeconds} s`,
  ];
  for (const e of r.endpoints) {
    const ops = Object.entries(e.operations)
      .map(([op, n]) => `${n} ${op}`)
      .join(', ');
    lines.push(
      '',
      `${e.endpoint} (pool ${e.pool}): ${e.rows} rows in ${e.requests} requests — ${ops}`,
      `  sample ${e.sample.method} ${e.sample.path}:`,
    );
    lines.push(
      ...JSON.stringify(e.sample.body ?? null, null, 2)
        .split('\n')
        .map((l) => `    ${l}`),
    );
  }
  if (r.invalidSamples.length > 0)
    lines.push('', 'invalid rows:', ...r.invalidSamples.map((s) => `  row ${s.index}: ${s.error}`));
  if (r.refusal) lines.push('', `the push would be refused: ${r.refusal}`);
  return `${lines.join('\n')}\n`;
}

export function formatPushSummary(s: PushSummary): string {
  const lines = [
    `push ${s.runId} ${s.target}: ${s.status} in ${s.seconds} s, ${s.requests} requests`,
    `rows: ${s.rowsRead} read, ${s.rowsAccepted} accepted, ${s.rowsUnchanged} unchanged, ${s.rowsRejected} rejected, ${s.rowsInvalid} invalid, ${s.rowsTransient} transient, ${s.rowsStillRefused} refused before and unchanged`,
  ];
  if (s.stoppedEarly) lines.push(`stopped early: ${s.stoppedEarly}`);
  if (s.failures.length > 0) {
    lines.push('', 'failed rows (row = position in the source):');
    for (const f of s.failures.slice(0, PRINTED_FAILURES)) {
      const where = f.index === null ? 'left the source' : `row ${f.index}`;
      lines.push(
        `  ${where} ${f.destination ?? ''} ${f.key ?? ''}: ${f.status}${f.earlier ? ' (earlier push, row unchanged)' : ''} — ${f.error}`.replace(
          / {2,}/g,
          ' ',
        ),
      );
    }
    const total = s.rowsRejected + s.rowsInvalid + s.rowsTransient + s.rowsStillRefused;
    if (total > PRINTED_FAILURES)
      lines.push(
        `  … ${total - PRINTED_FAILURES} more: SELECT * FROM "_push_log" WHERE "run_id" = '${s.runId}' AND "status" <> 'accepted'`,
      );
  }
  return `${lines.join('\n')}\n`;
}
