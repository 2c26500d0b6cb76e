// A demo warehouse for the analyst views and the report: the real pipeline against the emulator on port 0, over a
// window that crosses a year (two year partitions), with totals and breakdowns in every purchase, session, KPI and event
// series, and the series and details of every listed campaign.
import type { RunSummary } from '../../src/pipeline/run-pipeline.js';
import { PipelineFixture } from '../pipeline/helpers/pipeline-fixture.js';

export const ANALYST_NOW = '2025-02-10T12:34:00Z';

const PIPELINE = `
name: analysts
start_date: 2024-12-01
lookback_days: 3
streams:
  purchase_quantity: { unit: day, apps: ["*", app_1, app_2], products: ["*", gems_small] }
  revenue:           { unit: day, apps: ["*", app_1], products: ["*", gems_small] }
  sessions:          { unit: hour, apps: ["*", app_2], segments: ["*", seg_1] }
  segment_size:      { segments: [seg_1, seg_2] }
  kpis:              { metrics: [dau, mau, new_users, uninstalls], apps: ["*", app_1, app_2] }
  event_counts:      { events: [booster_liked, streak_shared, bundle_viewed, avatar_unlocked, mission_liked, level_unlocked, raid_redeemed],
                       unit: day, apps: ["*", app_1], segments: ["*", seg_1] }
  campaign_series:   { campaigns: all }
  campaigns:         {}
  custom_events:     {}
  canvas_summary:    { canvases: [cv_1, cv_2, cv_3], variant_breakdown: true, step_breakdown: true }
  canvas_details:    { canvases: [cv_1, cv_2, cv_3] }
  email_templates:   { ids: [tpl_1] }
  content_blocks:    { ids: [cb_1] }
  data_integrations: {}
`;

/** Run the pipeline once (its file extended by `pipelineExtra`); the caller closes the fixture. */
export async function analystRun(pipelineExtra = ''): Promise<{ fixture: PipelineFixture; summary: RunSummary }> {
  const fixture = await PipelineFixture.create({ now: ANALYST_NOW, pipeline: PIPELINE + pipelineExtra });
  return { fixture, summary: await fixture.run() };
}

export async function analystWarehouse(): Promise<PipelineFixture> {
  return (await analystRun()).fixture;
}
