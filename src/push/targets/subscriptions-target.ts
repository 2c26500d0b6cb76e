// `subscriptions` → POST /subscription/status/set (4.1): one row per (group, user) pair; rows of one group and state
// share requests of up to 50 users. With --mirror, a pair that left the query is unsubscribed.
import type { ApiCall } from '../../api/api-call.js';
import { ENDPOINTS } from '../../api/endpoints.js';
import type { FatalApiError } from '../../errors.js';
import type { PinnedRows, PushTarget, RowOutcome, SourceRow } from '../push-target.js';
import { E164, EMAIL, checkColumns, isProblem, optionalText, requiredText } from '../row-checks.js';
import type { Json, RowValues } from '../row-values.js';
import { show } from '../row-values.js';
import { serverMessage } from '../server-message.js';

const ADDRESS_COLUMNS = ['external_id', 'email', 'phone'] as const;
type AddressKind = (typeof ADDRESS_COLUMNS)[number];
const COLUMNS = ['subscription_group_id', 'subscription_state', ...ADDRESS_COLUMNS, 'channel'];

/** Users per request (spec 4.1: "up to 50 users at once"). */
export const SUBSCRIPTIONS_PER_REQUEST = 50;

interface SubscriptionValues extends RowValues {
  state: 'subscribed' | 'unsubscribed';
}

function addressOf(key: string): { kind: AddressKind; value: string } {
  const colon = key.indexOf(':');
  return { kind: key.slice(0, colon) as AddressKind, value: key.slice(colon + 1) };
}

export const subscriptionsTarget: PushTarget = {
  name: 'subscriptions',
  summary:
    'set users subscribed / unsubscribed in email and SMS subscription groups (POST /subscription/status/set, 50 per request)',
  irreversible: false,
  maxBatchSize: SUBSCRIPTIONS_PER_REQUEST,
  minBatchSize: 1,
  endpointFor: () => ENDPOINTS.subscriptionStatusSet,

  columnsProblem(columns) {
    const problem = checkColumns('subscriptions', columns, ['subscription_group_id', 'subscription_state'], COLUMNS);
    if (problem) return problem;
    if (!ADDRESS_COLUMNS.some((c) => columns.includes(c)))
      return 'subscriptions needs one of the columns "external_id", "email", "phone" to address users';
    return undefined;
  },

  readRow(row, index) {
    const group = requiredText(row, 'subscription_group_id');
    if (isProblem(group)) return group.problem;
    const state = row['subscription_state'];
    if (state !== 'subscribed' && state !== 'unsubscribed') {
      return `column "subscription_state" must be 'subscribed' or 'unsubscribed', got ${show(state)}`;
    }
    const given: { kind: AddressKind; value: string }[] = [];
    for (const kind of ADDRESS_COLUMNS) {
      const value = optionalText(row, kind);
      if (isProblem(value)) return value.problem;
      if (value !== undefined) given.push({ kind, value });
    }
    if (given.length !== 1) {
      return given.length === 0
        ? 'the row addresses nobody: fill exactly one of external_id, email, phone'
        : `the row fills ${given.map((g) => g.kind).join(' and ')}: fill exactly one of external_id, email, phone per row`;
    }
    const address = given[0]!;
    if (address.kind === 'email' && !EMAIL.test(address.value))
      return `column "email" holds ${show(address.value)}, not an email address`;
    if (address.kind === 'phone' && !E164.test(address.value))
      return `column "phone" holds ${show(address.value)}, not an E.164 number (e.g. +15551234567)`;
    const channel = optionalText(row, 'channel');
    if (isProblem(channel)) return channel.problem;
    if (channel !== undefined && channel !== 'email' && channel !== 'sms')
      return `column "channel" must be 'email' or 'sms', got ${show(channel)}`;
    if (channel === 'sms' && address.kind === 'email')
      return `group ${group} is an SMS group (channel 'sms'): address it by external_id or phone, not email`;
    if (channel === 'email' && address.kind === 'phone')
      return `group ${group} is an email group (channel 'email'): address it by external_id or email, not phone`;
    // Addresses are case-insensitive: one key per address whatever its spelling.
    const value = address.kind === 'email' ? address.value.toLowerCase() : address.value;
    const values: SubscriptionValues = { state };
    if (channel !== undefined) values['channel'] = channel;
    return { index, destination: group, key: `${address.kind}:${value}`, values } satisfies SourceRow;
  },

  checkRows(rows) {
    // SMS groups accept only external_id or phone (4.1): a group addressed both by email and by phone cannot be right.
    const kinds = new Map<string, Set<AddressKind>>();
    for (const row of rows) {
      const set = kinds.get(row.destination) ?? new Set<AddressKind>();
      set.add(addressOf(row.key).kind);
      kinds.set(row.destination, set);
    }
    const problems = new Map<number, string>();
    for (const row of rows) {
      const kind = addressOf(row.key).kind;
      if (
        kind !== 'external_id' &&
        kinds.get(row.destination)?.has('email') &&
        kinds.get(row.destination)?.has('phone')
      ) {
        problems.set(
          row.index,
          `group ${row.destination} is addressed by email in some rows and by phone in others; an SMS group takes only external_id or phone, an email group only external_id or email — fix the query or add a "channel" column`,
        );
      }
    }
    return problems;
  },

  plan(row, acked) {
    if (acked && acked['state'] === row.values['state']) return undefined;
    return {
      operation: row.values['state'] === 'subscribed' ? 'set' : 'unsubscribe',
      payload: addressOf(row.key).value,
    };
  },

  leftSource(_destination, key, acked) {
    if (acked['state'] !== 'subscribed') return undefined;
    return { values: { ...acked, state: 'unsubscribed' }, operation: 'unsubscribe', payload: addressOf(key).value };
  },

  groupKey: (row) => `${row.destination}\u0000${String(row.values['state'])}`,

  call(rows): ApiCall {
    const first = rows[0]!;
    const body: Record<string, Json> = {
      subscription_group_id: first.destination,
      subscription_state: first.values['state']!,
    };
    for (const kind of ADDRESS_COLUMNS) {
      const list = rows.filter((r) => addressOf(r.key).kind === kind).map((r) => r.payload);
      if (list.length > 0) body[kind] = list;
    }
    return { endpoint: ENDPOINTS.subscriptionStatusSet, body };
  },

  read(_response, rows): RowOutcome[] {
    return rows.map((row) => ({ row, status: 'accepted' }));
  },

  pin(error: FatalApiError, rows) {
    const pinned: PinnedRows = new Map();
    const said = serverMessage(error);
    // An unknown group refuses every row that names it: no need to halve down to single rows.
    if (/subscription group/i.test(said) && /invalid|unknown|not found/i.test(said)) {
      for (const row of rows) pinned.set(row, { status: 'rejected', error: said });
      return pinned;
    }
    // The emulator names the offending element as `email[3]`; the index counts within that list of this request.
    const named = /\b(external_id|email|phone)\[(\d+)\]/.exec(said);
    if (named) {
      const list = rows.filter((r) => addressOf(r.key).kind === named[1]);
      const row = list[Number(named[2])];
      if (row) pinned.set(row, { status: 'rejected', error: said });
    }
    return pinned;
  },
};
