// The people side of the emulated workspace: users, subscription groups, catalogs, preference centers, scheduled
// messages, SCIM dashboard users and suppressed emails — generated from the seed, then changed by the write routes.
import type { SubscriptionState } from '../../api/types.js';
import type { Catalog } from './catalogs.js';
import { generateCatalogs } from './catalogs.js';
import type { PreferenceCenter } from './preference-centers.js';
import { generatePreferenceCenters } from './preference-centers.js';
import type { ScheduledMessage } from './scheduled-messages.js';
import { generateScheduledMessages } from './scheduled-messages.js';
import type { DashboardUser } from './scim-users.js';
import { generateDashboardUsers } from './scim-users.js';
import type { SubscriptionGroup } from './subscription-groups.js';
import { generateSubscriptionGroups } from './subscription-groups.js';
import type { UserProfile } from './users.js';
import { SEEDED_ANONYMOUS_COUNT, SEEDED_USER_COUNT, generateUsers } from './users.js';

export interface PeopleSettings {
  /**
   * Custom array attributes whose element cap was raised (spec 2.2: "25 by default, raisable per array to 100").
   * @default { visited_restaurants: 100 }
   */
  arrayAttributeLimits: Map<string, number>;
}

export interface PeopleWorkspace {
  readonly seed: number;
  /** Every profile, identified or anonymous, in creation order. */
  readonly users: UserProfile[];
  readonly subscriptionGroups: readonly SubscriptionGroup[];
  readonly catalogs: Map<string, Catalog>;
  readonly preferenceCenters: Map<string, PreferenceCenter>;
  readonly scheduledMessages: Map<string, ScheduledMessage>;
  /** SCIM dashboard users by resource id. */
  readonly dashboardUsers: Map<string, DashboardUser>;
  /** Suppressed (hard-bounced) addresses, lower-cased, → ISO instant of suppression. */
  readonly suppressedEmails: Map<string, string>;
  readonly settings: PeopleSettings;
  /** Counters for ids minted by writes (new profiles, SCIM users, generated device ids). */
  counters: { users: number; dashboardUsers: number; devices: number };
}

/** Element cap of a custom array attribute unless raised in `settings.arrayAttributeLimits`. */
export const DEFAULT_ARRAY_ATTRIBUTE_LIMIT = 25;
/** The highest cap an array attribute may be raised to. */
export const MAX_ARRAY_ATTRIBUTE_LIMIT = 100;

export function generatePeople(seed: number): PeopleWorkspace {
  const subscriptionGroups = generateSubscriptionGroups();
  const users = generateUsers(
    seed,
    subscriptionGroups.map((g) => g.id),
  );
  const dashboardUsers = generateDashboardUsers(seed);
  // user_7's address hard-bounced before the emulator started, so suppression is visible from the first read.
  const suppressed = users.find((u) => u.externalId === 'user_7')?.attributes['email'];
  return {
    seed,
    users,
    subscriptionGroups,
    catalogs: new Map(generateCatalogs(seed).map((c) => [c.name, c])),
    preferenceCenters: new Map(generatePreferenceCenters().map((p) => [p.preference_center_api_id, p])),
    scheduledMessages: new Map(generateScheduledMessages().map((s) => [s.schedule_id, s])),
    dashboardUsers: new Map(dashboardUsers.map((d) => [d.id, d])),
    suppressedEmails: new Map(
      typeof suppressed === 'string' ? [[suppressed.toLowerCase(), '2024-02-01T00:00:00.000Z']] : [],
    ),
    settings: { arrayAttributeLimits: new Map([['visited_restaurants', MAX_ARRAY_ATTRIBUTE_LIMIT]]) },
    counters: { users: SEEDED_USER_COUNT + SEEDED_ANONYMOUS_COUNT, dashboardUsers: dashboardUsers.length, devices: 0 },
  };
}

export function findSubscriptionGroup(people: PeopleWorkspace, id: string): SubscriptionGroup | undefined {
  return people.subscriptionGroups.find((g) => g.id === id);
}

export function isEmailSuppressed(people: PeopleWorkspace, email: string): boolean {
  return people.suppressedEmails.has(email.trim().toLowerCase());
}

export function arrayAttributeLimit(people: PeopleWorkspace, name: string): number {
  return people.settings.arrayAttributeLimits.get(name) ?? DEFAULT_ARRAY_ATTRIBUTE_LIMIT;
}

/** A profile as plain data, for describe and tests: identity, attributes, memberships, deliverability. */
export function viewUser(people: PeopleWorkspace, user: UserProfile): Record<string, unknown> {
  const email = user.attributes['email'];
  const subscription_groups: Record<string, SubscriptionState> = Object.fromEntries(user.subscriptionGroups);
  return {
    id: user.id,
    external_id: user.externalId,
    deprecated_external_ids: [...user.deprecatedExternalIds],
    user_aliases: user.aliases.map((a) => ({ ...a })),
    ...user.attributes,
    subscription_groups,
    push_tokens: user.pushTokens.map((t) => ({ ...t })),
    // A suppressed address is a hard bounce: the platform stops email delivery to it (spec 3).
    email_deliverable: typeof email === 'string' ? !isEmailSuppressed(people, email) : false,
    email_hard_bounced: typeof email === 'string' && isEmailSuppressed(people, email),
  };
}

/** What the emulator holds on the people side, for `engage-etl emulator --describe` and docs. */
export function describePeople(people: PeopleWorkspace): Record<string, unknown> {
  const identified = people.users.filter((u) => u.externalId !== null);
  return {
    users: {
      total: people.users.length,
      identified: identified.length,
      anonymous: people.users.length - identified.length,
    },
    subscription_groups: people.subscriptionGroups.map((g) => ({ id: g.id, name: g.name, channel: g.channel })),
    sample_users: identified.slice(0, 5).map((u) => ({
      external_id: u.externalId,
      email: u.attributes['email'] ?? null,
      phone: u.attributes['phone'] ?? null,
    })),
    users_with_deprecated_ids: identified
      .filter((u) => u.deprecatedExternalIds.length > 0)
      .slice(0, 3)
      .map((u) => ({ external_id: u.externalId, deprecated: [...u.deprecatedExternalIds] })),
    catalogs: [...people.catalogs.values()].map((c) => ({
      name: c.name,
      fields: [
        { name: 'id', type: 'string' },
        ...c.fields.map((f) => ({
          name: f.name,
          type: f.type,
          ...(f.filteredSetMaxLength ? { filtered_set_max_length: f.filteredSetMaxLength } : {}),
        })),
      ],
      items: c.items.size,
    })),
    preference_centers: [...people.preferenceCenters.values()].map((p) => ({
      id: p.preference_center_api_id,
      name: p.name,
      state: p.state,
    })),
    scheduled_messages: [...people.scheduledMessages.values()].map((s) => ({
      schedule_id: s.schedule_id,
      status: s.status,
      send_at: s.send_at,
    })),
    scim_users: [...people.dashboardUsers.values()].map((d) => ({ id: d.id, userName: d.userName })),
    suppressed_emails: [...people.suppressedEmails.keys()],
    array_attribute_limits: Object.fromEntries(people.settings.arrayAttributeLimits),
  };
}
