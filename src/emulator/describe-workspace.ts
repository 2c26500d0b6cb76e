// `engage-etl emulator --describe`: the identifiers a user needs to write a pipeline or a push against the emulator,
// as plain JSON. The demo key and SCIM token are included on purpose: they are local fakes and calling is the point.
import { KPI_METRICS } from '../api/types.js';
import { eventProfile } from './analytics/event-model.js';
import { MAU_WINDOW_DAYS } from './analytics/kpi-model.js';
import { RESTATED_SERIES } from './analytics/series-model.js';
import { describePeople } from './people/people-workspace.js';
import { SERIES_FAULT_MODES } from './series-faults.js';
import type { Workspace } from './workspace.js';

export function describeWorkspace(workspace: Workspace): Record<string, unknown> {
  const a = workspace.analytics;
  return {
    seed: workspace.seed,
    credentials: { demo_api_key: workspace.credentials.demoApiKey, scim_token: workspace.credentials.scimToken },
    data_starts: new Date(a.startMs).toISOString().slice(0, 10),
    app_group_id: a.appGroupId,
    apps: a.apps.map((app) => ({ id: app.id, name: app.name, outage_day: new Date(app.outageDayMs).toISOString().slice(0, 10) })),
    products: a.products.map((p) => ({ id: p.id, price_usd: p.priceUsd })),
    segments: a.segments.map((s) => ({ id: s.id, name: s.name })),
    canvases: a.canvases.map((c) => ({
      id: c.id,
      name: c.details.name,
      archived: c.details.archived,
      first_entry: c.details.first_entry,
      variants: c.details.variants.map((v) => v.id),
      steps: c.details.steps.map((s) => s.id),
      deleted_steps: c.deletedSteps.map((s) => s.id),
      message_variations: c.messages.map((m) => m.id),
    })),
    email_templates: a.templates.map((t) => ({ id: t.email_template_id, name: t.template_name })),
    content_blocks: a.contentBlocks.map((b) => ({ id: b.id, name: b.name, deleted: b.deleted })),
    data_integrations: a.integrations.length,
    custom_event_names: a.eventNames.length,
    // Counts of every name are served by /events/data_series from its first occurrence on (when /events/list lists it).
    custom_events: a.eventNames.map((name) => {
      const p = eventProfile(a, a.apps, name);
      return { name, first_occurrence: new Date(p.firstHourMs).toISOString(), mean_per_hour: Math.round(p.ratePerHour * 100) / 100 };
    }),
    kpis: { metrics: [...KPI_METRICS], unit: 'day', mau_window_days: MAU_WINDOW_DAYS, paths: KPI_METRICS.map((m) => `/kpi/${m}/data_series`) },
    restatements: a.restatements(),
    test_hooks: {
      restatable_series: [...RESTATED_SERIES],
      canvas_summary_skews: a.canvasSummarySkews(),
      series_fault_modes: [...SERIES_FAULT_MODES],
    },
    people: describePeople(workspace.people),
  };
}
