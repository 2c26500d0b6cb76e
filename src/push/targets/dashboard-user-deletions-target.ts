// `dashboard-user-deletions` → DELETE /scim/v2/Users/{id} (4.8) with the SCIM token and X-Request-Origin: one user per
// request; irreversible, so it needs --confirm. An unknown id (404) is reported on its row.
import type { ApiCall } from '../../api/api-call.js';
import { ENDPOINTS } from '../../api/endpoints.js';
import type { PushTarget, RowOutcome, SourceRow } from '../push-target.js';
import { checkColumns, isProblem, requiredText } from '../row-checks.js';

export const dashboardUserDeletionsTarget: PushTarget = {
  name: 'dashboard-user-deletions',
  summary:
    'delete dashboard users by SCIM id (DELETE /scim/v2/Users/{id}; SCIM token + request origin; irreversible: needs --confirm)',
  irreversible: true,
  maxBatchSize: 1,
  minBatchSize: 1,
  endpointFor: () => ENDPOINTS.scimUserDelete,
  columnsProblem: (columns) => checkColumns('dashboard-user-deletions', columns, ['id'], ['id']),

  readRow(row, index) {
    const id = requiredText(row, 'id');
    if (isProblem(id)) return id.problem;
    return { index, destination: 'scim_users', key: id, values: { deleted: true } } satisfies SourceRow;
  },

  plan: (row, acked) => (acked ? undefined : { operation: 'delete', payload: row.key }),
  groupKey: (row) => row.key,
  call: (rows): ApiCall => ({
    endpoint: ENDPOINTS.scimUserDelete,
    pathParams: { id: rows[0]!.key },
    credential: 'scim',
  }),
  read: (_response, rows): RowOutcome[] => rows.map((row) => ({ row, status: 'accepted' })),
};
