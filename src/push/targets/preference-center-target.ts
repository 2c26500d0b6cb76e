// `preference-center` → PUT /preference_center/v1/{id} (4.9): one request per preference center row, the whole page
// sent again when any column changed (PUT replaces). The pool allows 10 requests per minute.
import type { ApiCall } from '../../api/api-call.js';
import { ENDPOINTS } from '../../api/endpoints.js';
import type { PushTarget, RowOutcome, SourceRow } from '../push-target.js';
import { checkColumns, isProblem, optionalText, requiredText } from '../row-checks.js';
import type { Json, RowValues } from '../row-values.js';
import { show } from '../row-values.js';

const REQUIRED = ['preference_center_id', 'preference_center_page_html', 'confirmation_page_html'];
const OPTIONAL = ['name', 'preference_center_title', 'state', 'meta_viewport_content'];

export const preferenceCenterTarget: PushTarget = {
  name: 'preference-center',
  summary:
    'update preference centers: page and confirmation HTML, title, state, viewport (PUT /preference_center/v1/{id}, 10/min)',
  irreversible: false,
  maxBatchSize: 1,
  minBatchSize: 1,
  endpointFor: () => ENDPOINTS.preferenceCenterUpdate,
  columnsProblem: (columns) => checkColumns('preference-center', columns, REQUIRED, [...REQUIRED, ...OPTIONAL]),

  readRow(row, index) {
    const id = requiredText(row, 'preference_center_id');
    if (isProblem(id)) return id.problem;
    const values: RowValues = {};
    for (const column of ['preference_center_page_html', 'confirmation_page_html']) {
      const text = requiredText(row, column);
      if (isProblem(text)) return text.problem;
      values[column] = text;
    }
    for (const column of OPTIONAL) {
      const text = optionalText(row, column);
      if (isProblem(text)) return text.problem;
      if (text !== undefined) values[column] = text;
    }
    if (values['state'] !== undefined && values['state'] !== 'active' && values['state'] !== 'draft') {
      return `column "state" must be 'active' or 'draft', got ${show(values['state'])}`;
    }
    return { index, destination: 'preference_centers', key: id, values } satisfies SourceRow;
  },

  plan(row) {
    const { meta_viewport_content: viewport, ...rest } = row.values;
    const payload: Record<string, Json> = {
      ...rest,
      ...(viewport !== undefined ? { options: { 'meta-viewport-content': viewport } } : {}),
    };
    return { operation: 'update', payload };
  },

  groupKey: (row) => row.key,

  call: (rows): ApiCall => ({
    endpoint: ENDPOINTS.preferenceCenterUpdate,
    pathParams: { id: rows[0]!.key },
    body: rows[0]!.payload,
  }),

  read: (_response, rows): RowOutcome[] => rows.map((row) => ({ row, status: 'accepted' })),
};
