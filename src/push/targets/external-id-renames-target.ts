// `external-id-renames` → POST /users/external_ids/rename (4.6): 50 renames per request; `rename_errors` name the
// index of the refused object, mapped back to the source row. `external_ids` may list strings or objects.
import type { ApiCall } from '../../api/api-call.js';
import { ENDPOINTS } from '../../api/endpoints.js';
import type { ExternalIdRenameBody } from '../../api/types.js';
import { readIndexErrors } from '../index-errors.js';
import type { PushTarget, RowOutcome, SourceRow } from '../push-target.js';
import { checkColumns, isProblem, requiredText } from '../row-checks.js';
import { show } from '../row-values.js';

export const RENAMES_PER_REQUEST = 50;

export const externalIdRenamesTarget: PushTarget = {
  name: 'external-id-renames',
  summary:
    'give users a new primary external ID, the old one becoming deprecated (POST /users/external_ids/rename, 50 per request)',
  irreversible: false,
  maxBatchSize: RENAMES_PER_REQUEST,
  minBatchSize: 1,
  endpointFor: () => ENDPOINTS.externalIdsRename,
  columnsProblem: (columns) =>
    checkColumns(
      'external-id-renames',
      columns,
      ['current_external_id', 'new_external_id'],
      ['current_external_id', 'new_external_id'],
    ),

  readRow(row, index) {
    const current = requiredText(row, 'current_external_id');
    if (isProblem(current)) return current.problem;
    const next = requiredText(row, 'new_external_id');
    if (isProblem(next)) return next.problem;
    if (current === next) return `current_external_id and new_external_id are both ${show(current)}: they must differ`;
    return { index, destination: 'external_ids', key: current, values: { new_external_id: next } } satisfies SourceRow;
  },

  plan(row, acked) {
    if (acked && acked['new_external_id'] === row.values['new_external_id']) return undefined;
    return {
      operation: 'update',
      payload: { current_external_id: row.key, new_external_id: row.values['new_external_id']! },
    };
  },

  groupKey: () => 'renames',

  call(rows): ApiCall {
    return { endpoint: ENDPOINTS.externalIdsRename, body: { external_id_renames: rows.map((r) => r.payload) } };
  },

  read(response, rows): RowOutcome[] {
    const body = response.body as Partial<ExternalIdRenameBody> | undefined;
    const { byIndex, unplaced } = readIndexErrors(body?.rename_errors, rows.length);
    const confirmed = new Set<string>();
    const listed = Array.isArray(body?.external_ids);
    for (const entry of listed ? body!.external_ids! : []) {
      if (typeof entry === 'string') confirmed.add(entry);
      else if (entry && typeof entry === 'object') {
        confirmed.add(String((entry as { current_external_id?: unknown }).current_external_id));
        confirmed.add(String((entry as { new_external_id?: unknown }).new_external_id));
      }
    }
    return rows.map((row, i) => {
      const error = byIndex.get(i);
      if (error !== undefined) return { row, status: 'rejected', error };
      const next = String(row.values['new_external_id']);
      // The spec lists successful renames; a row neither listed nor refused has no known outcome.
      if (!listed || confirmed.has(row.key) || confirmed.has(next)) return { row, status: 'accepted' };
      return {
        row,
        status: 'transient',
        error: `the platform reported no outcome for this rename${unplaced.length > 0 ? ` (unplaced errors: ${unplaced.join('; ')})` : ''}; it is sent again next push`,
      };
    });
  },
};
