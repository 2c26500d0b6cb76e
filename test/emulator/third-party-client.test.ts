// A published third-party client (braze-api@2.13.4, unmodified) against the emulator over real HTTP: every method whose
// endpoint the spec describes resolves with the documented body, writes show in the emulator's state, errors surface.
import { Braze } from 'braze-api';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ENDPOINTS } from '../../src/api/endpoints.js';
import type { Emulator } from '../../src/emulator/server.js';
import { createEmulator } from '../../src/emulator/server.js';
import { isEmailSuppressed, viewUser } from '../../src/emulator/people/people-workspace.js';
import type { UserProfile } from '../../src/emulator/people/users.js';
import { findUserByExternalId } from '../../src/emulator/people/users.js';
import { call } from './emulator-test-helpers.js';
import {
  IN_SPEC,
  NOT_OFFERED_BY_CLIENT,
  OUTSIDE_SPEC,
  clientFailure,
  listClientMethods,
  recordCalls,
} from './third-party/braze-client.js';

const NOW = '2025-06-15T12:00:00Z';
/** Client methods the tests below called, to prove every in-spec method was exercised. */
const called = new Set<string>();

let em: Emulator;
let braze: Braze;

beforeEach(async () => {
  em = await createEmulator({ seed: 1, now: NOW, port: 0 });
  braze = recordCalls(new Braze(em.url, em.demoApiKey), called);
});

afterEach(async () => {
  await em.close();
});

function user(externalId: string): UserProfile {
  const found = findUserByExternalId(em.state.people.users, externalId);
  if (!found) throw new Error(`test setup: the seeded workspace has no user ${externalId}`);
  return found;
}

function attribute(externalId: string, name: string): unknown {
  return user(externalId).attributes[name];
}

describe('subscription status set (4.1) through braze.subscription.status.set', () => {
  test('an email group addressed by email, with the empty external_id list the typed client always sends, unsubscribes every user sharing the address', async () => {
    const email = attribute('user_2', 'email') as string;
    expect(attribute('user_3', 'email')).toBe(email);
    user('user_2').subscriptionGroups.set('sg_email_1', 'subscribed');
    user('user_3').subscriptionGroups.set('sg_email_1', 'subscribed');

    const answer = await braze.subscription.status.set({
      subscription_group_id: 'sg_email_1',
      subscription_state: 'unsubscribed',
      external_id: [],
      email: [email],
    });

    expect(answer).toEqual({ message: 'success' });
    expect(user('user_2').subscriptionGroups.get('sg_email_1')).toBe('unsubscribed');
    expect(user('user_3').subscriptionGroups.get('sg_email_1')).toBe('unsubscribed');
  });

  test('an SMS group addressed by external id and phone subscribes both users', async () => {
    const phone = attribute('user_5', 'phone') as string;
    user('user_1').subscriptionGroups.set('sg_sms_1', 'unsubscribed');
    user('user_5').subscriptionGroups.set('sg_sms_1', 'unsubscribed');

    const answer = await braze.subscription.status.set({
      subscription_group_id: 'sg_sms_1',
      subscription_state: 'subscribed',
      external_id: ['user_1'],
      phone: [phone],
    });

    expect(answer).toEqual({ message: 'success' });
    expect(user('user_1').subscriptionGroups.get('sg_sms_1')).toBe('subscribed');
    expect(user('user_5').subscriptionGroups.get('sg_sms_1')).toBe('subscribed');
  });

  test('an unknown subscription group surfaces as a 400 "Invalid subscription group ID" and changes nobody', async () => {
    const before = new Map(user('user_1').subscriptionGroups);

    const failure = await clientFailure(
      braze.subscription.status.set({
        subscription_group_id: 'sg_nope',
        subscription_state: 'unsubscribed',
        external_id: ['user_1'],
        email: ['someone@example.com'],
      }),
    );

    expect(failure).toEqual({ status: 400, message: 'Invalid subscription group ID' });
    expect(user('user_1').subscriptionGroups).toEqual(before);
  });

  test('the empty email list the typed client demands beside external_id is refused, as 4.1 wants at least one address', async () => {
    const failure = await clientFailure(
      braze.subscription.status.set({
        subscription_group_id: 'sg_email_1',
        subscription_state: 'subscribed',
        external_id: ['user_1'],
        email: [],
      }),
    );

    expect(failure.status).toBe(400);
    expect(failure.message).toContain('email is empty');
  });

  test('an empty external_id list alone addresses nobody and is refused', async () => {
    const body = {
      subscription_group_id: 'sg_email_1',
      subscription_state: 'subscribed',
      external_id: [],
    } as unknown as Parameters<Braze['subscription']['status']['set']>[0];

    const failure = await clientFailure(braze.subscription.status.set(body));

    expect(failure.status).toBe(400);
    expect(failure.message).toContain('no user addressed');
  });
});

