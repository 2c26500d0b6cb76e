// One attribute of a user attributes object applied to a profile (spec 2.2): standard fields with their allowed
// values, and custom attributes by type — arrays (set/add/remove, deduped, capped), integer increments, dates, null deletes.
import { IANAZone } from 'luxon';
import { parseAttributeDate } from './attribute-dates.js';
import { toCountryCode } from './country-codes.js';
import { toLanguageCode } from './language-codes.js';
import type { PeopleWorkspace } from './people-workspace.js';
import { arrayAttributeLimit, findSubscriptionGroup } from './people-workspace.js';
import { isPlainObject as isObject, show } from './plain-values.js';
import type { PushToken, UserProfile } from './users.js';

/** A problem with one attribute: the attribute is skipped, the rest of the object still applies. */
export type AttributeProblem = string;

const SUBSCRIBE_VALUES = ['opted_in', 'unsubscribed', 'subscribed'];
const GENDERS = ['M', 'F', 'O', 'N', 'P'];
const DATE_FIELDS = new Set(['date_of_first_session', 'date_of_last_session', 'marked_email_as_spam_at']);
const STRING_FIELDS = new Set(['email', 'phone', 'first_name', 'last_name', 'home_city']);
const BOOLEAN_FIELDS = new Set(['email_open_tracking_disabled', 'email_click_tracking_disabled']);

/** Apply `key: value` to `user`. Returns a problem when the value is not allowed (nothing is changed then). */
export function applyAttribute(
  people: PeopleWorkspace,
  user: UserProfile,
  key: string,
  value: unknown,
  nowMs: number,
): AttributeProblem | undefined {
  if (key === '') return 'attribute names must not be empty';
  // JSON.parse makes "__proto__" an own key; storing it would replace the attributes object's prototype.
  if (key === '__proto__') return 'the attribute name "__proto__" is reserved: choose another name';
  if (key === 'subscription_groups') return applySubscriptionGroups(people, user, value);
  if (key === 'push_tokens') return applyPushTokens(people, user, value);
  if (value === null) {
    // Rule 1: null deletes the attribute (identifiers are guarded by the caller).
    delete user.attributes[key];
    return undefined;
  }
  const standard = standardValue(key, value, nowMs);
  if (standard !== undefined) {
    if (standard.problem !== undefined) return standard.problem;
    if (standard.store) user.attributes[key] = standard.value;
    return undefined;
  }
  return applyCustom(people, user, key, value, nowMs);
}

type StandardOutcome = { problem?: AttributeProblem; store: boolean; value?: unknown };

/** The stored value of a standard field, or undefined when `key` is not a standard field. */
function standardValue(key: string, value: unknown, nowMs: number): StandardOutcome | undefined {
  const fail = (problem: string): StandardOutcome => ({ problem: `${key}: ${problem}`, store: false });
  if (STRING_FIELDS.has(key))
    return typeof value === 'string' ? { store: true, value } : fail(`must be a string, got ${show(value)}`);
  if (BOOLEAN_FIELDS.has(key))
    return typeof value === 'boolean' ? { store: true, value } : fail(`must be true or false, got ${show(value)}`);
  if (DATE_FIELDS.has(key)) {
    if (typeof value !== 'string')
      return fail(`must be a date string (ISO 8601 or a listed format), got ${show(value)}`);
    const parsed = parseAttributeDate(value, nowMs);
    if (!parsed) return fail(`${show(value)} is not in an accepted date format (e.g. 2024-05-01T10:00:00Z)`);
    return { store: true, value: parsed.kind === 'date' ? parsed.iso : parsed.value };
  }
  switch (key) {
    case 'country':
      // Best-effort mapping; an unmatched input becomes null (spec 2.2).
      return typeof value === 'string'
        ? { store: true, value: toCountryCode(value) }
        : fail(`must be a string (ISO-3166-1 alpha-2, e.g. "US"), got ${show(value)}`);
    case 'language':
      return typeof value === 'string'
        ? { store: true, value: toLanguageCode(value) }
        : fail(`must be a string (ISO-639-1, e.g. "en"), got ${show(value)}`);
    case 'gender': {
      const g = typeof value === 'string' ? value.toUpperCase() : undefined;
      return g !== undefined && GENDERS.includes(g)
        ? { store: true, value: g }
        : fail(`must be one of ${GENDERS.join(', ')} or null, got ${show(value)}`);
    }
    case 'email_subscribe':
    case 'push_subscribe':
      return typeof value === 'string' && SUBSCRIBE_VALUES.includes(value)
        ? { store: true, value }
        : fail(`must be one of ${SUBSCRIBE_VALUES.join(', ')}, got ${show(value)}`);
    case 'dob': {
      const ok =
        typeof value === 'string' &&
        /^\d{4}-\d{2}-\d{2}$/.test(value) &&
        parseAttributeDate(value, Number.MAX_SAFE_INTEGER)?.kind === 'date';
      return ok ? { store: true, value } : fail(`must be a date written YYYY-MM-DD, got ${show(value)}`);
    }
    case 'time_zone':
      // "Only valid values are stored": an unknown zone is dropped without an error, as the platform does.
      if (typeof value !== 'string')
        return fail(`must be an IANA time zone name (e.g. "Europe/Berlin"), got ${show(value)}`);
      return { store: IANAZone.isValidZone(value), value };
    case 'current_location':
      return isObject(value) && typeof value['longitude'] === 'number' && typeof value['latitude'] === 'number'
        ? { store: true, value: { longitude: value['longitude'], latitude: value['latitude'] } }
        : fail(`must be an object with numeric longitude and latitude, got ${show(value)}`);
    case 'facebook':
      return checkShape(key, value, { id: 'string', likes: 'strings', num_friends: 'integer' });
    case 'twitter':
      return checkShape(key, value, {
        id: 'integer',
        screen_name: 'string',
        followers_count: 'integer',
        friends_count: 'integer',
        statuses_count: 'integer',
      });
    default:
      return undefined;
  }
}

