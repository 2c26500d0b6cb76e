// `engage-etl emulator --describe`: the identifiers a user needs to write a pipeline or a push against the emulator,
// as plain JSON. The demo key and SCIM token are included on purpose: they are local fakes and calling is the point.
import { KPI_METRICS } from '../api/types.js';
import { originalSegmentCount } from './analytics/analytics-catalogue.js';
import { eventProfile } from './analytics/event-model.js';
import { MAU_WINDOW_DAYS } from './analytics/kpi-model.js';
import type { Lifecycle } from './analytics/lifecycle.js';
import { iso } from './analytics/lifecycle.js';
import { originalContentBlockCount, originalTemplateCount } from './analytics/metadata-catalogue.js';
import { RESTATED_SERIES } from './analytics/series-model.js';
import { describePeople } from './people/people-workspace.js';
import { SERIES_FAULT_MODES } from './series-faults.js';
import type { Workspace } from './workspace.js';

/** Creation, edit and archive instants: what the emulator's clock compares with now. */
function instants(l: Lifecycle): { created_at: string; edits: string[]; archived_at: string | null } {
  return {
    created_at: iso(l.createdMs),
    edits: l.editsMs.map(iso),
    archived_at: l.archivedMs === undefined ? null : iso(l.archivedMs),
  };
}

export function describeWorkspace(workspace: Workspace): Record<string, unknown> {
  const a = workspace.analytics;
  const originalProducts = a.products.filter((p) => p.firstSaleMs === undefined);
  const originalSegments = a.segments.slice(0, originalSegmentCount(a.seed));
  const originalTemplates = a.templates.slice(0, originalTemplateCount(a.seed));
  const originalBlocks = a.contentBlocks.slice(0, originalContentBlockCount(a.seed));
  return {
    seed: workspace.seed,
    credentials: { demo_api_key: workspace.credentials.demoApiKey, scim_token: workspace.credentials.scimToken },
    data_starts: new Date(a.startMs).toISOString().slice(0, 10),
    app_group_id: a.appGroupId,
    apps: a.apps.map((app) => ({
      id: app.id,
      name: app.name,
      outage_day: new Date(app.outageDayMs).toISOString().slice(0, 10),
    })),
    // The original objects, present from the data start; `added_over_time` holds those the clock reveals later.
    products: originalProducts.map((p) => ({ id: p.id, price_usd: p.priceUsd })),
    segments: originalSegments.map((s) => ({ id: s.id, name: s.name })),
    canvases: a.canvases.slice(0, a.originalCanvasCount).map((c) => ({
      id: c.id,
      name: c.details.name,
      archived: c.details.archived,
      first_entry: c.details.first_entry,
      variants: c.details.variants.map((v) => v.id),
      steps: c.details.steps.map((s) => s.id),
      deleted_steps: c.deletedSteps.map((s) => s.id),
      message_variations: c.messages.map((m) => m.id),
    })),
    email_templates: originalTemplates.map((t) => ({
      id: t.template.email_template_id,
      name: t.template.template_name,
    })),
    content_blocks: originalBlocks.map((b) => ({ id: b.id, name: b.name, deleted: b.deleted })),
    campaigns: a.campaigns.map((c) => ({
      id: c.id,
      name: c.name,
      ...instants(c.lifecycle),
      draft: c.draft,
      is_api_campaign: c.isApiCampaign,
      channels: c.channels,
      variations: c.variations.map((v) => v.id),
      first_send_day: c.firstSendDayMs === undefined ? null : iso(c.firstSendDayMs).slice(0, 10),
      last_send_day: c.lastSendDayMs === undefined ? null : iso(c.lastSendDayMs).slice(0, 10),
    })),
    added_over_time: {
      canvases: a.canvases
        .slice(a.originalCanvasCount)
        .map((c) => ({ id: c.id, name: c.details.name, ...instants(c.lifecycle) })),
      segments: a.segments
        .filter((s) => !originalSegments.includes(s))
        .map((s) => ({
          id: s.id,
          name: s.name,
          ...instants(s.lifecycle),
          analytics_tracking_enabled: s.analyticsTrackingEnabled,
        })),
      products: a.products
        .filter((p) => !originalProducts.includes(p))
        .map((p) => ({ id: p.id, price_usd: p.priceUsd, first_sale: iso(p.firstSaleMs!) })),
      email_templates: a.templates
        .filter((t) => !originalTemplates.includes(t))
        .map((t) => ({
          id: t.template.email_template_id,
          name: t.template.template_name,
          ...instants(t.lifecycle),
          drag_and_drop: t.dragAndDrop,
        })),
      content_blocks: a.contentBlocks
        .filter((b) => !originalBlocks.includes(b))
        .map((b) => ({ id: b.id, name: b.name, ...instants(b.lifecycle) })),
    },
    archived: {
      canvases: a.canvases
        .filter((c) => c.lifecycle.archivedMs !== undefined)
        .map((c) => ({ id: c.id, archived_at: iso(c.lifecycle.archivedMs!) })),
      campaigns: a.campaigns
        .filter((c) => c.lifecycle.archivedMs !== undefined)
        .map((c) => ({ id: c.id, archived_at: iso(c.lifecycle.archivedMs!) })),
      segments: a.segments
        .filter((s) => s.lifecycle.archivedMs !== undefined)
        .map((s) => ({ id: s.id, archived_at: iso(s.lifecycle.archivedMs!) })),
    },
    untracked_segments: a.segments.filter((s) => !s.analyticsTrackingEnabled).map((s) => s.id),
    drag_and_drop_templates: a.templates.filter((t) => t.dragAndDrop).map((t) => t.template.email_template_id),
    data_integrations: a.integrations.length,
    custom_event_names: a.eventNames.length,
    // Counts of every name are served by /events/data_series from its first occurrence on (when /events/list lists it).
    custom_events: a.eventNames.map((name) => {
      const p = eventProfile(a, a.apps, name);
      return {
        name,
        first_occurrence: new Date(p.firstHourMs).toISOString(),
        mean_per_hour: Math.round(p.ratePerHour * 100) / 100,
      };
    }),
    kpis: {
      metrics: [...KPI_METRICS],
      unit: 'day',
      mau_window_days: MAU_WINDOW_DAYS,
      paths: KPI_METRICS.map((m) => `/kpi/${m}/data_series`),
    },
    restatements: a.restatements(),
    test_hooks: {
      restatable_series: [...RESTATED_SERIES],
      canvas_summary_skews: a.canvasSummarySkews(),
      series_fault_modes: [...SERIES_FAULT_MODES],
    },
    people: describePeople(workspace.people),
  };
}
