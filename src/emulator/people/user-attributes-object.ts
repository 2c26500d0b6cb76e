// A whole user attributes object (spec 2.2) applied to the workspace: resolve or create the profile from its identifiers
// (honouring `_update_existing_only`), or run anonymous push token import, then apply every other key.
import type { UserAlias } from '../../api/types.js';
import { applyAttribute, parsePushTokens } from './attribute-rules.js';
import type { PeopleWorkspace } from './people-workspace.js';
import { isPlainObject as isObject, show } from './plain-values.js';
import type { UserProfile } from './users.js';
import {
  findUserByAlias,
  findUserByExternalId,
  findUserByPlatformId,
  findUserByPushToken,
  findUsersByEmail,
  internalId,
} from './users.js';

export interface ObjectOutcome {
  /** False when the object was rejected as a whole (no identifier, forbidden combination); nothing changed then. */
  processed: boolean;
  /** Problems found: the object's when not processed, else those of single attributes that were skipped. */
  problems: string[];
}

/** Keys that identify the profile or steer processing; never stored as attributes. */
const CONTROL_KEYS = new Set([
  'external_id',
  'user_alias',
  'platform_id',
  '_update_existing_only',
  'push_token_import',
]);

const rejected = (problem: string): ObjectOutcome => ({ processed: false, problems: [problem] });

export function createProfile(
  people: PeopleWorkspace,
  identity: { externalId?: string; alias?: UserAlias },
  nowMs: number,
): UserProfile {
  const user: UserProfile = {
    id: internalId(people.seed, ++people.counters.users),
    externalId: identity.externalId ?? null,
    deprecatedExternalIds: [],
    aliases: identity.alias ? [{ ...identity.alias }] : [],
    platformId: null,
    attributes: {},
    subscriptionGroups: new Map(),
    pushTokens: [],
    pushTokenImport: false,
    updatedAtMs: nowMs,
  };
  people.users.push(user);
  return user;
}

function applyRest(
  people: PeopleWorkspace,
  user: UserProfile,
  obj: Record<string, unknown>,
  skip: ReadonlySet<string>,
  nowMs: number,
): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(obj)) {
    if (CONTROL_KEYS.has(key) || skip.has(key)) continue;
    const problem = applyAttribute(people, user, key, value, nowMs);
    if (problem !== undefined) problems.push(problem);
  }
  user.updatedAtMs = nowMs;
  return problems;
}

/** Rule 2: no external_id/platform_id, push tokens required, known tokens ignored, one anonymous profile per new token. */
function importPushTokens(people: PeopleWorkspace, obj: Record<string, unknown>, nowMs: number): ObjectOutcome {
  if (obj['external_id'] !== undefined || obj['platform_id'] !== undefined) {
    return rejected(
      'push_token_import objects must not carry external_id or platform_id: remove them, or drop push_token_import to update a known user',
    );
  }
  const tokens = parsePushTokens(people, obj['push_tokens']);
  if (typeof tokens === 'string') return rejected(`push_token_import objects must carry push tokens: ${tokens}`);
  const problems: string[] = [];
  for (const token of tokens) {
    if (findUserByPushToken(people.users, token.token)) continue;
    const user = createProfile(people, {}, nowMs);
    user.pushTokenImport = true;
    user.pushTokens = [token];
    problems.push(...applyRest(people, user, obj, new Set(['push_tokens']), nowMs));
  }
  return { processed: true, problems: [...new Set(problems)] };
}

function parseAlias(v: unknown): UserAlias | string {
  if (
    !isObject(v) ||
    typeof v['alias_name'] !== 'string' ||
    typeof v['alias_label'] !== 'string' ||
    v['alias_name'] === '' ||
    v['alias_label'] === ''
  ) {
    return `user_alias must be { alias_name: string, alias_label: string }, got ${show(v)}`;
  }
  return { alias_name: v['alias_name'], alias_label: v['alias_label'] };
}

/** Among profiles sharing an address, the most recently updated one is addressed (first created on a tie). */
function latestUpdated(users: UserProfile[]): UserProfile | undefined {
  return users.reduce<UserProfile | undefined>(
    (best, u) => (best === undefined || u.updatedAtMs > best.updatedAtMs ? u : best),
    undefined,
  );
}

