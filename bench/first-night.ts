// The first night of a team's own workspace: `init`'s draft of a workspace of 200 Canvases with the
// platform's kind of ids, planned by the run's own planner — the first backfill's requests, and the nights it takes at
// the platform's rates under a 3 h budget, computed by the same code `init` prints (draftPipeline, nightsUnderBudget).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import { ApiClient } from '../src/api/api-client.js';
import { createEmulator } from '../src/emulator/server.js';
import { draftPipeline } from '../src/pipeline/draft-pipeline.js';

/** The workspace of the report: 200 Canvases, 123 campaigns, 130 products, 104 segments, uuid ids. */
export const FIRST_NIGHT_SIZE = { canvases: 200, campaigns: 123, products: 130, segments: 104 } as const;
export const FIRST_NIGHT_BUDGET = { ms: 3 * 3_600_000, text: '3h' } as const;
export const FIRST_NIGHT_START = '2024-01-01';

export interface FirstNightFigures {
  /** List requests `init` sent. */
  listRequests: number;
  /** The first backfill's requests. */
  requests: number;
  /** Requests of the purchases pool (1,000/hour), the scarce one. */
  purchasesRequests: number;
  nights: number;
}

export async function measureFirstNight(): Promise<FirstNightFigures> {
  const em = await createEmulator({ seed: 1, size: FIRST_NIGHT_SIZE, idStyle: 'uuid' });
  const client = ApiClient.create({ baseUrl: em.url, apiKey: em.demoApiKey });
  try {
    const template = await readFile(join(import.meta.dirname, '../../pipelines/nightly.yaml'), 'utf8');
    const draft = await draftPipeline({
      client,
      template,
      file: 'pipelines/workspace.yaml',
      name: 'workspace',
      startDate: FIRST_NIGHT_START,
      until: DateTime.utc(),
      apps: [],
      timeBudget: FIRST_NIGHT_BUDGET,
      source: { label: em.url, flags: `--base-url ${em.url}` },
    });
    return {
      listRequests: client.stats.requestsSent,
      requests: draft.plan.requests,
      purchasesRequests: draft.plan.byPool.purchases_events ?? 0,
      nights: draft.nights.nights,
    };
  } finally {
    await client.close();
    await em.close();
  }
}
