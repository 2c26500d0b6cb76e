// Request ratio = requests sent / theoretical minimum, for a 2-year backfill of the demo pipeline and for the nightly
// increment after it. The minimum of the paged lists is counted from what they turned out to hold; discovery's list
// pages are known exactly once read, so they count as read.
import { readFile, stat } from 'node:fs/promises';
import { STREAMS } from '../src/streams/registry.js';
import { EmulatorBench } from './emulator-run.js';
import type { Plan } from '../src/pipeline/plan.js';

export interface RequestRatio {
  label: string;
  sent: number;
  minimum: number;
  ratio: number;
  wallMs: number;
  rows: number;
  rateLimited: number;
  /** Size of the HTML report the run wrote (the demo pipeline asks for one), in bytes. */
  reportBytes: number | undefined;
  /** Requests of the per-id streams (details and info): discovery re-reads only what changed, so 0 on an unchanged workspace. */
  perIdRequests: number;
}

/**
 * The run's minimum with the paged lists' real page counts in place of the plan's estimate. The run's own minimum is
 * the base: the pages discovery read and the ids it resolved `all` into are only known there.
 */
export async function trueMinimum(bench: EmulatorBench, plan: Plan, runMinimum: number): Promise<number> {
  let minimum = runMinimum;
  for (const stream of STREAMS) {
    const list = plan.lists.find((l) => l.stream.name === stream.name);
    if (stream.kind !== 'paged_list' || !list) continue;
    minimum += stream.estimatePages(await bench.count(stream.tables[0].name)) - list.estimatedRequests;
  }
  return minimum;
}

export async function measureRequestRatios(demoPipelinePath: string): Promise<RequestRatio[]> {
  const bench = await EmulatorBench.create(await readFile(demoPipelinePath, 'utf8'), { now: '2026-01-02T06:00:00Z' });
  try {
    const out: RequestRatio[] = [];
    for (const [label, until] of [
      ['2-year backfill (demo pipeline)', '2026-01-01T06:00:00Z'],
      ['nightly increment (next day)', '2026-01-02T06:00:00Z'],
    ] as const) {
      const run = await bench.run(until);
      const minimum = await trueMinimum(bench, run.plan, run.summary.requests.minimum);
      out.push({
        label,
        sent: run.summary.requests.sent,
        minimum,
        ratio: run.summary.requests.sent / minimum,
        wallMs: run.wallMs,
        rows: run.summary.tables.reduce((n, t) => n + t.inserted + t.updated, 0),
        rateLimited: run.rateLimited,
        reportBytes: run.summary.report ? (await stat(run.summary.report)).size : undefined,
        perIdRequests: run.planned
          .filter((p) => STREAMS.find((d) => d.name === p.stream)?.kind === 'per_id')
          .reduce((n, p) => n + p.requests, 0),
      });
    }
    return out;
  } finally {
    await bench.close();
  }
}
