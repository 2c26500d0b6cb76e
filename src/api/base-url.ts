// One rule for the API base URL, wherever it comes from (flag, environment, pipeline file, the client's own option).
export { showUrl } from './show-url.js';

/**
 * The base URL without a trailing slash, or a reason it is unusable. Credentials, query and fragment are refused:
 * the client appends endpoint paths to it, and a URL carrying a password would leak into logs.
 */
export function normalizeBaseUrl(raw: string): { ok: true; url: string } | { ok: false; reason: string } {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { ok: false, reason: 'is not a URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ok: false, reason: `uses ${url.protocol.replace(/:$/, '')}, not http or https` };
  if (url.username !== '' || url.password !== '')
    return { ok: false, reason: 'carries a user name or password; credentials go in --api-key or ENGAGE_API_KEY only' };
  if (url.search !== '' || url.hash !== '')
    return { ok: false, reason: 'has a query or fragment; give only scheme, host and optional path' };
  return { ok: true, url: `${url.origin}${url.pathname.replace(/\/+$/, '')}` };
}
