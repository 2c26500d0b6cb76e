// `node dist/bench/answer-path.js [--answers N] [--repeats R]`: the main thread's work on the two answers a backfill is
// made of, per stored row, beside `JSON.parse` of the same bodies. N campaign data_series answers (100 days each) and N
// Canvas data_series answers (14 days, variant and step breakdowns) are fetched from the 2k emulator once; then, in
// this process, each answer in turn goes through the stages: parse (JSON.parse), check (the API layer's reading of the
// body), rows (the stream's rows of each day) and package (RowPackage.add into a load package's files). CPU of the
// process by stage, from the repetition of least CPU of R. Not part of `npm run bench`: it measures the parts that the bench's runs measure whole.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiClient } from '../src/api/api-client.js';
import { normalizeCampaignSeries } from '../src/api/campaign-series.js';
import { fetchCanvasDataSeries } from '../src/api/canvas-data-series.js';
import { SIZE_PRESETS } from '../src/emulator/analytics/workspace-size.js';
import { createEmulator } from '../src/emulator/server.js';
import { RowPackage } from '../src/load/row-package.js';
import { campaignSeriesStream } from '../src/streams/campaign-series.js';
import { canvasSummaryStream } from '../src/streams/canvas-summary.js';
import type { SeriesInstance } from '../src/streams/stream-declaration.js';
import { WAREHOUSE_TABLES } from '../src/streams/table-specs.js';
import { flag } from './argv-flag.js';
import { machine, n } from './bench-table.js';

const ENDING_AT = '2025-10-31T00:00:00Z';

interface Answers {
  label: string;
  bodies: { id: string; text: string }[];
  /** The checked days of one parsed body. */
  check(id: string, body: unknown): Promise<{ time: string; value: unknown }[]>;
  /** The stream's series of one object, whose `rows` turn a day into rows. */
  series(id: string): SeriesInstance;
}

async function fetchAnswers(count: number): Promise<Answers[]> {
  const emulator = await createEmulator({ seed: 1, port: 0, now: '2025-11-02T06:00:00Z', size: SIZE_PRESETS['2k'] });
  const get = async (path: string): Promise<string> => {
    const res = await fetch(`${emulator.url}${path}`, { headers: { Authorization: `Bearer ${emulator.demoApiKey}` } });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.text();
  };
  const ids = async (list: string, key: string): Promise<string[]> => {
    const found: string[] = [];
    for (let page = 0; found.length < count; page++) {
      const items = (JSON.parse(await get(`${list}?page=${page}`)) as Record<string, { id: string }[]>)[key] ?? [];
      if (items.length === 0) break;
      found.push(...items.map((item) => item.id));
    }
    return found.slice(0, count);
  };
  try {
    const campaigns = await ids('/campaigns/list', 'campaigns');
    const canvases = await ids('/canvas/list', 'canvases');
    const campaignBodies = [];
    for (const id of campaigns)
      campaignBodies.push({
        id,
        text: await get(`/campaigns/data_series?campaign_id=${id}&length=100&ending_at=${ENDING_AT}`),
      });
    const canvasBodies = [];
    for (const id of canvases)
      canvasBodies.push({
        id,
        text: await get(
          `/canvas/data_series?canvas_id=${id}&length=14&ending_at=${ENDING_AT}&include_variant_breakdown=true&include_step_breakdown=true`,
        ),
      });
    const ctx = { method: 'GET', endpoint: '/campaigns/data_series', params: {} };
    const canvasOptions = {
      canvases: { all: false, ids: [] as string[] },
      source: 'data_series' as const,
      reconcile: false,
      variantBreakdown: true,
      stepBreakdown: true,
      deletedStepData: false,
    };
    return [
      {
        label: 'campaign data_series (100 days an answer)',
        bodies: campaignBodies,
        check: async (_id, body) => normalizeCampaignSeries(body, ctx, 200),
        series: (id) => campaignSeriesStream.series({ campaigns: { all: false, ids: [id] } })[0]!,
      },
      {
        label: 'Canvas data_series (14 days, variants and steps)',
        bodies: canvasBodies,
        // The API layer's reading, through a client that hands it the parsed body.
        check: (id, body) =>
          fetchCanvasDataSeries({ request: async () => ({ body, status: 200 }) } as unknown as ApiClient, {
            canvasId: id,
            length: 14,
            endingAt: ENDING_AT,
            includeVariantBreakdown: true,
            includeStepBreakdown: true,
            includeDeletedStepData: false,
          }),
        series: (id) => canvasSummaryStream.series({ ...canvasOptions, canvases: { all: false, ids: [id] } })[0]!,
      },
    ];
  } finally {
    await emulator.close();
  }
}

/**
 * One repetition: each answer in turn through every stage, as a run takes it (what a stage builds dies young, so the
 * collector's work is the run's, not that of a heap holding every answer); CPU per stage, summed over the answers.
 */
async function once(answers: Answers): Promise<{ stages: Record<Stage, number>; stored: number }> {
  const stages: Record<Stage, number> = { parse: 0, check: 0, rows: 0, package: 0 };
  let stored = 0;
  const folder = mkdtempSync(join(tmpdir(), 'engage-bench-answer-path-'));
  try {
    const pkg = new RowPackage(folder, WAREHOUSE_TABLES);
    for (const { id, text } of answers.bodies) {
      let at = process.cpuUsage();
      const lap = (stage: Stage) => {
        const used = process.cpuUsage(at);
        stages[stage] += (used.user + used.system) / 1000;
        at = process.cpuUsage();
      };
      const body = JSON.parse(text) as unknown;
      lap('parse');
      const days = await answers.check(id, body);
      lap('check');
      const series = answers.series(id);
      const parts = days.map((day) => series.rows(new Date(Date.parse(day.time.slice(0, 10))), day.value));
      lap('rows');
      for (const part of parts) {
        for (const upsert of part.upserts) {
          pkg.add(WAREHOUSE_TABLES.spec(upsert.table), upsert.rows);
          stored += upsert.rows.length;
        }
      }
      lap('package');
    }
    const at = process.cpuUsage();
    pkg.close();
    const used = process.cpuUsage(at);
    stages.package += (used.user + used.system) / 1000;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  return { stages, stored };
}

type Stage = 'parse' | 'check' | 'rows' | 'package';

async function measure(answers: Answers, repeats: number): Promise<void> {
  let best: { stages: Record<Stage, number>; stored: number } | undefined;
  const total = (s: Record<Stage, number>) => s.parse + s.check + s.rows + s.package;
  for (let r = 0; r < repeats; r++) {
    const run = await once(answers);
    if (best === undefined || total(run.stages) < total(best.stages)) best = run;
  }
  const { stages, stored } = best!;
  const bytes = answers.bodies.reduce((sum, b) => sum + b.text.length, 0);
  const perRow = (ms: number) => `${n((ms * 1000) / stored, 2)} µs`;
  process.stdout.write(
    `${answers.label}: ${n(answers.bodies.length)} answers, ${n(bytes / 1e6, 1)} MB, ${n(stored)} rows; a row: ` +
      `parse ${perRow(stages.parse)}, check ${perRow(stages.check)}, rows ${perRow(stages.rows)}, ` +
      `package ${perRow(stages.package)}; all ${perRow(total(stages))}\n`,
  );
}

async function main(): Promise<void> {
  const count = Number(flag('--answers') ?? 300);
  const repeats = Number(flag('--repeats') ?? 5);
  process.stdout.write(`answer-path bench on ${machine()}\n`);
  for (const answers of await fetchAnswers(count)) await measure(answers, repeats);
}

await main();
