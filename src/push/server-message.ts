// The platform's own words in a refused request, for the row's error: `message`, a SCIM `detail`, else the error text.
import type { FatalApiError } from '../errors.js';

export function serverMessage(error: FatalApiError): string {
  const body = error.body as { message?: unknown; detail?: unknown } | string | undefined;
  if (body && typeof body === 'object') {
    if (typeof body.detail === 'string') return body.detail;
    if (typeof body.message === 'string') return body.message;
  }
  return error.message;
}
