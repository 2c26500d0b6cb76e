// The seeded workspace the emulator serves: the analytics side (apps, products, segments, series, Canvases, templates,
// content blocks, integrations, event names) and the people side (users, subscription groups, catalogs, preference
// centers, schedules, SCIM users, suppressions), plus the credentials that may call it.
import type { AnalyticsWorkspace } from './analytics/analytics-workspace.js';
import { generateAnalytics } from './analytics/analytics-workspace.js';
import type { PeopleWorkspace } from './people/people-workspace.js';
import { generatePeople } from './people/people-workspace.js';
import type { CatalogueShape } from './analytics/workspace-size.js';
import { DEMO_SHAPE } from './analytics/workspace-size.js';

export interface ApiKeyGrant {
  /** Human name of the key, for messages (never the key itself). */
  name: string;
  permissions: ReadonlySet<string>;
}

export interface Credentials {
  /** Key → grant. The demo key carries every permission. */
  apiKeys: Map<string, ApiKeyGrant>;
  demoApiKey: string;
  scimToken: string;
}

export interface Workspace {
  seed: number;
  analytics: AnalyticsWorkspace;
  people: PeopleWorkspace;
  credentials: Credentials;
}

export interface GenerateOptions {
  seed: number;
  /** Counts of the analytics catalogue and the style of its ids. @default the demo's (the seed's counts, `cv_1` ids) */
  shape?: CatalogueShape;
}

export function generateWorkspace(opts: GenerateOptions, credentials: Credentials): Workspace {
  return {
    seed: opts.seed,
    analytics: generateAnalytics(opts.seed, opts.shape ?? DEMO_SHAPE),
    people: generatePeople(opts.seed),
    credentials,
  };
}
