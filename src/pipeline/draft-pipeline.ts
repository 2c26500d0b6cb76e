// `engage-etl init`, below the command: a pipeline file for one workspace. The shipped pipelines/nightly.yaml (every
// stream, `all` and `"*"`, no workspace's ids) is the template; the workspace's lists are read once — only list requests,
// counted — as a first run's discovery reads them, the first run is planned by the run's own planner, and the file says,
// stream by stream, what needs more than one night of its pool under the time budget. Nothing is written here.
import type { DateTime } from 'luxon';
import { isMap, isPair, isScalar, parseDocument } from 'yaml';
import type { Document, YAMLMap } from 'yaml';
import type { ApiClient } from '../api/api-client.js';
import { LIMIT_POOLS } from '../api/endpoints.js';
import { AUTO_LOOKBACK, parsePipelineText } from '../config/load-pipeline-file.js';
import type { PipelineDefinition, StreamName } from '../config/pipeline-definition.js';
import { streamDeclaration } from '../streams/registry.js';
import { classifyFailure } from './check-streams.js';
import type { DiscoveredList } from './discover.js';
import { discover } from './discover.js';
import type { Plan } from './plan.js';
import { buildPlan } from './plan.js';
import type { PoolNights } from './plan-estimate.js';
import { formatDuration, nightsUnderBudget } from './plan-estimate.js';
import { readPagedLists } from './plan-for-run.js';

export interface DraftInput {
  client: ApiClient;
  /** The template's text: the shipped pipelines/nightly.yaml. */
  template: string;
  /** Where the file will be written: names it in messages. */
  file: string;
  name: string;
  /** First day of the backfill, YYYY-MM-DD. */
  startDate: string;
  /** The first run's upper bound (now). */
  until: DateTime;
  /** App ids to give a series of their own beside `"*"` (the platform lists no apps). */
  apps: readonly string[];
  /** One night's time budget, and how the user wrote it (`3h`). */
  timeBudget: { ms: number; text: string };
  /** The source as a reader names it (`https://rest.example.com`, `the built-in emulator`) and as flags (`--base-url …`). */
  source: { label: string; flags: string };
}

export interface DraftPipeline {
  text: string;
  pipeline: PipelineDefinition;
  /** The lists read (pages, objects). */
  lists: DiscoveredList[];
  /** Streams left out of the file: a list they need could not be read. */
  leftOut: { stream: StreamName; reason: string }[];
  plan: Plan;
  nights: { nights: number; pools: PoolNights[] };
}

/** Reads the workspace's lists through `client` and drafts the file; the requests sent are the client's `stats`. */
export async function draftPipeline(input: DraftInput): Promise<DraftPipeline> {
  const doc = parseDocument(input.template);
  doc.set('name', input.name);
  doc.set('start_date', input.startDate);
  autoLookback(doc);
  if (input.apps.length > 0) namedApps(doc, input.apps);

  const draft = parsePipelineText(doc.toString(), input.file);
  const until = input.until.toUTC();
  const discovery = await discover({
    pipeline: draft,
    streams: draft.streamNames,
    client: input.client,
    until: until.toJSDate(),
  });
  const leftOut = [...discovery.failed].map(([stream, error]) => ({ stream, reason: classifyFailure(error).error }));
  const readable = draft.streamNames.filter((s) => !discovery.failed.has(s));
  const pagesRead: Partial<Record<StreamName, number>> = {};
  for (const stream of readable) {
    if (streamDeclaration(stream).kind !== 'paged_list') continue;
    try {
      Object.assign(pagesRead, await readPagedLists(input.client, draft, [stream], until.toJSDate()));
    } catch (error) {
      leftOut.push({ stream, reason: classifyFailure(error).error });
    }
  }
  const streams = readable.filter((s) => !leftOut.some((l) => l.stream === s));
  const plan = buildPlan({
    pipeline: discovery.pipeline,
    discovery,
    streams,
    states: [],
    from: draft.startDate,
    until,
    pagesRead,
  });
  const nights = nightsUnderBudget(plan.byPool, input.timeBudget.ms);

  for (const { stream } of leftOut) doc.deleteIn(['streams', stream]);
  annotateStreams(doc, plan, nights.pools, input.timeBudget.text);
  doc.commentBefore = header(input, plan, nights, leftOut);
  firstKeyComment(doc);
  budgetNote(doc, input.timeBudget.text);
  const text = doc.toString({ lineWidth: 0 });
  return { text, pipeline: parsePipelineText(text, input.file), lists: discovery.lists, leftOut, plan, nights };
}

/** Gives every stream that takes `apps` a series per named app beside the aggregate. */
function namedApps(doc: Document, apps: readonly string[]): void {
  const streams = doc.get('streams', true);
  if (!isMap(streams)) return;
  for (const pair of streams.items) {
    if (!isMap(pair.value) || !pair.value.has('apps')) continue;
    const node = doc.createNode(['*', ...apps]);
    node.flow = true;
    pair.value.set('apps', node);
  }
}

