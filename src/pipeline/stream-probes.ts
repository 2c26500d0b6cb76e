// One cheap request per stream, for `engage-etl check`: the endpoint the stream reads (so the permission a key needs)
// and the smallest call that proves the key may read it. When the stream registry lands, each entry moves into its
// stream's declaration as `probe`, and this table becomes `registry.map((d) => [d.name, d.probe])`.
import type { ApiCall } from '../api/api-call.js';
import type { EndpointSpec } from '../api/endpoints.js';
import { ENDPOINTS } from '../api/endpoints.js';
import type { PipelineDefinition, StreamName } from '../config/pipeline-definition.js';
import { ALL } from '../config/pipeline-definition.js';

export interface StreamProbe {
  /** The endpoint the stream reads: its `permission` is what the key needs. */
  endpoint: EndpointSpec;
  /** The probe request for a pipeline's configuration of the stream; `endingAt` is a complete past instant. */
  call(pipeline: PipelineDefinition, endingAt: string): ApiCall;
}

/** The first configured selector that is not "*" (the parameter is then omitted). */
function first(values: readonly string[] | undefined): string | undefined {
  return values?.find((v) => v !== ALL);
}

function firstId(values: readonly string[] | undefined, what: string): string {
  const id = values?.[0];
  if (id === undefined) throw new Error(`internal: ${what} has no id to probe`);
  return id;
}

export const STREAM_PROBES: Readonly<Record<StreamName, StreamProbe>> = {
  purchase_quantity: {
    endpoint: ENDPOINTS.purchasesQuantitySeries,
    call: (p, endingAt) => ({ endpoint: ENDPOINTS.purchasesQuantitySeries, query: { length: 1, ending_at: endingAt, unit: 'day', app_id: first(p.streams.purchase_quantity?.apps), product: first(p.streams.purchase_quantity?.products) } }),
  },
  revenue: {
    endpoint: ENDPOINTS.purchasesRevenueSeries,
    call: (p, endingAt) => ({ endpoint: ENDPOINTS.purchasesRevenueSeries, query: { length: 1, ending_at: endingAt, unit: 'day', app_id: first(p.streams.revenue?.apps), product: first(p.streams.revenue?.products) } }),
  },
  sessions: {
    endpoint: ENDPOINTS.sessionsDataSeries,
    call: (p, endingAt) => ({ endpoint: ENDPOINTS.sessionsDataSeries, query: { length: 1, ending_at: endingAt, unit: 'day', app_id: first(p.streams.sessions?.apps), segment_id: first(p.streams.sessions?.segments) } }),
  },
  segment_size: {
    endpoint: ENDPOINTS.segmentsDataSeries,
    call: (p, endingAt) => ({ endpoint: ENDPOINTS.segmentsDataSeries, query: { segment_id: firstId(p.streams.segment_size?.segments, 'segment_size'), length: 1, ending_at: endingAt } }),
  },
  custom_events: {
    endpoint: ENDPOINTS.eventsList,
    call: () => ({ endpoint: ENDPOINTS.eventsList }),
  },
  canvas_summary: {
    endpoint: ENDPOINTS.canvasDataSummary,
    call: (p, endingAt) => ({
      endpoint: ENDPOINTS.canvasDataSummary,
      query: { canvas_id: firstId(p.streams.canvas_summary?.canvases, 'canvas_summary'), ending_at: endingAt, starting_at: new Date(Date.parse(endingAt) - 86_400_000).toISOString() },
    }),
  },
  canvas_details: {
    endpoint: ENDPOINTS.canvasDetails,
    call: (p) => ({ endpoint: ENDPOINTS.canvasDetails, query: { canvas_id: firstId(p.streams.canvas_details?.canvases, 'canvas_details') } }),
  },
  email_templates: {
    endpoint: ENDPOINTS.emailTemplateInfo,
    call: (p) => ({ endpoint: ENDPOINTS.emailTemplateInfo, query: { email_template_id: firstId(p.streams.email_templates?.ids, 'email_templates') } }),
  },
  content_blocks: {
    endpoint: ENDPOINTS.contentBlockInfo,
    call: (p) => ({ endpoint: ENDPOINTS.contentBlockInfo, query: { content_block_id: firstId(p.streams.content_blocks?.ids, 'content_blocks'), include_inclusion_data: false } }),
  },
  data_integrations: {
    endpoint: ENDPOINTS.cdiIntegrations,
    call: () => ({ endpoint: ENDPOINTS.cdiIntegrations }),
  },
};
