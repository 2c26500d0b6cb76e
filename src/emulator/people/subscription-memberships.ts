// Changing subscription group membership (spec 3, first row): users addressed by external id, email or phone move to
// the requested state; for email, every user sharing an addressed address moves.
import type { SubscriptionState } from '../../api/types.js';
import type { PeopleWorkspace } from './people-workspace.js';
import type { UserProfile } from './users.js';
import { findUserByExternalId, findUsersByEmail, findUsersByPhone } from './users.js';

export interface MembershipChange {
  groupId: string;
  state: SubscriptionState;
  externalIds: readonly string[];
  emails: readonly string[];
  phones: readonly string[];
}

/**
 * Apply a change; returns the profiles that were addressed. Unknown external ids, emails and phones address nobody
 * and are ignored (the emulator does not create profiles from this endpoint, spec 2.2 rule 4).
 */
export function applyMembershipChange(people: PeopleWorkspace, change: MembershipChange, nowMs: number): UserProfile[] {
  const addressed = new Set<UserProfile>();
  for (const id of change.externalIds) {
    const user = findUserByExternalId(people.users, id);
    if (user) addressed.add(user);
  }
  for (const email of change.emails) for (const user of findUsersByEmail(people.users, email)) addressed.add(user);
  for (const phone of change.phones) for (const user of findUsersByPhone(people.users, phone)) addressed.add(user);
  for (const user of addressed) {
    user.subscriptionGroups.set(change.groupId, change.state);
    user.updatedAtMs = nowMs;
  }
  return [...addressed];
}
