// Every write route of the emulator (spec 4.1, 4.2, 4.4–4.9, 4.17, 4.18) plus the SCIM look-ups that go with deletion.
import type { Route } from '../route.js';
import { catalogItemEditRoute, catalogItemsCreateRoute } from './catalog-item-routes.js';
import { emailBlacklistRoute } from './email-blacklist-route.js';
import { externalIdsRemoveRoute, externalIdsRenameRoute } from './external-id-routes.js';
import { preferenceCenterUpdatePostRoute, preferenceCenterUpdateRoute } from './preference-center-routes.js';
import { scheduleDeleteRoute } from './schedule-delete-route.js';
import { scimUserCreateRoute, scimUserDeleteRoute, scimUserGetRoute, scimUsersSearchRoute } from './scim-routes.js';
import { subscriptionStatusSetRoute, subscriptionStatusSetV2Route } from './subscription-status-routes.js';
import { usersTrackRoute } from './users-track-route.js';

export const WRITE_ROUTES: readonly Route[] = [
  subscriptionStatusSetRoute,
  subscriptionStatusSetV2Route,
  usersTrackRoute,
  catalogItemsCreateRoute,
  catalogItemEditRoute,
  externalIdsRenameRoute,
  externalIdsRemoveRoute,
  scimUserDeleteRoute,
  scimUserGetRoute,
  scimUsersSearchRoute,
  scimUserCreateRoute,
  preferenceCenterUpdateRoute,
  preferenceCenterUpdatePostRoute,
  scheduleDeleteRoute,
  emailBlacklistRoute,
];
