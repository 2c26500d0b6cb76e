// The platform's 2xx bodies carry `message: "success"`; anything else in `message` is a refusal dressed as success
// (spec 7.2: an invalid key or an exceeded rate limit on the external ID endpoints is reported that way).
import { isRecord } from './response-shape.js';
import { FatalApiError, RetriableApiError, type RequestContext } from '../errors.js';

/**
 * Throws when `body.message` exists and is not `success`: a RetriableApiError when it reports a rate limit, else a
 * FatalApiError quoting it. Bodies without a `message` (SCIM, empty bodies) pass.
 */
export function expectSuccess(body: unknown, ctx: RequestContext, status?: number): void {
  if (!isRecord(body) || !('message' in body)) return;
  const message = body.message;
  if (typeof message === 'string' && message.trim().toLowerCase() === 'success') return;
  const quoted = typeof message === 'string' ? `"${message}"` : JSON.stringify(message);
  if (typeof message === 'string' && /rate.?limit/i.test(message)) {
    throw new RetriableApiError(ctx, `the response reports a rate limit: ${quoted}`, { status });
  }
  throw new FatalApiError(
    ctx,
    `the response's message is ${quoted} instead of "success"; the request was not carried out — check the parameters, the API key and its permissions`,
    { status, body },
  );
}
