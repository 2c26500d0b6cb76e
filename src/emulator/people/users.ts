// User profiles of the emulated workspace: identity (internal id, external ids, aliases, platform id), attributes,
// subscription memberships and push tokens — plus the look-ups every people route resolves users with.
import type { SubscriptionState, UserAlias } from '../../api/types.js';
import { createRng, pick } from '../random.js';

export interface PushToken {
  app_id: string;
  token: string;
  device_id: string;
}

export interface UserProfile {
  /** Internal, platform-assigned id (stable per seed). */
  readonly id: string;
  /** Primary external id; null for anonymous (alias-only or imported-token) profiles. */
  externalId: string | null;
  /** Former primary ids: they keep identifying the user until removed (spec 4.6/4.7). */
  deprecatedExternalIds: string[];
  aliases: UserAlias[];
  /** Device-specific id; assigned by the SDK, never created through the API. */
  platformId: string | null;
  /** Standard fields (email, phone, first_name, country, …) and custom attributes by name. */
  attributes: Record<string, unknown>;
  /** Subscription group id → state. A group absent from the map was never set for the user. */
  subscriptionGroups: Map<string, SubscriptionState>;
  pushTokens: PushToken[];
  /** True for the temporary anonymous profiles created by `push_token_import` (spec 2.2 rule 2). */
  pushTokenImport: boolean;
  /** Emulator-clock instant of the last change; breaks ties when an email identifies several profiles. */
  updatedAtMs: number;
}

/** Number of seeded identified users. */
export const SEEDED_USER_COUNT = 200;
/** Number of seeded alias-only (anonymous) profiles. */
export const SEEDED_ANONYMOUS_COUNT = 5;

const FIRST_NAMES = [
  'Ada',
  'Ben',
  'Chloe',
  'Dev',
  'Elena',
  'Farid',
  'Grace',
  'Hugo',
  'Ines',
  'Jonas',
  'Kemi',
  'Liam',
  'Mara',
  'Noah',
  'Olga',
  'Priya',
];
const LAST_NAMES = [
  'Smith',
  'Muller',
  'Garcia',
  'Rossi',
  'Tanaka',
  'Dubois',
  'Silva',
  'Kowalski',
  'Okafor',
  'Novak',
  'Larsen',
  'Khan',
];
const COUNTRIES: readonly (readonly [string, string])[] = [
  ['US', 'en'],
  ['DE', 'de'],
  ['FR', 'fr'],
  ['GB', 'en'],
  ['BR', 'pt'],
  ['JP', 'ja'],
  ['ES', 'es'],
  ['CA', 'en'],
];
const CUISINES = ['italian', 'thai', 'mexican', 'japanese', 'indian', 'french', 'vegan', 'bbq'];
/** Pairs of users (1-based) that share one email address, to exercise "every user sharing the address" (spec 3). */
export const SHARED_EMAIL_PAIRS: readonly (readonly [number, number])[] = [
  [2, 3],
  [50, 51],
  [120, 121],
];

