// The path of a call: the endpoint's pattern with its `:name` segments filled in (URL-encoded). One rule for the client,
// which refuses a missing value, and for push's dry-run report, which shows the pattern's name where a value is missing.
import { ConfigError } from '../errors.js';
import type { EndpointSpec } from './endpoints.js';

/**
 * `/catalogs/:catalog_name/items` with `{ catalog_name: 'products' }` → `/catalogs/products/items`.
 * @param missing 'refuse' throws a ConfigError naming the parameter; 'show' leaves `:name` in place. @default 'refuse'
 */
export function fillPath(
  endpoint: EndpointSpec,
  params: Record<string, string> = {},
  missing: 'refuse' | 'show' = 'refuse',
): string {
  return endpoint.path.replace(/:([A-Za-z_]+)/g, (_match, name: string) => {
    const value = params[name];
    if (value !== undefined && value !== '') return encodeURIComponent(value);
    if (missing === 'show') return `:${name}`;
    throw new ConfigError(
      `pathParams.${name}`,
      `${endpoint.method} ${endpoint.path} needs a value for :${name}; pass it in pathParams`,
    );
  });
}
