// Builds a seeded workspace and calls people routes directly, as the server would after auth, limits and JSON parsing.
import { Clock } from '../../../src/emulator/clock.js';
import type { EmulatorResponse, Route } from '../../../src/emulator/route.js';
import type { Workspace } from '../../../src/emulator/workspace.js';
import { generateWorkspace } from '../../../src/emulator/workspace.js';
import type { UserProfile } from '../../../src/emulator/people/users.js';
import { findUserByExternalId } from '../../../src/emulator/people/users.js';

export const START = '2025-06-15T12:00:00Z';

export interface Kit {
  workspace: Workspace;
  clock: Clock;
  call(route: Route, body: unknown, opts?: { params?: Record<string, string>; query?: string }): EmulatorResponse;
  user(externalId: string): UserProfile;
}

export function makeKit(seed = 1): Kit {
  const workspace = generateWorkspace(
    { seed },
    { apiKeys: new Map(), demoApiKey: 'demo-7e3b0c9a5d1f2468', scimToken: 'scim-2c8f6a0e4b1d9735' },
  );
  const clock = new Clock(START);
  return {
    workspace,
    clock,
    call(route, body, opts = {}) {
      const path = Object.entries(opts.params ?? {}).reduce(
        (p, [k, v]) => p.replace(`:${k}`, encodeURIComponent(v)),
        route.endpoint.path,
      );
      return route.handle(
        {
          method: route.endpoint.method,
          path,
          params: opts.params ?? {},
          query: new URLSearchParams(opts.query ?? ''),
          body,
          headers: {},
        },
        { workspace, clock },
      );
    },
    user(externalId) {
      const u = findUserByExternalId(workspace.people.users, externalId);
      if (!u) throw new Error(`test setup: no user ${externalId}`);
      return u;
    },
  };
}

/** The body of a response as a record, for reading fields in assertions. */
export function bodyOf(res: EmulatorResponse): Record<string, unknown> {
  return res.body as Record<string, unknown>;
}
