import { describe, expect, it } from 'vitest';
import { SCIM_ERROR_SCHEMA, SCIM_LIST_SCHEMA } from '../../../src/api/types.js';
import type { ScimListBody, ScimUser } from '../../../src/api/types.js';
import {
  scimUserCreateRoute,
  scimUserDeleteRoute,
  scimUserGetRoute,
  scimUsersSearchRoute,
} from '../../../src/emulator/writes/scim-routes.js';
import { makeKit } from './people-test-kit.js';

describe('SCIM /scim/v2/Users', () => {
  it('finds a dashboard user by userName, then deletes it permanently with 204', () => {
    const kit = makeKit();
    const found = kit.call(scimUsersSearchRoute, undefined, { query: 'filter=userName eq "Admin@example.com"' });
    const list = found.body as ScimListBody;
    expect(list.schemas).toEqual([SCIM_LIST_SCHEMA]);
    expect(list.totalResults).toBe(1);
    const id = list.Resources[0]?.id ?? '';
    expect(kit.call(scimUserGetRoute, undefined, { params: { id } }).status).toBe(200);
    expect(kit.call(scimUserDeleteRoute, undefined, { params: { id } })).toEqual({ status: 204, body: undefined });
    expect(kit.workspace.people.dashboardUsers.has(id)).toBe(false);
    expect(
      (
        kit.call(scimUsersSearchRoute, undefined, { query: 'filter=userName eq "admin@example.com"' })
          .body as ScimListBody
      ).totalResults,
    ).toBe(0);
  });

  it('answers 404 with the SCIM error body for an unknown or already deleted user', () => {
    const kit = makeKit();
    const res = kit.call(scimUserDeleteRoute, undefined, { params: { id: 'missing-id' } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      schemas: [SCIM_ERROR_SCHEMA],
      detail: expect.stringContaining('missing-id'),
      status: 404,
    });
    expect(kit.call(scimUserGetRoute, undefined, { params: { id: 'missing-id' } }).status).toBe(404);
  });

  it('creates a user with 201 and an id, refusing a duplicate userName (409) and a userName that is not an email (400)', () => {
    const kit = makeKit();
    const res = kit.call(scimUserCreateRoute, {
      schemas: [],
      userName: 'new@example.com',
      name: { givenName: 'N', familyName: 'U' },
      department: 'ops',
    });
    expect(res.status).toBe(201);
    const created = res.body as ScimUser;
    expect(created).toMatchObject({
      userName: 'new@example.com',
      name: { givenName: 'N', familyName: 'U' },
      createdAt: '2025-06-15T12:00:00.000Z',
    });
    expect(kit.call(scimUserGetRoute, undefined, { params: { id: created.id } }).body).toEqual(created);
    expect(kit.call(scimUserCreateRoute, { userName: 'NEW@example.com' }).status).toBe(409);
    expect(kit.call(scimUserCreateRoute, { userName: 'not-an-email' }).status).toBe(400);
  });

  it('lists all users without a filter and refuses an unsupported filter with a SCIM 400', () => {
    const kit = makeKit();
    expect((kit.call(scimUsersSearchRoute, undefined).body as ScimListBody).totalResults).toBe(5);
    const res = kit.call(scimUsersSearchRoute, undefined, { query: 'filter=emails co "x"' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ schemas: [SCIM_ERROR_SCHEMA], status: 400, scimType: 'invalidFilter' });
  });
});
