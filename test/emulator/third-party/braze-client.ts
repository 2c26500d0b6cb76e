// What the published client braze-api@2.13.4 offers, mapped onto our spec: the methods whose endpoint the spec describes,
// the ones it does not (left untested, with the reason), and the spec endpoints the client has no method for.
import type { EndpointName } from '../../../src/api/endpoints.js';

/** Client methods (dotted path on a `Braze` instance) whose endpoint is in the spec, with the endpoint they call. */
export const IN_SPEC: Readonly<Record<string, EndpointName>> = {
  'subscription.status.set': 'subscriptionStatusSet',
  'v2.subscription.status.set': 'subscriptionStatusSetV2',
  'users.track': 'usersTrack',
  'users.external_ids.rename': 'externalIdsRename',
  'users.external_ids.remove': 'externalIdsRemove',
  'messages.schedule.delete': 'scheduleDelete',
  'email.blacklist': 'emailBlacklist',
  'templates.email_templates.get': 'emailTemplateInfo',
  'templates.content_blocks.get': 'contentBlockInfo',
  'segments.analytics': 'segmentsDataSeries',
  'campaigns.details': 'campaignsDetails',
  'campaigns.list': 'campaignsList',
  'canvas.list': 'canvasList',
  'segments.details': 'segmentsDetails',
  'segments.list': 'segmentsList',
  'templates.content_blocks.list': 'contentBlocksList',
  'templates.email_templates.list': 'emailTemplatesList',
};

const NOT_IN_SPEC = 'the spec (sections 4.1-4.20) does not describe this endpoint, so the emulator does not emulate it';

/** Client methods whose endpoint the spec does not describe: not tested, as the emulator must not invent them. */
export const OUTSIDE_SPEC: Readonly<Record<string, string>> = {
  'campaigns.trigger.schedule.create': NOT_IN_SPEC,
  'campaigns.trigger.schedule.delete': NOT_IN_SPEC,
  'campaigns.trigger.schedule.update': NOT_IN_SPEC,
  'campaigns.trigger.send': NOT_IN_SPEC,
  'canvas.trigger.schedule.create': NOT_IN_SPEC,
  'canvas.trigger.schedule.delete': NOT_IN_SPEC,
  'canvas.trigger.schedule.update': NOT_IN_SPEC,
  'canvas.trigger.send': NOT_IN_SPEC,
  'catalogs.synchronous.list': NOT_IN_SPEC,
  'catalogs.synchronous.items': 'GET /catalogs/{name}/items: the spec has only POST on this path (4.4)',
  'catalogs.synchronous.item':
    'GET /catalogs/{name}/items/{id}: the spec has only PATCH on this path (4.5); the emulator answers 405',
  'email.bounce.remove': NOT_IN_SPEC,
  'email.spam.remove': NOT_IN_SPEC,
  'messages.schedule.create': 'the spec covers only cancelling a schedule (4.17), not creating one',
  'messages.schedule.update': NOT_IN_SPEC,
  'messages.scheduled_broadcasts': NOT_IN_SPEC,
  'messages.send': NOT_IN_SPEC,
  'sends.id.create': NOT_IN_SPEC,
  'subscription.status.get': NOT_IN_SPEC,
  'subscription.user.status': NOT_IN_SPEC,
  'templates.content_blocks.create': NOT_IN_SPEC,
  'templates.content_blocks.update': NOT_IN_SPEC,
  'templates.email_templates.create': NOT_IN_SPEC,
  'templates.email_templates.update': NOT_IN_SPEC,
  'transactional.v1.campaigns.send': NOT_IN_SPEC,
  'users.alias.new': NOT_IN_SPEC,
  'users.alias.update': NOT_IN_SPEC,
  'users.delete': NOT_IN_SPEC,
  'users.export.global_control_group': NOT_IN_SPEC,
  'users.export.ids': NOT_IN_SPEC,
  'users.export.segment': NOT_IN_SPEC,
  'users.identify': NOT_IN_SPEC,
  'users.merge': NOT_IN_SPEC,
};

const NO_METHOD = 'braze-api@2.13.4 has no method for it (its README leaves it unchecked)';

/** Spec endpoints the client cannot call: tested elsewhere with our own client and raw HTTP, not here. */
export const NOT_OFFERED_BY_CLIENT: Readonly<Partial<Record<EndpointName, string>>> = {
  cdiIntegrations: NO_METHOD,
  catalogItemsCreate: 'the client offers only GET on catalog items',
  catalogItemEdit: 'the client offers only GET on catalog items',
  scimUserDelete: NO_METHOD,
  scimUserGet: NO_METHOD,
  scimUsersSearch: NO_METHOD,
  scimUserCreate: NO_METHOD,
  preferenceCenterUpdate: NO_METHOD,
  preferenceCenterUpdatePost: NO_METHOD,
  purchasesQuantitySeries: NO_METHOD,
  purchasesRevenueSeries: NO_METHOD,
  eventsList: NO_METHOD,
  canvasDetails: NO_METHOD,
  canvasDataSummary: NO_METHOD,
  sessionsDataSeries: NO_METHOD,
  eventsDataSeries: NO_METHOD,
  kpiDauDataSeries: NO_METHOD,
  kpiMauDataSeries: NO_METHOD,
  kpiNewUsersDataSeries: NO_METHOD,
  kpiUninstallsDataSeries: NO_METHOD,
  canvasDataSeries: NO_METHOD,
  campaignsDataSeries: NO_METHOD,
  purchasesProductList: NO_METHOD,
};

/** Every method of a client instance, as dotted paths (`users.external_ids.rename`), found by walking its objects. */
export function listClientMethods(client: object, prefix = ''): string[] {
  return Object.entries(client).flatMap(([key, value]: [string, unknown]) => {
    if (typeof value === 'function') return [`${prefix}${key}`];
    if (typeof value === 'object' && value !== null) return listClientMethods(value, `${prefix}${key}.`);
    return [];
  });
}

/**
 * The client with every method call recorded in `calls` (dotted path), so a test can prove which methods it exercised.
 * The client itself is untouched: its methods are arrow functions bound to the instance, called through as they are.
 */
export function recordCalls<T extends object>(client: T, calls: Set<string>, prefix = ''): T {
  return new Proxy(client, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof key !== 'string') return value;
      if (typeof value === 'function') {
        return (...args: unknown[]) => {
          calls.add(`${prefix}${key}`);
          return (value as (...a: unknown[]) => unknown)(...args);
        };
      }
      if (typeof value === 'object' && value !== null) return recordCalls(value, calls, `${prefix}${key}.`);
      return value;
    },
  });
}

/** What the client's error (its unexported ResponseError) carries: the HTTP status and the body's message. */
export interface ClientFailure {
  status: number;
  message: string;
}

/** Await a client call that must fail; answer the status and message the client surfaced (fails if it resolved). */
export async function clientFailure(promise: Promise<unknown>): Promise<ClientFailure> {
  let outcome: unknown;
  try {
    outcome = await promise;
  } catch (err) {
    const e = err as { status?: unknown; message?: unknown };
    if (typeof e.status !== 'number' || typeof e.message !== 'string')
      throw new Error(`the client failed without an HTTP status: ${String(err)}`);
    return { status: e.status, message: e.message };
  }
  throw new Error(`expected the client call to fail, but it resolved with ${JSON.stringify(outcome)}`);
}
