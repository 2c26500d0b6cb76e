// `schedule-cancellations` → POST /messages/schedule/delete (4.17): one schedule per request; irreversible, so it needs
// --confirm. A schedule already sent or unknown is rejected with the platform's reason.
import type { ApiCall } from '../../api/api-call.js';
import { ENDPOINTS } from '../../api/endpoints.js';
import type { PushTarget, RowOutcome, SourceRow } from '../push-target.js';
import { checkColumns, isProblem, requiredText } from '../row-checks.js';

export const scheduleCancellationsTarget: PushTarget = {
  name: 'schedule-cancellations',
  summary:
    'cancel scheduled messages before they are sent (POST /messages/schedule/delete; irreversible: needs --confirm)',
  irreversible: true,
  maxBatchSize: 1,
  minBatchSize: 1,
  endpointFor: () => ENDPOINTS.scheduleDelete,
  columnsProblem: (columns) => checkColumns('schedule-cancellations', columns, ['schedule_id'], ['schedule_id']),

  readRow(row, index) {
    const id = requiredText(row, 'schedule_id');
    if (isProblem(id)) return id.problem;
    return { index, destination: 'schedules', key: id, values: { cancelled: true } } satisfies SourceRow;
  },

  plan: (row, acked) => (acked ? undefined : { operation: 'delete', payload: row.key }),
  groupKey: (row) => row.key,
  call: (rows): ApiCall => ({ endpoint: ENDPOINTS.scheduleDelete, body: { schedule_id: rows[0]!.payload } }),
  read: (_response, rows): RowOutcome[] => rows.map((row) => ({ row, status: 'accepted' })),
};
