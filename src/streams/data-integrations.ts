// data_integrations: GET /cdi/integrations (spec 4.3 / 2.3), followed page by page through its Link header.
import { CDI_PAGE_SIZE, ENDPOINTS } from '../api/endpoints.js';
import { listDataIntegrations } from '../api/metadata-endpoints.js';
import { stringOrNull, timestampOrNull } from '../extract/extracted-rows.js';
import { col, defineTable, rowsOf } from '../load/table-definition.js';
import type { RowOf } from '../load/table-definition.js';
import { pagedListStream } from './stream-declaration.js';

const table = defineTable({
  name: 'data_integrations',
  description: 'Data (cloud data ingestion) integrations of the workspace and their last sync.',
  columns: [
    col('integration_id', 'VARCHAR'),
    col('app_group_id', 'VARCHAR'),
    col('integration_name', 'VARCHAR'),
    col('integration_type', 'VARCHAR'),
    col('integration_status', 'VARCHAR'),
    col('contact_emails', 'VARCHAR'),
    col('last_updated_at', 'TIMESTAMP'),
    col('warehouse_type', 'VARCHAR'),
    col('last_job_start_time', 'TIMESTAMP'),
    col('last_job_status', 'VARCHAR'),
    col('next_scheduled_run', 'TIMESTAMP'),
  ],
  key: ['integration_id'],
});

export const dataIntegrationsStream = pagedListStream({
  kind: 'paged_list',
  name: 'data_integrations',
  description: 'Every data integration of the workspace.',
  endpoint: ENDPOINTS.cdiIntegrations,
  tables: [table],
  options: { keys: [], example: '{}', read: () => ({}) },
  // The Link header stops at the last page, so a full last page costs nothing more.
  estimatePages: (integrations) => Math.max(1, Math.ceil(integrations / CDI_PAGE_SIZE)),
  fetch: async (client) => {
    const rows: RowOf<typeof table>[] = [];
    let pages = 0;
    for await (const page of listDataIntegrations(client)) {
      pages++;
      for (const i of page) {
        rows.push({
          integration_id: i.integration_id,
          app_group_id: stringOrNull(i.app_group_id),
          integration_name: stringOrNull(i.integration_name),
          integration_type: stringOrNull(i.integration_type),
          integration_status: stringOrNull(i.integration_status),
          contact_emails: stringOrNull(i.contact_emails),
          last_updated_at: timestampOrNull(i.last_updated_at),
          warehouse_type: stringOrNull(i.warehouse_type),
          last_job_start_time: timestampOrNull(i.last_job_start_time),
          last_job_status: stringOrNull(i.last_job_status),
          next_scheduled_run: timestampOrNull(i.next_scheduled_run),
        });
      }
    }
    return { upserts: [rowsOf(table, rows)], replaces: [], pages };
  },
});