describe('v2 subscription status set through braze.v2.subscription.status.set', () => {
  test('several groups in one request each move their users', async () => {
    const email = attribute('user_9', 'email') as string;
    user('user_8').subscriptionGroups.set('sg_sms_2', 'subscribed');
    user('user_9').subscriptionGroups.set('sg_email_2', 'unsubscribed');

    const answer = await braze.v2.subscription.status.set({
      subscription_groups: [
        { subscription_group_id: 'sg_sms_2', subscription_state: 'unsubscribed', external_ids: ['user_8'] },
        { subscription_group_id: 'sg_email_2', subscription_state: 'subscribed', emails: [email] },
      ],
    } as Parameters<Braze['v2']['subscription']['status']['set']>[0]);

    expect(answer).toEqual({ message: 'success' });
    expect(user('user_8').subscriptionGroups.get('sg_sms_2')).toBe('unsubscribed');
    expect(user('user_9').subscriptionGroups.get('sg_email_2')).toBe('subscribed');
  });

  test('an unknown group in any entry surfaces as a 400 and no entry applies', async () => {
    user('user_8').subscriptionGroups.set('sg_sms_2', 'subscribed');

    const failure = await clientFailure(
      braze.v2.subscription.status.set({
        subscription_groups: [
          { subscription_group_id: 'sg_sms_2', subscription_state: 'unsubscribed', external_ids: ['user_8'] },
          { subscription_group_id: 'sg_nope', subscription_state: 'unsubscribed', external_ids: ['user_8'] },
        ],
      }),
    );

    expect(failure).toEqual({ status: 400, message: 'Invalid subscription group ID' });
    expect(user('user_8').subscriptionGroups.get('sg_sms_2')).toBe('subscribed');
  });
});

describe('users track (4.2) through braze.users.track', () => {
  test('attributes objects update an existing profile and create a new one', async () => {
    const points = attribute('user_1', 'loyalty_points') as number;

    const answer = await braze.users.track({
      attributes: [
        {
          external_id: 'user_1',
          first_name: 'Zed',
          loyalty_points: { inc: 5 },
          favorite_cuisines: { add: ['peruvian'] },
          email_subscribe: 'opted_in',
        },
        { external_id: 'third_party_new', email: 'new.person@example.com', home_city: 'Lisbon' },
      ],
    });

    expect(answer).toEqual({ message: 'success', attributes_processed: 2 });
    expect(attribute('user_1', 'first_name')).toBe('Zed');
    expect(attribute('user_1', 'loyalty_points')).toBe(points + 5);
    expect((attribute('user_1', 'favorite_cuisines') as string[]).at(-1)).toBe('peruvian');
    expect(attribute('user_1', 'email_subscribe')).toBe('opted_in');
    expect(attribute('third_party_new', 'email')).toBe('new.person@example.com');
    expect(attribute('third_party_new', 'home_city')).toBe('Lisbon');
  });

  test('the bulk flag (an X-Braze-Bulk header the spec does not mention) changes nothing in how the call is applied', async () => {
    const answer = await braze.users.track({ attributes: [{ external_id: 'user_4', last_name: 'Bulkley' }] }, true);

    expect(answer).toEqual({ message: 'success', attributes_processed: 1 });
    expect(attribute('user_4', 'last_name')).toBe('Bulkley');
  });

  test('an object without any identifier is reported in errors and not counted', async () => {
    const answer = await braze.users.track({
      attributes: [{ first_name: 'Nobody' }, { external_id: 'user_6', first_name: 'Six' }],
    });

    expect(answer).toMatchObject({ message: 'success', attributes_processed: 1 });
    expect((answer as { errors?: { index: number }[] }).errors?.map((e) => e.index)).toEqual([0]);
    expect(attribute('user_6', 'first_name')).toBe('Six');
  });
});

