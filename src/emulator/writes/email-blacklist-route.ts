// POST /email/blacklist (4.18): addresses become suppressed hard bounces; email delivery to every user holding one stops.
import { ENDPOINTS } from '../../api/endpoints.js';
import type { EmulatorRequest, EmulatorResponse, Route, RouteContext } from '../route.js';
import { badRequest } from '../route.js';
import { CREATED_SUCCESS, EMAIL, isPlainObject, show, stringList } from './body-checks.js';

export const MAX_BLACKLIST_EMAILS = 50;

function handle(req: EmulatorRequest, ctx: RouteContext): EmulatorResponse {
  if (!isPlainObject(req.body))
    return badRequest(
      `the body must be a JSON object with email (a string or an array of strings), got ${show(req.body)}`,
    );
  const emails = stringList(req.body['email'], {
    field: 'email',
    max: MAX_BLACKLIST_EMAILS,
    allowSingle: true,
    pattern: { re: EMAIL, what: 'an email address' },
  });
  if (!emails.ok) return badRequest(emails.message);
  const at = ctx.clock.now().toISO() ?? '';
  for (const email of emails.value) {
    const key = email.trim().toLowerCase();
    if (!ctx.workspace.people.suppressedEmails.has(key)) ctx.workspace.people.suppressedEmails.set(key, at);
  }
  return CREATED_SUCCESS;
}

export const emailBlacklistRoute: Route = { endpoint: ENDPOINTS.emailBlacklist, handle };
