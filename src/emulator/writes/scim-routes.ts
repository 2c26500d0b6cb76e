// SCIM dashboard users (4.8): DELETE /scim/v2/Users/:id (204; 404 SCIM error), GET by id, search by
// `filter=userName eq "…"` (ListResponse), and POST to create (201). Errors use the SCIM error schema.
import { ENDPOINTS } from '../../api/endpoints.js';
import type { ScimErrorBody, ScimListBody, ScimUser } from '../../api/types.js';
import { SCIM_ERROR_SCHEMA, SCIM_LIST_SCHEMA, SCIM_USER_SCHEMA } from '../../api/types.js';
import type { DashboardUser } from '../people/scim-users.js';
import { scimId } from '../people/scim-users.js';
import type { EmulatorRequest, EmulatorResponse, Route, RouteContext } from '../route.js';
import { EMAIL, isPlainObject, show } from './body-checks.js';

export function scimError(status: number, detail: string, scimType?: string): EmulatorResponse {
  const body: ScimErrorBody & { scimType?: string } = {
    schemas: [SCIM_ERROR_SCHEMA],
    detail,
    status,
    ...(scimType ? { scimType } : {}),
  };
  return { status, body };
}

function toResource(d: DashboardUser): ScimUser {
  return {
    schemas: [SCIM_USER_SCHEMA],
    id: d.id,
    userName: d.userName,
    name: { givenName: d.givenName, familyName: d.familyName },
    department: d.department,
    createdAt: d.createdAt,
  };
}

function notFound(id: string): EmulatorResponse {
  return scimError(404, `User ${id} not found: look the id up with GET /scim/v2/Users?filter=userName eq "<email>"`);
}

function handleDelete(req: EmulatorRequest, ctx: RouteContext): EmulatorResponse {
  const id = req.params['id'] ?? '';
  if (!ctx.workspace.people.dashboardUsers.delete(id)) return notFound(id);
  // 204 carries no body.
  return { status: 204, body: undefined };
}

function handleGet(req: EmulatorRequest, ctx: RouteContext): EmulatorResponse {
  const id = req.params['id'] ?? '';
  const user = ctx.workspace.people.dashboardUsers.get(id);
  return user ? { status: 200, body: toResource(user) } : notFound(id);
}

/** Only the filter the spec shows is supported: `userName eq "value"` (attribute name and operator case-insensitive). */
const FILTER = /^\s*userName\s+eq\s+"([^"]*)"\s*$/i;

function handleSearch(req: EmulatorRequest, ctx: RouteContext): EmulatorResponse {
  const filter = req.query.get('filter');
  let users = [...ctx.workspace.people.dashboardUsers.values()];
  if (filter !== null) {
    const m = FILTER.exec(filter);
    if (!m)
      return scimError(
        400,
        `filter ${show(filter)} is not supported: use userName eq "user@example.com"`,
        'invalidFilter',
      );
    const wanted = (m[1] ?? '').toLowerCase();
    users = users.filter((u) => u.userName.toLowerCase() === wanted);
  }
  const body: ScimListBody & { startIndex: number; itemsPerPage: number } = {
    schemas: [SCIM_LIST_SCHEMA],
    totalResults: users.length,
    startIndex: 1,
    itemsPerPage: users.length,
    Resources: users.map(toResource),
  };
  return { status: 200, body };
}

function handleCreate(req: EmulatorRequest, ctx: RouteContext): EmulatorResponse {
  const body = req.body;
  if (!isPlainObject(body))
    return scimError(400, `the body must be a SCIM User object, got ${show(body)}`, 'invalidValue');
  const userName = body['userName'];
  if (typeof userName !== 'string' || !EMAIL.test(userName))
    return scimError(400, `userName must be an email address, got ${show(userName)}`, 'invalidValue');
  const name = isPlainObject(body['name']) ? body['name'] : {};
  const givenName = name['givenName'] ?? '';
  const familyName = name['familyName'] ?? '';
  const department = body['department'] ?? '';
  if (typeof givenName !== 'string' || typeof familyName !== 'string' || typeof department !== 'string') {
    return scimError(400, 'name.givenName, name.familyName and department must be strings', 'invalidValue');
  }
  const people = ctx.workspace.people;
  if ([...people.dashboardUsers.values()].some((u) => u.userName.toLowerCase() === userName.toLowerCase())) {
    return scimError(
      409,
      `a dashboard user with userName ${userName} already exists: search for it instead`,
      'uniqueness',
    );
  }
  const user: DashboardUser = {
    id: scimId(people.seed, ++people.counters.dashboardUsers),
    userName,
    givenName,
    familyName,
    department,
    createdAt: ctx.clock.now().toISO() ?? '',
  };
  people.dashboardUsers.set(user.id, user);
  return { status: 201, body: toResource(user) };
}

export const scimUserDeleteRoute: Route = { endpoint: ENDPOINTS.scimUserDelete, handle: handleDelete };
export const scimUserGetRoute: Route = { endpoint: ENDPOINTS.scimUserGet, handle: handleGet };
export const scimUsersSearchRoute: Route = { endpoint: ENDPOINTS.scimUsersSearch, handle: handleSearch };
export const scimUserCreateRoute: Route = { endpoint: ENDPOINTS.scimUserCreate, handle: handleCreate };