describe('external id rename and remove (4.6, 4.7) through braze.users.external_ids', () => {
  test('a rename makes the new id primary and keeps the old one as a deprecated id of the same profile', async () => {
    const profile = user('user_5');

    const answer = await braze.users.external_ids.rename({
      external_id_renames: [{ current_external_id: 'user_5', new_external_id: 'user_5_renamed' }],
    });

    // Renames come back as objects, as the live service answers (the client's type says strings; it passes JSON through).
    expect(answer).toEqual({
      message: 'success',
      external_ids: [{ current_external_id: 'user_5', new_external_id: 'user_5_renamed' }],
      rename_errors: [],
    });
    expect(findUserByExternalId(em.state.people.users, 'user_5_renamed')).toBe(profile);
    expect(profile.externalId).toBe('user_5_renamed');
    expect(profile.deprecatedExternalIds).toContain('user_5');
    expect(findUserByExternalId(em.state.people.users, 'user_5')).toBe(profile);
  });

  test('a rename onto an id already in use lands in rename_errors with its index, and the request still succeeds', async () => {
    const answer = await braze.users.external_ids.rename({
      external_id_renames: [
        { current_external_id: 'user_11', new_external_id: 'user_11_renamed' },
        { current_external_id: 'user_12', new_external_id: 'user_13' },
      ],
    });

    expect(answer.message).toBe('success');
    expect(answer.rename_errors).toHaveLength(1);
    expect((answer.rename_errors as unknown as [number, string][])[0]![0]).toBe(1);
    expect(user('user_12').externalId).toBe('user_12');
  });

  test('remove drops a deprecated id and reports a primary id in removal_errors with its index', async () => {
    const profile = user('user_20');
    expect(profile.deprecatedExternalIds).toEqual(['legacy_user_20']);

    const answer = await braze.users.external_ids.remove({ external_ids: ['legacy_user_20', 'user_21'] });

    expect(answer.message).toBe('success');
    expect(answer.removed_ids).toEqual(['legacy_user_20']);
    expect((answer as unknown as { removal_errors: [number, string][] }).removal_errors.map(([i]) => i)).toEqual([1]);
    expect(profile.deprecatedExternalIds).toEqual([]);
    expect(findUserByExternalId(em.state.people.users, 'legacy_user_20')).toBeUndefined();
    expect(user('user_21').externalId).toBe('user_21');
  });

  test('an empty list surfaces as a 400 whose message is not success', async () => {
    const failure = await clientFailure(braze.users.external_ids.remove({ external_ids: [] }));

    expect(failure.status).toBe(400);
    expect(failure.message).toContain('external_ids is empty');
  });
});

describe('schedule delete (4.17) through braze.messages.schedule.delete', () => {
  test('a scheduled message becomes cancelled', async () => {
    const answer = await braze.messages.schedule.delete({ schedule_id: 'sched_1' });

    expect(answer).toEqual({ message: 'success' });
    expect(em.state.people.scheduledMessages.get('sched_1')?.status).toBe('cancelled');
  });

  test('an already sent message surfaces as a 400 and an unknown schedule as a 404', async () => {
    const sent = await clientFailure(braze.messages.schedule.delete({ schedule_id: 'sched_3' }));
    const unknown = await clientFailure(braze.messages.schedule.delete({ schedule_id: 'sched_nope' }));

    expect(sent.status).toBe(400);
    expect(sent.message).toContain('already sent');
    expect(em.state.people.scheduledMessages.get('sched_3')?.status).toBe('sent');
    expect(unknown.status).toBe(404);
    expect(unknown.message).toContain('sched_nope');
  });
});

describe('email blacklist (4.18) through braze.email.blacklist', () => {
  test('listed addresses (an array or a lone string) become suppressed and the user is no longer deliverable', async () => {
    const email = attribute('user_10', 'email') as string;
    expect(isEmailSuppressed(em.state.people, email)).toBe(false);

    expect(await braze.email.blacklist({ email: [email] })).toEqual({ message: 'success' });
    expect(await braze.email.blacklist({ email: 'Stranger@Example.com' })).toEqual({ message: 'success' });

    expect(isEmailSuppressed(em.state.people, email)).toBe(true);
    expect(viewUser(em.state.people, user('user_10'))['email_deliverable']).toBe(false);
    expect(isEmailSuppressed(em.state.people, 'stranger@example.com')).toBe(true);
  });

  test('a malformed address surfaces as a 400 naming it and nothing is suppressed', async () => {
    const failure = await clientFailure(braze.email.blacklist({ email: ['ok@example.com', 'not-an-address'] }));

    expect(failure.status).toBe(400);
    expect(failure.message).toContain('not-an-address');
    expect(isEmailSuppressed(em.state.people, 'ok@example.com')).toBe(false);
  });
});

