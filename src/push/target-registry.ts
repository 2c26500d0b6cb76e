// Every push target by name, for the CLI and the runner.
import type { PushTarget, TargetName } from './push-target.js';
import { TARGET_NAMES } from './push-target.js';
import { catalogItemsTarget } from './targets/catalog-items-target.js';
import { dashboardUserDeletionsTarget } from './targets/dashboard-user-deletions-target.js';
import { emailSuppressionsTarget } from './targets/email-suppressions-target.js';
import { externalIdRemovalsTarget } from './targets/external-id-removals-target.js';
import { externalIdRenamesTarget } from './targets/external-id-renames-target.js';
import { preferenceCenterTarget } from './targets/preference-center-target.js';
import { scheduleCancellationsTarget } from './targets/schedule-cancellations-target.js';
import { subscriptionsTarget } from './targets/subscriptions-target.js';
import { userAttributesTarget } from './targets/user-attributes-target.js';

export const PUSH_TARGETS: Readonly<Record<TargetName, PushTarget>> = {
  subscriptions: subscriptionsTarget,
  'user-attributes': userAttributesTarget,
  'external-id-renames': externalIdRenamesTarget,
  'external-id-removals': externalIdRemovalsTarget,
  'catalog-items': catalogItemsTarget,
  'preference-center': preferenceCenterTarget,
  'schedule-cancellations': scheduleCancellationsTarget,
  'email-suppressions': emailSuppressionsTarget,
  'dashboard-user-deletions': dashboardUserDeletionsTarget,
};

export function isTargetName(name: string): name is TargetName {
  return (TARGET_NAMES as readonly string[]).includes(name);
}