/** Seeded users: `user_1`…`user_200`, every 20th with a deprecated `legacy_user_n`, every 10th with an alias. */
export function generateUsers(seed: number, subscriptionGroupIds: readonly string[]): UserProfile[] {
  const rng = createRng(seed ^ 0x5eed_0001);
  const users: UserProfile[] = [];
  const sharedEmail = new Map<number, string>();
  for (const [a, b] of SHARED_EMAIL_PAIRS) {
    sharedEmail.set(a, `household.${a}@example.com`);
    sharedEmail.set(b, `household.${a}@example.com`);
  }
  for (let n = 1; n <= SEEDED_USER_COUNT; n++) {
    const first = pick(rng, FIRST_NAMES);
    const last = pick(rng, LAST_NAMES);
    const [country, language] = pick(rng, COUNTRIES);
    const attributes: Record<string, unknown> = {
      email: sharedEmail.get(n) ?? `${first.toLowerCase()}.${last.toLowerCase()}.${n}@example.com`,
      first_name: first,
      last_name: last,
      country,
      language,
      email_subscribe: pick(rng, ['opted_in', 'subscribed', 'unsubscribed'] as const),
      push_subscribe: pick(rng, ['opted_in', 'subscribed', 'unsubscribed'] as const),
      loyalty_points: Math.floor(rng() * 1000),
      vip: rng() < 0.1,
      favorite_cuisines: [...new Set([pick(rng, CUISINES), pick(rng, CUISINES)])],
    };
    // One user in ten has no phone: the SMS look-ups must cope with that.
    if (n % 10 !== 4)
      attributes['phone'] = `+1555${String(1_000_000 + Math.floor(rng() * 8_999_999)).padStart(7, '0')}`;
    const subscriptionGroups = new Map<string, SubscriptionState>();
    for (const groupId of subscriptionGroupIds) {
      const r = rng();
      if (r < 0.5) subscriptionGroups.set(groupId, 'subscribed');
      else if (r < 0.75) subscriptionGroups.set(groupId, 'unsubscribed');
    }
    users.push({
      id: internalId(seed, n),
      externalId: `user_${n}`,
      deprecatedExternalIds: n % 20 === 0 ? [`legacy_user_${n}`] : [],
      aliases: n % 10 === 0 ? [{ alias_name: `crm_${n}`, alias_label: 'crm_id' }] : [],
      platformId: n % 25 === 0 ? `device_${n}` : null,
      attributes,
      subscriptionGroups,
      pushTokens: n % 25 === 0 ? [{ app_id: 'app_ios', token: `seed_token_${n}`, device_id: `device_${n}` }] : [],
      pushTokenImport: false,
      updatedAtMs: 0,
    });
  }
  for (let k = 1; k <= SEEDED_ANONYMOUS_COUNT; k++) {
    users.push({
      id: internalId(seed, SEEDED_USER_COUNT + k),
      externalId: null,
      deprecatedExternalIds: [],
      aliases: [{ alias_name: `visitor_${k}`, alias_label: 'web_visitor' }],
      platformId: null,
      attributes: {},
      subscriptionGroups: new Map(),
      pushTokens: [],
      pushTokenImport: false,
      updatedAtMs: 0,
    });
  }
  return users;
}

/** A 24-hex-digit internal id, stable for (seed, n) — the shape of the platform's own ids. */
export function internalId(seed: number, n: number): string {
  const rng = createRng((seed * 1_000_003 + n) >>> 0);
  let hex = '';
  while (hex.length < 24)
    hex += Math.floor(rng() * 0x1_0000_0000)
      .toString(16)
      .padStart(8, '0');
  return hex.slice(0, 24);
}

/** The user whose primary or deprecated external id is `id`. */
export function findUserByExternalId(users: readonly UserProfile[], id: string): UserProfile | undefined {
  return users.find((u) => u.externalId === id) ?? users.find((u) => u.deprecatedExternalIds.includes(id));
}

/** Is `id` in use as a primary or deprecated external id of any user? */
export function isExternalIdInUse(users: readonly UserProfile[], id: string): boolean {
  return findUserByExternalId(users, id) !== undefined;
}

export function findUserByAlias(users: readonly UserProfile[], alias: UserAlias): UserProfile | undefined {
  return users.find((u) =>
    u.aliases.some((a) => a.alias_name === alias.alias_name && a.alias_label === alias.alias_label),
  );
}

export function findUserByPlatformId(users: readonly UserProfile[], platformId: string): UserProfile | undefined {
  return users.find((u) => u.platformId === platformId);
}

/** Every user whose email is `email`, compared case-insensitively (addresses are case-insensitive in practice). */
export function findUsersByEmail(users: readonly UserProfile[], email: string): UserProfile[] {
  const wanted = email.trim().toLowerCase();
  return users.filter(
    (u) => typeof u.attributes['email'] === 'string' && u.attributes['email'].toLowerCase() === wanted,
  );
}

export function findUsersByPhone(users: readonly UserProfile[], phone: string): UserProfile[] {
  return users.filter((u) => u.attributes['phone'] === phone);
}

export function findUserByPushToken(users: readonly UserProfile[], token: string): UserProfile | undefined {
  return users.find((u) => u.pushTokens.some((t) => t.token === token));
}