describe('email template info (4.15) through braze.templates.email_templates.get', () => {
  test('resolves with the template object of 2.8, exactly the body on the wire', async () => {
    const answer = await braze.templates.email_templates.get({ email_template_id: 'tpl_1' });

    const raw = await call(em, '/templates/email/info?email_template_id=tpl_1');
    expect(answer).toEqual(raw.body);
    expect(answer).toMatchObject({
      email_template_id: 'tpl_1',
      template_name: expect.any(String),
      subject: expect.any(String),
      tags: expect.any(String),
    });
    expect(Date.parse((answer as { created_at: string }).created_at)).not.toBeNaN();
  });

  test('an unknown template surfaces as a 400 naming the id', async () => {
    const failure = await clientFailure(braze.templates.email_templates.get({ email_template_id: 'tpl_nope' }));

    expect(failure.status).toBe(400);
    expect(failure.message).toContain('tpl_nope');
  });
});

describe('content block info (4.16) through braze.templates.content_blocks.get', () => {
  test('the client sends include_inclusion_data as a bare true and gets the block of 2.9 with its inclusions', async () => {
    const answer = await braze.templates.content_blocks.get({ content_block_id: 'cb_1', include_inclusion_data: true });

    const raw = await call(em, '/content_blocks/info?content_block_id=cb_1&include_inclusion_data=true');
    expect(answer).toEqual(raw.body);
    expect(answer).toMatchObject({ content_block_id: 'cb_1', content_type: 'html', message: 'success' });
    expect(answer.inclusion_data.length).toBe(answer.inclusion_count);
    for (const id of answer.inclusion_data) expect(id).toMatch(/^cv_\d+_step_\d+_msg_\d+$/);
  });

  test('without the flag inclusion_data is absent', async () => {
    const answer = await braze.templates.content_blocks.get({ content_block_id: 'cb_1' });

    expect(answer).not.toHaveProperty('inclusion_data');
    expect(answer.inclusion_count).toBeGreaterThanOrEqual(0);
  });

  test('a deleted block surfaces with the 7.2 text', async () => {
    const failure = await clientFailure(braze.templates.content_blocks.get({ content_block_id: 'cb_8' }));

    expect(failure).toEqual({ status: 400, message: 'Content Block has been deleted—content not available' });
  });
});

describe('segment size series (4.20) through braze.segments.analytics', () => {
  test('resolves with length daily points ending today, exactly the body on the wire', async () => {
    const answer = await braze.segments.analytics({ segment_id: 'seg_1', length: 3 });

    const raw = await call(em, '/segments/data_series?segment_id=seg_1&length=3');
    expect(answer).toEqual(raw.body);
    expect(answer.message).toBe('success');
    expect(answer.data.map((p) => p.time)).toEqual(['2025-06-13', '2025-06-14', '2025-06-15']);
    for (const p of answer.data) expect(Number.isInteger(p.size) && p.size > 0).toBe(true);
  });

  test('ending_at moves the window', async () => {
    const answer = await braze.segments.analytics({
      segment_id: 'seg_1',
      length: 2,
      ending_at: '2025-06-10T00:00:00Z',
    });

    expect(answer.data.map((p) => p.time)).toEqual(['2025-06-09', '2025-06-10']);
  });

  test('a length over 100 surfaces as a 400 naming length', async () => {
    const failure = await clientFailure(braze.segments.analytics({ segment_id: 'seg_1', length: 101 }));

    expect(failure.status).toBe(400);
    expect(failure.message).toContain('length');
  });
});

describe('errors the server itself gives, as the client surfaces them', () => {
  test('a wrong key is a 401 "Invalid API key" that does not echo the key', async () => {
    const stranger = new Braze(em.url, 'not-a-key-of-this-workspace');

    const failure = await clientFailure(stranger.email.blacklist({ email: 'a@example.com' }));

    expect(failure).toEqual({ status: 401, message: 'Invalid API key' });
    expect(isEmailSuppressed(em.state.people, 'a@example.com')).toBe(false);
  });

  test('a key without the permission is a 403 naming the permission, not the key', async () => {
    await em.close();
    em = await createEmulator({
      seed: 1,
      now: NOW,
      port: 0,
      keys: [{ key: 'segments-only-key', name: 'segments only', permissions: ['segments.data_series'] }],
    });
    const limited = new Braze(em.url, 'segments-only-key');

    const failure = await clientFailure(limited.messages.schedule.delete({ schedule_id: 'sched_1' }));

    expect(failure.status).toBe(403);
    expect(failure.message).toContain('messages.schedule.delete');
    expect(failure.message).not.toContain('segments-only-key');
    expect(em.state.people.scheduledMessages.get('sched_1')?.status).toBe('scheduled');
  });

  test('an exhausted pool is a 429 "API rate limit exceeded"', async () => {
    await em.close();
    // The default pool (250,000/hour) scaled down to one request.
    em = await createEmulator({ seed: 1, now: NOW, port: 0, limitScale: 1 / 250_000 });
    const client = new Braze(em.url, em.demoApiKey);

    await client.segments.analytics({ segment_id: 'seg_1', length: 1 });
    const failure = await clientFailure(client.segments.analytics({ segment_id: 'seg_1', length: 1 }));

    expect(failure).toEqual({ status: 429, message: 'API rate limit exceeded' });
  });

  test('a method whose endpoint the spec does not describe gets a 404 naming the path', async () => {
    const failure = await clientFailure(
      new Braze(em.url, em.demoApiKey).messages.send({ external_user_ids: ['user_1'], messages: {} }),
    );

    expect(failure.status).toBe(404);
    expect(failure.message).toContain('/messages/send');
  });
});

