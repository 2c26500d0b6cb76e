// POST /subscription/status/set (4.1) and its v2 counterpart: validate the whole body, then move every addressed user
// to the requested state. Nothing changes when any part of the body is invalid.
import { ENDPOINTS } from '../../api/endpoints.js';
import type { MembershipChange } from '../people/subscription-memberships.js';
import { applyMembershipChange } from '../people/subscription-memberships.js';
import { findSubscriptionGroup } from '../people/people-workspace.js';
import type { PeopleWorkspace } from '../people/people-workspace.js';
import type { EmulatorRequest, EmulatorResponse, Route, RouteContext } from '../route.js';
import { badRequest } from '../route.js';
import type { Checked } from './body-checks.js';
import { CREATED_SUCCESS, E164, EMAIL, isPlainObject, show, stringList } from './body-checks.js';

/** Ids, emails or phones per list (spec 4.1, 8). */
export const MAX_IDS_PER_LIST = 50;
/** Group entries per v2 request: the spec is silent; the per-list limit is reused. */
export const MAX_V2_GROUP_ENTRIES = 50;

/** The message the live service answers for an unknown group (recorded). */
export const INVALID_GROUP_MESSAGE = 'Invalid subscription group ID';

/**
 * One group's change as written by the client. `keys` names the id-list keys accepted: v1 uses `external_id`, `email`,
 * `phone`; a v2 entry also accepts the plural spellings.
 */
function parseChange(
  people: PeopleWorkspace,
  body: Record<string, unknown>,
  where: string,
  plural: boolean,
): Checked<MembershipChange> {
  const groupId = body['subscription_group_id'];
  if (typeof groupId !== 'string' || groupId === '') {
    return {
      ok: false,
      message: `${where}subscription_group_id is required and must be a string, got ${show(groupId)}`,
    };
  }
  const state = body['subscription_state'];
  if (state !== 'subscribed' && state !== 'unsubscribed') {
    return {
      ok: false,
      message: `${where}subscription_state must be "subscribed" or "unsubscribed", got ${show(state)}`,
    };
  }
  const group = findSubscriptionGroup(people, groupId);
  if (!group) return { ok: false, message: INVALID_GROUP_MESSAGE };

  const pickKey = (singular: string, pluralKey: string): [string, unknown] | undefined => {
    if (body[singular] !== undefined) return [singular, body[singular]];
    if (plural && body[pluralKey] !== undefined) return [pluralKey, body[pluralKey]];
    return undefined;
  };
  const lists: { externalIds: string[]; emails: string[]; phones: string[] } = {
    externalIds: [],
    emails: [],
    phones: [],
  };
  const external = pickKey('external_id', 'external_ids');
  if (external) {
    // 4.1 bounds external_id only from above ("up to 50") while email and phone need at least 1; typed clients
    // (braze-api) always send external_id, empty when they address users by email or phone.
    const r = stringList(external[1], {
      field: `${where}${external[0]}`,
      max: MAX_IDS_PER_LIST,
      allowSingle: true,
      allowEmpty: true,
    });
    if (!r.ok) return r;
    lists.externalIds = r.value;
  }
  const email = pickKey('email', 'emails');
  if (email) {
    if (group.channel === 'sms') {
      return {
        ok: false,
        message: `${where}${email[0]} cannot address SMS subscription group ${groupId}: use external_id or phone`,
      };
    }
    const r = stringList(email[1], {
      field: `${where}${email[0]}`,
      max: MAX_IDS_PER_LIST,
      allowSingle: true,
      pattern: { re: EMAIL, what: 'an email address' },
    });
    if (!r.ok) return r;
    lists.emails = r.value;
  }
  const phone = pickKey('phone', 'phones');
  if (phone) {
    if (group.channel === 'email') {
      return {
        ok: false,
        message: `${where}${phone[0]} cannot address email subscription group ${groupId}: use external_id or email`,
      };
    }
    const r = stringList(phone[1], {
      field: `${where}${phone[0]}`,
      max: MAX_IDS_PER_LIST,
      allowSingle: true,
      pattern: { re: E164, what: 'an E.164 phone number (e.g. +15551234567)' },
    });
    if (!r.ok) return r;
    lists.phones = r.value;
  }
  if (lists.externalIds.length + lists.emails.length + lists.phones.length === 0) {
    const other = group.channel === 'email' ? 'email' : 'phone';
    return {
      ok: false,
      message: `${where}no user addressed: send external_id or ${other} (1 to ${MAX_IDS_PER_LIST} values)`,
    };
  }
  return { ok: true, value: { groupId, state, ...lists } };
}

function handleV1(req: EmulatorRequest, ctx: RouteContext): EmulatorResponse {
  if (!isPlainObject(req.body))
    return badRequest(
      `the body must be a JSON object with subscription_group_id and subscription_state, got ${show(req.body)}`,
    );
  const change = parseChange(ctx.workspace.people, req.body, '', false);
  if (!change.ok) return badRequest(change.message);
  applyMembershipChange(ctx.workspace.people, change.value, ctx.clock.nowMs());
  return CREATED_SUCCESS;
}

/**
 * v2 accepts `{ subscription_groups: [ { subscription_group_id, subscription_state, external_ids?, emails?, phones? } ] }`
 * (singular keys too, as the recorded client sends) and, for clients that reuse their v1 code, a v1 body.
 */
function handleV2(req: EmulatorRequest, ctx: RouteContext): EmulatorResponse {
  const body = req.body;
  if (!isPlainObject(body))
    return badRequest(`the body must be a JSON object with a subscription_groups array, got ${show(body)}`);
  if (body['subscription_groups'] === undefined) return handleV1(req, ctx);
  const entries = body['subscription_groups'];
  if (!Array.isArray(entries) || entries.length === 0) {
    return badRequest(`subscription_groups must be a non-empty array of group objects, got ${show(entries)}`);
  }
  if (entries.length > MAX_V2_GROUP_ENTRIES) {
    return badRequest(
      `subscription_groups has ${entries.length} entries, more than the ${MAX_V2_GROUP_ENTRIES} allowed: split the request`,
    );
  }
  const changes: MembershipChange[] = [];
  for (const [i, entry] of entries.entries()) {
    if (!isPlainObject(entry)) return badRequest(`subscription_groups[${i}] must be an object, got ${show(entry)}`);
    const change = parseChange(ctx.workspace.people, entry, `subscription_groups[${i}].`, true);
    if (!change.ok) return badRequest(change.message);
    changes.push(change.value);
  }
  for (const change of changes) applyMembershipChange(ctx.workspace.people, change, ctx.clock.nowMs());
  return CREATED_SUCCESS;
}

export const subscriptionStatusSetRoute: Route = { endpoint: ENDPOINTS.subscriptionStatusSet, handle: handleV1 };
export const subscriptionStatusSetV2Route: Route = { endpoint: ENDPOINTS.subscriptionStatusSetV2, handle: handleV2 };