/**
 * A comment above each stream whose pool needs more than one night: its requests, its pool's nights, and how to make
 * it fit one. Streams that fit keep the template's comments only.
 */
function annotateStreams(doc: Document, plan: Plan, pools: readonly PoolNights[], budget: string): void {
  const streams = doc.get('streams', true) as YAMLMap | undefined;
  if (!streams) return;
  const byPool = new Map(pools.map((p) => [p.pool, p]));
  for (const summary of plan.streams) {
    const pool = byPool.get(summary.pool);
    if (!pool || pool.nights <= 1 || summary.requests === 0) continue;
    const pair = streams.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === summary.stream);
    if (!pair || !isScalar(pair.key)) continue;
    const note = [
      ` FIRST BACKFILL: ${n(summary.requests)} requests of the ${pool.pool} pool (${LIMIT_POOLS[pool.pool].label}); with the`,
      ` pool's other streams ${n(pool.requests)}, more than one night's ${n(pool.perNight)} under time_budget ${budget}: ${pool.nights} nights.`,
      ' Later nights ask only the new days. For one night: name fewer ids here, or a later start_date.',
    ].join('\n');
    pair.key.commentBefore = pair.key.commentBefore ? `${pair.key.commentBefore}\n${note}` : note;
  }
}

/**
 * `lookback_days: auto`: a new workspace's restatements are unknown, so the look-back follows the ones its runs see
 * (the template's comment, written for a fixed number, is replaced).
 */
function autoLookback(doc: Document): void {
  const value = doc.createNode(AUTO_LOOKBACK);
  value.comment = ' set each run from the restatements seen, at most lookback_max_days (28); `status` says why';
  doc.set('lookback_days', value);
}

/** The file's opening comment: what wrote it, what the lists held, the first backfill per pool, and what to run next. */
function header(
  input: DraftInput,
  plan: Plan,
  nights: { nights: number; pools: PoolNights[] },
  leftOut: DraftPipeline['leftOut'],
): string {
  const lists = plan.discovery.map((l) => `${l.listing} ${n(l.objects)}`).join(', ');
  const text = [
    `Pipeline of the workspace at ${input.source.label}, written by \`engage-etl init\` from the template pipelines/nightly.yaml.`,
    `Its lists held: ${lists || 'nothing the streams need'}. \`all\` is read again at the start of each run, so objects added later are exported too; \`"*"\` is the aggregate. Apps have no list: \`init --apps\` names them.`,
    `First backfill from ${input.startDate}: ${n(plan.requests)} requests — ${nights.pools.map((p) => `${p.pool} ${n(p.requests)} (${LIMIT_POOLS[p.pool].label}; ${n(p.perNight)} a night)`).join(', ')}: ${nights.nights === 1 ? 'one night' : `${nights.nights} nights`} under a time budget of ${input.timeBudget.text} a night${nights.nights > 1 ? ` (the slowest pool alone needs ${formatDuration(slowestMs(nights.pools))} at its rate)` : ''}.`,
    ...(leftOut.length > 0
      ? [
          `Left out (a list they need could not be read): ${leftOut.map((l) => `${l.stream} — ${l.reason}`).join('; ')}.`,
        ]
      : []),
  ].flatMap((paragraph) => wrap(paragraph, 116));
  return [
    ...text,
    'Check it, then run it nightly (the key in ENGAGE_API_KEY or ./.env, never in this file):',
    `  npx engage-etl check --pipeline ${input.file} ${input.source.flags}`,
    `  npx engage-etl run --pipeline ${input.file} ${input.source.flags}`,
  ]
    .map((line) => ` ${line}`)
    .join('\n');
}

/**
 * `time_budget:` above `streams:` (replacing one the template already has): each night stops starting requests when it
 * is spent, publishes what it fetched, and the next run continues, so a first backfill that needs several nights gets
 * them instead of being killed by its scheduler.
 */
function budgetNote(doc: Document, budget: string): void {
  const root = doc.contents;
  if (!isMap(root)) return;
  root.items = root.items.filter((p) => !(isScalar(p.key) && p.key.value === 'time_budget'));
  const at = root.items.findIndex((p) => isScalar(p.key) && p.key.value === 'streams');
  if (at < 0) return;
  const pair = doc.createPair('time_budget', budget);
  if (isScalar(pair.key))
    pair.key.commentBefore =
      ' Each night stops starting requests after this long, publishes what it fetched; the next run continues where it stopped.';
  root.items.splice(at, 0, pair);
}

/** Words of `text` in lines of at most `width` characters. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return line === '' ? lines : [...lines, line];
}

/** The template's own opening comment sits on its first key: the header replaces it. */
function firstKeyComment(doc: Document): void {
  const root = doc.contents;
  if (!isMap(root)) return;
  const first = root.items[0];
  if (first && isScalar(first.key)) delete first.key.commentBefore;
}

function slowestMs(pools: readonly PoolNights[]): number {
  return Math.max(0, ...pools.map((p) => (p.requests * p.windowMs) / p.limit));
}

const n = (v: number) => v.toLocaleString('en-US');