describe("discovery lists and details through the client's list and details methods", () => {
  test('canvas.list and campaigns.list page by 100 and honour include_archived and sort_direction', async () => {
    const first = (await braze.canvas.list({ page: 0 })) as { canvases: { id: string }[] };
    const raw = await call(em, '/canvas/list?page=0');
    expect(first).toEqual(raw.body);
    expect(first.canvases).toHaveLength(100);
    const newest = (await braze.campaigns.list({ page: 0, include_archived: true, sort_direction: 'desc' })) as {
      campaigns: { id: string; is_api_campaign: boolean }[];
    };
    expect(newest).toEqual((await call(em, '/campaigns/list?page=0&include_archived=true&sort_direction=desc')).body);
    expect(typeof newest.campaigns[0]!.is_api_campaign).toBe('boolean');
  });

  test('campaigns.details answers the campaign; an unknown one is a 400 naming it', async () => {
    const answer = await braze.campaigns.details({ campaign_id: 'cmp_1' });
    expect(answer).toEqual((await call(em, '/campaigns/details?campaign_id=cmp_1')).body);
    expect(answer).toMatchObject({
      name: expect.any(String),
      channels: expect.any(Array),
      messages: expect.any(Object),
    });
    const failure = await clientFailure(braze.campaigns.details({ campaign_id: 'cmp_nope' }));
    expect(failure.status).toBe(400);
    expect(failure.message).toContain('cmp_nope');
  });

  test('segments.list and segments.details answer what the wire holds', async () => {
    const list = (await braze.segments.list({ page: 0 })) as {
      segments: { id: string; analytics_tracking_enabled: boolean }[];
    };
    expect(list).toEqual((await call(em, '/segments/list?page=0')).body);
    expect(list.segments.some((s) => !s.analytics_tracking_enabled)).toBe(true);
    const details = await braze.segments.details({ segment_id: 'seg_1' });
    expect(details).toEqual((await call(em, '/segments/details?segment_id=seg_1')).body);
  });

  test('templates.email_templates.list and templates.content_blocks.list send limit and offset', async () => {
    const templates = (await braze.templates.email_templates.list({ limit: 5, offset: 10 })) as {
      count: number;
      templates: unknown[];
    };
    expect(templates).toEqual((await call(em, '/templates/email/list?limit=5&offset=10')).body);
    expect(templates.templates).toHaveLength(5);
    const blocks = (await braze.templates.content_blocks.list({ limit: 3 })) as {
      count: number;
      content_blocks: unknown[];
    };
    expect(blocks).toEqual((await call(em, '/content_blocks/list?limit=3')).body);
    expect(blocks.count).toBeGreaterThan(100);
  });
});

describe('coverage of the client', () => {
  test('every client method is either tested here or named as outside the spec, and every spec endpoint is reached or named', () => {
    const methods = listClientMethods(new Braze('http://127.0.0.1:1', 'unused')).sort();
    expect(methods).toEqual([...Object.keys(IN_SPEC), ...Object.keys(OUTSIDE_SPEC)].sort());

    const reached = Object.values(IN_SPEC);
    const notOffered = Object.keys(NOT_OFFERED_BY_CLIENT);
    expect(reached.filter((e) => notOffered.includes(e))).toEqual([]);
    expect([...reached, ...notOffered].sort()).toEqual(Object.keys(ENDPOINTS).sort());
  });

  // Runs last (a file's tests run in order): it holds only when the whole file runs, not under a -t filter.
  test('the tests above called every in-spec method of the client', () => {
    expect([...called].filter((m) => m in IN_SPEC).sort()).toEqual(Object.keys(IN_SPEC).sort());
  });
});
