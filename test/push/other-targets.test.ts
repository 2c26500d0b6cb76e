import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isEmailSuppressed } from '../../src/emulator/people/people-workspace.js';
import type { PushFixture } from './push-test-helpers.js';
import { countRequests, push, pushFixture, pushed, query, sql, user } from './push-test-helpers.js';

let fx: PushFixture;
beforeEach(async () => {
  fx = await pushFixture();
});
afterEach(async () => {
  await fx.close();
});

describe('push external-id-renames', () => {
  it('renames users and maps per-index rename_errors back to the source rows', async () => {
    const summary = await pushed(fx, 'external-id-renames', {
      sql: `SELECT * FROM (VALUES ('user_11', 'crm_11'), ('user_12', 'user_13'), ('user_14', 'crm_14'), ('nobody', 'crm_x'))
            t(current_external_id, new_external_id)`,
    });
    expect(summary).toMatchObject({ status: 'partial', rowsAccepted: 2, rowsRejected: 2 });
    expect(summary.failures.map((f) => [f.index, f.key])).toEqual([
      [1, 'user_12'],
      [3, 'nobody'],
    ]);
    expect(summary.failures[0]?.error).toMatch(/already used/);
    expect(user(fx, 'crm_11').deprecatedExternalIds).toContain('user_11');
    expect(user(fx, 'crm_14').externalId).toBe('crm_14');
  });
});

describe('push external-id-removals', () => {
  it('is refused without --confirm, and above --max-rows', async () => {
    await expect(push(fx, 'external-id-removals', { sql: `SELECT 'legacy_user_20' AS external_id` })).rejects.toThrow(
      /--confirm: .*cannot be undone/,
    );
    await expect(
      push(fx, 'external-id-removals', {
        sql: `SELECT 'legacy_user_' || i AS external_id FROM range(20, 101, 20) t(i)`,
        confirm: true,
        maxRows: '3',
      }),
    ).rejects.toThrow(/--max-rows: 5 rows would be sent, more than --max-rows 3/);
    expect(user(fx, 'user_20').deprecatedExternalIds).toEqual(['legacy_user_20']);
  });

  it('removes deprecated ids with --confirm and reports a primary id on its row', async () => {
    const summary = await pushed(fx, 'external-id-removals', {
      sql: `SELECT * FROM (VALUES ('legacy_user_20'), ('user_3'), ('legacy_user_40')) t(external_id)`,
      confirm: true,
    });
    expect(summary).toMatchObject({ rowsAccepted: 2, rowsRejected: 1 });
    expect(summary.failures).toEqual([
      expect.objectContaining({ index: 1, key: 'user_3', error: expect.stringMatching(/primary external id/) }),
    ]);
    expect(user(fx, 'user_20').deprecatedExternalIds).toEqual([]);
    expect(user(fx, 'user_40').deprecatedExternalIds).toEqual([]);
  });
});

describe('push preference-center', () => {
  it('updates a preference center and sends it again only when a column changed', async () => {
    await sql(
      fx,
      `CREATE TABLE pcs AS SELECT 'pc_2' AS preference_center_id, '<p>New page</p>' AS preference_center_page_html, '<p>Thanks</p>' AS confirmation_page_html,
                    'active' AS state, 'width=400' AS meta_viewport_content`,
    );
    await pushed(fx, 'preference-center', { table: 'pcs' });
    expect(fx.em.state.people.preferenceCenters.get('pc_2')).toMatchObject({
      preference_center_page_html: '<p>New page</p>',
      state: 'active',
      options: { 'meta-viewport-content': 'width=400' },
    });
    expect((await countRequests(fx, () => pushed(fx, 'preference-center', { table: 'pcs' }))).requests).toBe(0);
  });
});

describe('push schedule-cancellations', () => {
  it('cancels scheduled messages; an already sent one and an unknown one are rejected with the reason', async () => {
    const summary = await pushed(fx, 'schedule-cancellations', {
      sql: `SELECT * FROM (VALUES ('sched_1'), ('sched_3'), ('sched_9')) t(schedule_id)`,
      confirm: true,
    });
    expect(summary).toMatchObject({ rowsAccepted: 1, rowsRejected: 2, status: 'partial' });
    expect(summary.failures.map((f) => [f.key, f.error.slice(0, 4)])).toEqual([
      ['sched_3', '400:'],
      ['sched_9', '404:'],
    ]);
    expect(fx.em.state.people.scheduledMessages.get('sched_1')?.status).toBe('cancelled');
    expect(fx.em.state.people.scheduledMessages.get('sched_3')?.status).toBe('sent');
  });
});

describe('push email-suppressions', () => {
  it('suppresses addresses 50 per request, and sends nothing for them again', async () => {
    await sql(
      fx,
      `CREATE TABLE bounced AS SELECT 'bounce' || i || '@example.net' AS email FROM range(70) t(i) UNION ALL SELECT 'Ada.Smith@Example.com'`,
    );
    const { result, requests } = await countRequests(fx, () =>
      pushed(fx, 'email-suppressions', { table: 'bounced', confirm: true }),
    );
    expect(result.rowsAccepted).toBe(71);
    expect(requests).toBe(2);
    expect(isEmailSuppressed(fx.em.state.people, 'bounce69@example.net')).toBe(true);
    expect(isEmailSuppressed(fx.em.state.people, 'ada.smith@example.com')).toBe(true);
    expect(
      (await countRequests(fx, () => pushed(fx, 'email-suppressions', { table: 'bounced', confirm: true }))).requests,
    ).toBe(0);
  });
});

describe('push dashboard-user-deletions', () => {
  it('deletes dashboard users with the SCIM token and reports a 404 on its row; the token is stored nowhere', async () => {
    const [first] = fx.em.state.people.dashboardUsers.keys();
    const summary = await pushed(fx, 'dashboard-user-deletions', {
      sql: `SELECT * FROM (VALUES ('${first}'), ('no-such-user')) t(id)`,
      confirm: true,
      apiKey: undefined,
      scimToken: fx.em.scimToken,
      requestOrigin: 'https://dashboard.example.com',
    });
    expect(summary).toMatchObject({ rowsAccepted: 1, rowsRejected: 1 });
    expect(summary.failures).toEqual([
      expect.objectContaining({
        key: 'no-such-user',
        error: expect.stringMatching(/^404: User no-such-user not found/),
      }),
    ]);
    expect(fx.em.state.people.dashboardUsers.has(first!)).toBe(false);
    const stored = await query(
      fx,
      `SELECT (SELECT string_agg(s::VARCHAR, '|') FROM "_push_state" s) || (SELECT string_agg(l::VARCHAR, '|') FROM "_push_log" l) || (SELECT string_agg(r::VARCHAR, '|') FROM "_push_runs" r) AS everything`,
    );
    expect(String(stored[0]?.everything)).not.toContain(fx.em.scimToken);
    expect(String(stored[0]?.everything)).not.toContain(fx.em.demoApiKey);
  });
});
