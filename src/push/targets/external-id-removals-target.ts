// `external-id-removals` → POST /users/external_ids/remove (4.7): deprecated IDs removed, 50 per request; irreversible,
// so it needs --confirm. `removal_errors` name the index of the refused ID, mapped back to the source row.
import type { ApiCall } from '../../api/api-call.js';
import { ENDPOINTS } from '../../api/endpoints.js';
import type { ExternalIdRemoveBody } from '../../api/types.js';
import { readIndexErrors } from '../index-errors.js';
import type { PushTarget, RowOutcome, SourceRow } from '../push-target.js';
import { checkColumns, isProblem, requiredText } from '../row-checks.js';

export const REMOVALS_PER_REQUEST = 50;

export const externalIdRemovalsTarget: PushTarget = {
  name: 'external-id-removals',
  summary:
    'remove deprecated external IDs (POST /users/external_ids/remove, 50 per request; irreversible: needs --confirm)',
  irreversible: true,
  maxBatchSize: REMOVALS_PER_REQUEST,
  minBatchSize: 1,
  endpointFor: () => ENDPOINTS.externalIdsRemove,
  columnsProblem: (columns) => checkColumns('external-id-removals', columns, ['external_id'], ['external_id']),

  readRow(row, index) {
    const id = requiredText(row, 'external_id');
    if (isProblem(id)) return id.problem;
    return { index, destination: 'external_ids', key: id, values: { removed: true } } satisfies SourceRow;
  },

  plan: (row, acked) => (acked ? undefined : { operation: 'delete', payload: row.key }),

  groupKey: () => 'removals',

  call(rows): ApiCall {
    return { endpoint: ENDPOINTS.externalIdsRemove, body: { external_ids: rows.map((r) => r.payload) } };
  },

  read(response, rows): RowOutcome[] {
    const body = response.body as Partial<ExternalIdRemoveBody> | undefined;
    const { byIndex, unplaced } = readIndexErrors(body?.removal_errors, rows.length);
    const listed = Array.isArray(body?.removed_ids);
    const removed = new Set(listed ? body!.removed_ids!.map(String) : []);
    return rows.map((row, i) => {
      const error = byIndex.get(i);
      if (error !== undefined) return { row, status: 'rejected', error };
      if (!listed || removed.has(row.key)) return { row, status: 'accepted' };
      return {
        row,
        status: 'transient',
        error: `the platform reported no outcome for this removal${unplaced.length > 0 ? ` (unplaced errors: ${unplaced.join('; ')})` : ''}; it is sent again next push`,
      };
    });
  },
};
