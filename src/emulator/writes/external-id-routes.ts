// POST /users/external_ids/rename (4.6) and /users/external_ids/remove (4.7): per-object problems go to
// rename_errors / removal_errors as `[index, message]` pairs; an empty or oversized list fails the whole request (400).
import { ENDPOINTS } from '../../api/endpoints.js';
import type { ExternalIdRename } from '../../api/types.js';
import type { UserProfile } from '../people/users.js';
import { findUserByExternalId, isExternalIdInUse } from '../people/users.js';
import type { EmulatorRequest, EmulatorResponse, Route, RouteContext } from '../route.js';
import { badRequest } from '../route.js';
import { isPlainObject, show } from './body-checks.js';

export const MAX_RENAMES = 50;
export const MAX_REMOVALS = 50;

/** One per-object problem: the index of the object in the request array, then what is wrong with it. */
export type IndexedError = [index: number, message: string];

function listOf(body: unknown, key: string, max: number): unknown[] | EmulatorResponse {
  const list = isPlainObject(body) ? body[key] : undefined;
  if (!Array.isArray(list)) return badRequest(`${key} is required and must be an array, got ${show(list)}`);
  if (list.length === 0) return badRequest(`${key} is empty: send between 1 and ${max} entries`);
  if (list.length > max)
    return badRequest(`${key} has ${list.length} entries, more than the ${max} allowed per request: split it`);
  return list;
}

function handleRename(req: EmulatorRequest, ctx: RouteContext): EmulatorResponse {
  const list = listOf(req.body, 'external_id_renames', MAX_RENAMES);
  if (!Array.isArray(list)) return list;
  const users = ctx.workspace.people.users;
  const renamed: ExternalIdRename[] = [];
  const errors: IndexedError[] = [];
  for (const [i, entry] of list.entries()) {
    const current = isPlainObject(entry) ? entry['current_external_id'] : undefined;
    const next = isPlainObject(entry) ? entry['new_external_id'] : undefined;
    if (typeof current !== 'string' || current === '' || typeof next !== 'string' || next === '') {
      errors.push([i, `must be { current_external_id: string, new_external_id: string }, got ${show(entry)}`]);
      continue;
    }
    if (current === next) {
      errors.push([i, `current_external_id and new_external_id are both ${show(current)}: they must differ`]);
      continue;
    }
    const user: UserProfile | undefined = findUserByExternalId(users, current);
    if (!user) {
      errors.push([i, `current_external_id ${show(current)} identifies no user`]);
      continue;
    }
    if (user.externalId !== current) {
      errors.push([
        i,
        `current_external_id ${show(current)} is a deprecated id; rename the primary id ${show(user.externalId)} instead`,
      ]);
      continue;
    }
    if (isExternalIdInUse(users, next)) {
      errors.push([i, `new_external_id ${show(next)} is already used as a primary or deprecated external id`]);
      continue;
    }
    // The old id stays as a deprecated id and keeps identifying the user until removed (spec 3).
    user.deprecatedExternalIds.push(current);
    user.externalId = next;
    user.updatedAtMs = ctx.clock.nowMs();
    renamed.push({ current_external_id: current, new_external_id: next });
  }
  // Objects, as the live service answers (the spec says strings).
  return { status: 201, body: { message: 'success', external_ids: renamed, rename_errors: errors } };
}

function handleRemove(req: EmulatorRequest, ctx: RouteContext): EmulatorResponse {
  const list = listOf(req.body, 'external_ids', MAX_REMOVALS);
  if (!Array.isArray(list)) return list;
  const removed: string[] = [];
  const errors: IndexedError[] = [];
  for (const [i, id] of list.entries()) {
    if (typeof id !== 'string' || id === '') {
      errors.push([i, `must be a non-empty string, got ${show(id)}`]);
      continue;
    }
    const user = findUserByExternalId(ctx.workspace.people.users, id);
    if (!user) {
      errors.push([i, `${show(id)} is not a deprecated external id of any user`]);
      continue;
    }
    if (user.externalId === id) {
      errors.push([i, `${show(id)} is a primary external id; only deprecated ids can be removed (rename it first)`]);
      continue;
    }
    user.deprecatedExternalIds = user.deprecatedExternalIds.filter((d) => d !== id);
    user.updatedAtMs = ctx.clock.nowMs();
    removed.push(id);
  }
  return { status: 201, body: { message: 'success', removed_ids: removed, removal_errors: errors } };
}

export const externalIdsRenameRoute: Route = { endpoint: ENDPOINTS.externalIdsRename, handle: handleRename };
export const externalIdsRemoveRoute: Route = { endpoint: ENDPOINTS.externalIdsRemove, handle: handleRemove };
