import { describe, expect, it } from 'vitest';
import { isEmailSuppressed, viewUser } from '../../../src/emulator/people/people-workspace.js';
import { SHARED_EMAIL_PAIRS } from '../../../src/emulator/people/users.js';
import { emailBlacklistRoute } from '../../../src/emulator/writes/email-blacklist-route.js';
import { bodyOf, makeKit } from './people-test-kit.js';

describe('POST /email/blacklist', () => {
  it('suppresses a lone address as a hard bounce, stopping delivery to every user holding it', () => {
    const kit = makeKit();
    const [a, b] = SHARED_EMAIL_PAIRS[1] ?? [0, 0];
    const email = String(kit.user(`user_${a}`).attributes['email']);
    expect(viewUser(kit.workspace.people, kit.user(`user_${a}`))['email_deliverable']).toBe(true);
    expect(kit.call(emailBlacklistRoute, { email })).toEqual({ status: 201, body: { message: 'success' } });
    for (const n of [a, b]) {
      expect(viewUser(kit.workspace.people, kit.user(`user_${n}`))).toMatchObject({
        email_deliverable: false,
        email_hard_bounced: true,
      });
    }
  });

  it('accepts an array of up to 50 addresses and refuses 51, an empty list or a malformed address', () => {
    const kit = makeKit();
    expect(kit.call(emailBlacklistRoute, { email: ['A@Example.com', 'b@example.com'] }).status).toBe(201);
    expect(isEmailSuppressed(kit.workspace.people, 'a@example.com')).toBe(true);
    const many = Array.from({ length: 51 }, (_, i) => `u${i}@example.com`);
    expect(bodyOf(kit.call(emailBlacklistRoute, { email: many }))['message']).toMatch(/51 values, more than the 50/);
    expect(isEmailSuppressed(kit.workspace.people, 'u0@example.com')).toBe(false);
    expect(kit.call(emailBlacklistRoute, { email: [] }).status).toBe(400);
    expect(bodyOf(kit.call(emailBlacklistRoute, { email: 'nope' }))['message']).toMatch(
      /"nope" is not an email address/,
    );
  });
});
