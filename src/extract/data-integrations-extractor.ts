// The data-integration list (spec 2.3), followed page by page through its Link header → rows of data_integrations.
import type { ApiClient } from '../api/api-client.js';
import { listDataIntegrations } from '../api/metadata-endpoints.js';
import type { ExtractedRows } from './extracted-rows.js';
import { stringOrNull, timestampOrNull } from './extracted-rows.js';

export async function fetchDataIntegrationRows(client: ApiClient): Promise<ExtractedRows & { pages: number }> {
  const rows: Record<string, unknown>[] = [];
  let pages = 0;
  for await (const page of listDataIntegrations(client)) {
    pages++;
    for (const i of page) {
      rows.push({
        integration_id: i.integration_id, app_group_id: stringOrNull(i.app_group_id), integration_name: stringOrNull(i.integration_name),
        integration_type: stringOrNull(i.integration_type), integration_status: stringOrNull(i.integration_status),
        contact_emails: stringOrNull(i.contact_emails), last_updated_at: timestampOrNull(i.last_updated_at),
        warehouse_type: stringOrNull(i.warehouse_type), last_job_start_time: timestampOrNull(i.last_job_start_time),
        last_job_status: stringOrNull(i.last_job_status), next_scheduled_run: timestampOrNull(i.next_scheduled_run),
      });
    }
  }
  return { upserts: [{ table: 'data_integrations', rows }], replaces: [], pages };
}
