// `email-suppressions` → POST /email/blacklist (4.18): addresses suppressed and marked as hard bounces, 50 per request;
// irreversible, so it needs --confirm.
import type { ApiCall } from '../../api/api-call.js';
import { ENDPOINTS } from '../../api/endpoints.js';
import type { PinnedRows, PushTarget, RowOutcome, SourceRow } from '../push-target.js';
import { EMAIL, checkColumns, isProblem, requiredText } from '../row-checks.js';
import { show } from '../row-values.js';
import { serverMessage } from '../server-message.js';

export const SUPPRESSIONS_PER_REQUEST = 50;

export const emailSuppressionsTarget: PushTarget = {
  name: 'email-suppressions',
  summary:
    'suppress email addresses and mark them as hard bounces (POST /email/blacklist, 50 per request; irreversible: needs --confirm)',
  irreversible: true,
  maxBatchSize: SUPPRESSIONS_PER_REQUEST,
  minBatchSize: 1,
  endpointFor: () => ENDPOINTS.emailBlacklist,
  columnsProblem: (columns) => checkColumns('email-suppressions', columns, ['email'], ['email']),

  readRow(row, index) {
    const email = requiredText(row, 'email');
    if (isProblem(email)) return email.problem;
    if (!EMAIL.test(email)) return `column "email" holds ${show(email)}, not an email address`;
    return {
      index,
      destination: 'email_blacklist',
      key: email.toLowerCase(),
      values: { suppressed: true },
    } satisfies SourceRow;
  },

  plan: (row, acked) => (acked ? undefined : { operation: 'delete', payload: row.key }),
  groupKey: () => 'blacklist',
  call: (rows): ApiCall => ({ endpoint: ENDPOINTS.emailBlacklist, body: { email: rows.map((r) => r.payload) } }),
  read: (_response, rows): RowOutcome[] => rows.map((row) => ({ row, status: 'accepted' })),

  pin(error, rows) {
    // The emulator names the refused element as `email[3]`.
    const said = serverMessage(error);
    const named = /\bemail\[(\d+)\]/.exec(said);
    const row = named ? rows[Number(named[1])] : undefined;
    const pinned: PinnedRows = new Map();
    if (row) pinned.set(row, { status: 'rejected', error: said });
    return pinned;
  },
};