function checkShape(
  key: string,
  value: unknown,
  shape: Record<string, 'string' | 'strings' | 'integer'>,
): StandardOutcome {
  if (!isObject(value)) return { problem: `${key}: must be an object, got ${show(value)}`, store: false };
  for (const [field, v] of Object.entries(value)) {
    const want = shape[field];
    if (want === undefined)
      return {
        problem: `${key}.${field} is not a field of ${key} (allowed: ${Object.keys(shape).join(', ')})`,
        store: false,
      };
    const ok =
      want === 'string'
        ? typeof v === 'string'
        : want === 'integer'
          ? Number.isInteger(v)
          : Array.isArray(v) && v.every((x) => typeof x === 'string');
    if (!ok)
      return {
        problem: `${key}.${field} must be ${want === 'strings' ? 'an array of strings' : `a${want === 'integer' ? 'n integer' : ' string'}`}, got ${show(v)}`,
        store: false,
      };
  }
  return { store: true, value: { ...value } };
}

function applySubscriptionGroups(
  people: PeopleWorkspace,
  user: UserProfile,
  value: unknown,
): AttributeProblem | undefined {
  if (!Array.isArray(value))
    return `subscription_groups must be an array of { subscription_group_id, subscription_state }, got ${show(value)}`;
  const changes: [string, 'subscribed' | 'unsubscribed'][] = [];
  for (const [i, entry] of value.entries()) {
    const id = isObject(entry) ? entry['subscription_group_id'] : undefined;
    const state = isObject(entry) ? entry['subscription_state'] : undefined;
    if (typeof id !== 'string' || (state !== 'subscribed' && state !== 'unsubscribed')) {
      return `subscription_groups[${i}] must be { subscription_group_id: string, subscription_state: "subscribed" | "unsubscribed" }, got ${show(entry)}`;
    }
    if (!findSubscriptionGroup(people, id)) return `subscription_groups[${i}]: unknown subscription group ${show(id)}`;
    changes.push([id, state]);
  }
  for (const [id, state] of changes) user.subscriptionGroups.set(id, state);
  return undefined;
}

/** Validate push token objects; a missing device_id gets a generated one (spec 2.2). */
export function parsePushTokens(people: PeopleWorkspace, value: unknown): PushToken[] | AttributeProblem {
  if (!Array.isArray(value) || value.length === 0)
    return `push_tokens must be a non-empty array of { app_id, token, device_id? }, got ${show(value)}`;
  const tokens: PushToken[] = [];
  for (const [i, t] of value.entries()) {
    if (
      !isObject(t) ||
      typeof t['app_id'] !== 'string' ||
      typeof t['token'] !== 'string' ||
      t['token'] === '' ||
      (t['device_id'] !== undefined && typeof t['device_id'] !== 'string')
    ) {
      return `push_tokens[${i}] must be { app_id: string, token: string, device_id?: string }, got ${show(t)}`;
    }
    const deviceId =
      typeof t['device_id'] === 'string' ? t['device_id'] : `generated_device_${++people.counters.devices}`;
    tokens.push({ app_id: t['app_id'], token: t['token'], device_id: deviceId });
  }
  return tokens;
}

