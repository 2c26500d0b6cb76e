import { describe, expect, it } from 'vitest';
import {
  describePeople,
  generatePeople,
  isEmailSuppressed,
  viewUser,
} from '../../../src/emulator/people/people-workspace.js';
import { SHARED_EMAIL_PAIRS, findUserByExternalId, findUsersByEmail } from '../../../src/emulator/people/users.js';

describe('the seeded people workspace', () => {
  it('is the same for the same seed and differs for another seed', () => {
    const a = generatePeople(1);
    const b = generatePeople(1);
    const c = generatePeople(2);
    expect(a.users.map((u) => viewUser(a, u))).toEqual(b.users.map((u) => viewUser(b, u)));
    expect(a.users[0]?.id).not.toEqual(c.users[0]?.id);
    expect(a.users[0]?.attributes).not.toEqual(c.users[0]?.attributes);
  });

  it('holds about 200 identified users with external ids user_1…, unique internal ids, and a few anonymous alias-only profiles', () => {
    const people = generatePeople(1);
    expect(people.users.filter((u) => u.externalId !== null)).toHaveLength(200);
    expect(people.users.filter((u) => u.externalId === null && u.aliases.length > 0).length).toBeGreaterThan(0);
    expect(new Set(people.users.map((u) => u.id)).size).toBe(people.users.length);
    expect(findUserByExternalId(people.users, 'user_1')?.externalId).toBe('user_1');
  });

  it('has deprecated ids that still identify their user, and emails shared by two users', () => {
    const people = generatePeople(1);
    expect(findUserByExternalId(people.users, 'legacy_user_20')?.externalId).toBe('user_20');
    const [a, b] = SHARED_EMAIL_PAIRS[0] ?? [0, 0];
    const shared = findUserByExternalId(people.users, `user_${a}`)?.attributes['email'];
    expect(typeof shared).toBe('string');
    expect(findUsersByEmail(people.users, String(shared)).map((u) => u.externalId)).toEqual([`user_${a}`, `user_${b}`]);
  });

  it('gives users E.164 phones, names, ISO countries and languages, and an array custom attribute', () => {
    const people = generatePeople(1);
    for (const u of people.users.filter((x) => x.externalId !== null)) {
      if (u.attributes['phone'] !== undefined) expect(u.attributes['phone']).toMatch(/^\+[1-9]\d{1,14}$/);
      expect(u.attributes['country']).toMatch(/^[A-Z]{2}$/);
      expect(u.attributes['language']).toMatch(/^[a-z]{2}$/);
      expect(Array.isArray(u.attributes['favorite_cuisines'])).toBe(true);
    }
  });

  it('names stable subscription groups, catalogs, preference centers, schedules, SCIM users and a suppressed email', () => {
    const people = generatePeople(1);
    const d = describePeople(people);
    expect(d['subscription_groups']).toContainEqual({ id: 'sg_email_1', name: 'Newsletter', channel: 'email' });
    expect(d['subscription_groups']).toContainEqual({ id: 'sg_sms_1', name: 'SMS alerts', channel: 'sms' });
    const restaurants = (d['catalogs'] as { name: string; fields: { name: string; type: string }[] }[]).find(
      (c) => c.name === 'restaurants',
    );
    expect(restaurants?.fields.map((f) => f.name)).toEqual([
      'id',
      'Name',
      'City',
      'Cuisine',
      'Rating',
      'Loyalty_Program',
      'Location',
      'Created_At',
    ]);
    expect(d['preference_centers']).toEqual([
      { id: 'pc_1', name: 'Newsletter preferences', state: 'active' },
      { id: 'pc_2', name: 'SMS preferences', state: 'draft' },
    ]);
    expect((d['scheduled_messages'] as { status: string }[]).map((s) => s.status)).toEqual([
      'scheduled',
      'scheduled',
      'sent',
      'scheduled',
      'scheduled',
    ]);
    expect((d['scim_users'] as { userName: string }[]).map((s) => s.userName)).toContain('admin@example.com');
    expect((d['sample_users'] as unknown[]).length).toBe(5);
    const user7 = findUserByExternalId(people.users, 'user_7');
    expect(isEmailSuppressed(people, String(user7?.attributes['email']))).toBe(true);
    expect(viewUser(people, user7!)['email_deliverable']).toBe(false);
  });
});
