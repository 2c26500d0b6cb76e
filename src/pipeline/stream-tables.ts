// Which warehouse tables each stream fills: what a full refresh of the stream clears and what its summary reports.
import type { StreamName } from '../config/pipeline-definition.js';
import type { TableName } from '../load/table-specs.js';

export const STREAM_TABLES: Readonly<Record<StreamName, readonly TableName[]>> = {
  purchase_quantity: ['purchase_quantity'],
  revenue: ['revenue'],
  sessions: ['sessions'],
  segment_size: ['segment_size'],
  custom_events: ['custom_events'],
  canvas_summary: ['canvas_summary', 'canvas_variant_summary', 'canvas_step_summary', 'canvas_step_messages'],
  canvas_details: ['canvases', 'canvas_variants', 'canvas_steps'],
  email_templates: ['email_templates'],
  content_blocks: ['content_blocks'],
  data_integrations: ['data_integrations'],
};