function applyPushTokens(people: PeopleWorkspace, user: UserProfile, value: unknown): AttributeProblem | undefined {
  if (value === null) {
    user.pushTokens = [];
    return undefined;
  }
  const tokens = parsePushTokens(people, value);
  if (typeof tokens === 'string') return tokens;
  for (const token of tokens) {
    user.pushTokens = user.pushTokens.filter((t) => t.token !== token.token);
    user.pushTokens.push(token);
  }
  return undefined;
}

type Scalar = string | number | boolean;

function isScalar(v: unknown): v is Scalar {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

function scalarList(key: string, op: string, value: unknown): Scalar[] | AttributeProblem {
  if (!Array.isArray(value)) return `${key}.${op} must be an array, got ${show(value)}`;
  const bad = value.findIndex((v) => !isScalar(v));
  if (bad >= 0)
    return `${key}${op ? `.${op}` : ''}[${bad}] is ${show(value[bad])}: array attributes hold strings, numbers or booleans (multi-dimensional arrays are unsupported)`;
  return value as Scalar[];
}

/** Unique values in order of first appearance, then only the most recent `limit` (the end of the array) kept. */
function capArray(values: readonly Scalar[], limit: number): Scalar[] {
  const unique = [...new Set(values)];
  return unique.length > limit ? unique.slice(unique.length - limit) : unique;
}

function applyCustom(
  people: PeopleWorkspace,
  user: UserProfile,
  key: string,
  value: unknown,
  nowMs: number,
): AttributeProblem | undefined {
  const limit = arrayAttributeLimit(people, key);
  if (Array.isArray(value)) {
    const list = scalarList(key, '', value);
    if (typeof list === 'string') return list;
    user.attributes[key] = capArray(list, limit);
    return undefined;
  }
  if (isObject(value)) {
    const ops = Object.keys(value);
    if (ops.length === 1 && ops[0] === 'inc') {
      const by = value['inc'];
      if (!Number.isInteger(by)) return `${key}.inc must be an integer, got ${show(by)}`;
      const current = user.attributes[key] ?? 0;
      if (!Number.isInteger(current))
        return `${key} holds ${show(current)}, not an integer: {"inc": n} only increments integer attributes`;
      user.attributes[key] = (current as number) + (by as number);
      return undefined;
    }
    if (ops.length > 0 && ops.every((op) => op === 'add' || op === 'remove')) {
      const current = user.attributes[key] ?? [];
      if (!Array.isArray(current))
        return `${key} holds ${show(current)}, not an array: "add"/"remove" only change array attributes`;
      let next = current as Scalar[];
      if (value['add'] !== undefined) {
        const add = scalarList(key, 'add', value['add']);
        if (typeof add === 'string') return add;
        // An added element goes to the end; one that exists already moves there (spec 2.2).
        for (const v of add) next = [...next.filter((x) => x !== v), v];
      }
      if (value['remove'] !== undefined) {
        const remove = scalarList(key, 'remove', value['remove']);
        if (typeof remove === 'string') return remove;
        next = next.filter((x) => !remove.includes(x));
      }
      user.attributes[key] = capArray(next, limit);
      return undefined;
    }
    return `${key}: object values are not a custom attribute type here; use {"inc": n} for integers or {"add": [...]}/{"remove": [...]} for arrays`;
  }
  if (typeof value === 'string') {
    // A string in one of the date formats is a date attribute (the platform detects dates the same way).
    const date = parseAttributeDate(value, nowMs);
    user.attributes[key] = date === undefined ? value : date.kind === 'date' ? date.iso : date.value;
    return undefined;
  }
  if (typeof value === 'number' || typeof value === 'boolean') {
    if (!Number.isFinite(value as number) && typeof value === 'number')
      return `${key} must be a finite number, got ${show(value)}`;
    user.attributes[key] = value;
    return undefined;
  }
  return `${key} has an unsupported value ${show(value)}`;
}