export function applyAttributesObject(people: PeopleWorkspace, obj: unknown, nowMs: number): ObjectOutcome {
  if (!isObject(obj)) return rejected(`each attributes entry must be a JSON object, got ${show(obj)}`);
  const updateExistingOnly = obj['_update_existing_only'];
  if (updateExistingOnly !== undefined && typeof updateExistingOnly !== 'boolean') {
    return rejected(`_update_existing_only must be true or false, got ${show(updateExistingOnly)}`);
  }
  const pushImport = obj['push_token_import'];
  if (pushImport !== undefined && typeof pushImport !== 'boolean')
    return rejected(`push_token_import must be true or false, got ${show(pushImport)}`);
  if (pushImport === true) return importPushTokens(people, obj, nowMs);

  // Rule 1: identifiers cannot be deleted.
  if (obj['external_id'] === null)
    return rejected('external_id cannot be set to null: an external id cannot be deleted once added to a profile');
  if (obj['user_alias'] === null)
    return rejected('user_alias cannot be set to null: an alias cannot be deleted once added to a profile');

  let externalId: string | undefined;
  const rawExternal = obj['external_id'];
  if (rawExternal !== undefined) {
    // The recorded client sends numeric ids and the live service accepts them; they are kept as strings.
    if (typeof rawExternal === 'number' && Number.isInteger(rawExternal)) externalId = String(rawExternal);
    else if (typeof rawExternal === 'string' && rawExternal !== '') externalId = rawExternal;
    else return rejected(`external_id must be a non-empty string, got ${show(rawExternal)}`);
  }
  let alias: UserAlias | undefined;
  if (obj['user_alias'] !== undefined) {
    const parsed = parseAlias(obj['user_alias']);
    if (typeof parsed === 'string') return rejected(parsed);
    alias = parsed;
  }
  const platformId = obj['platform_id'];
  if (platformId !== undefined && (typeof platformId !== 'string' || platformId === '')) {
    return rejected(`platform_id must be a non-empty string, got ${show(platformId)}`);
  }
  const email = obj['email'];
  const emailIdentifies = externalId === undefined && alias === undefined && platformId === undefined;
  if (emailIdentifies && (typeof email !== 'string' || email === '')) {
    return rejected(
      'no identifier: give at least one of external_id, user_alias, platform_id or email (a non-empty string)',
    );
  }

  let user: UserProfile | undefined;
  if (externalId !== undefined) {
    user = findUserByExternalId(people.users, externalId);
    if (!user && alias) {
      // The first time an external id is assigned to an unidentified (alias-only) profile, that profile becomes it.
      const aliased = findUserByAlias(people.users, alias);
      if (aliased && aliased.externalId === null) {
        aliased.externalId = externalId;
        user = aliased;
      }
    }
    if (!user) {
      // Omitted → a new profile is created for an unknown external id (spec 2.2).
      if (updateExistingOnly === true) return { processed: true, problems: [] };
      user = createProfile(people, { externalId, ...(alias ? { alias } : {}) }, nowMs);
    }
  } else if (alias) {
    user = findUserByAlias(people.users, alias);
    if (!user) {
      // With user_alias the default is true: only an explicit false creates the alias-only profile.
      if (updateExistingOnly !== false) return { processed: true, problems: [] };
      user = createProfile(people, { alias }, nowMs);
    }
  } else if (typeof platformId === 'string') {
    user = findUserByPlatformId(people.users, platformId);
    if (!user)
      return rejected(
        `platform_id ${show(platformId)} is unknown: platform ids are assigned by the SDK and cannot create profiles`,
      );
  } else if (typeof email === 'string') {
    user = latestUpdated(findUsersByEmail(people.users, email));
    if (!user) {
      if (updateExistingOnly === true) return { processed: true, problems: [] };
      user = createProfile(people, {}, nowMs);
      user.attributes['email'] = email;
    }
  }
  if (!user) return rejected('no identifier matched a profile');
  const problems = applyRest(people, user, obj, emailIdentifies ? new Set(['email']) : new Set(), nowMs);
  return { processed: true, problems };
}
