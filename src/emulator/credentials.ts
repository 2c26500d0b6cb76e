// Who may call the emulator: the seeded demo API key (every permission), the SCIM token, and extra keys given as
// options or in a keys file (`{ "keys": [ { "key", "name", "permissions" } ] }`), validated with errors naming the field.
import { readFileSync } from 'node:fs';
import { credentialProblem } from '../api/credential-rules.js';
import { ALL_PERMISSIONS } from '../api/endpoints.js';
import { ConfigError } from '../errors.js';
import { hashUnit } from './random.js';
import type { ApiKeyGrant, Credentials } from './workspace.js';

/** An extra API key of the emulator. */
export interface KeyFileEntry {
  /** The secret the client sends as `Authorization: Bearer <key>`. */
  key: string;
  /** Human name, used in 403 messages instead of the key. */
  name: string;
  /** Permissions of spec section 4 (e.g. `purchases.quantity_series`). */
  permissions: string[];
}

function hex(seed: number, what: string): string {
  return [0, 1]
    .map((i) =>
      Math.floor(hashUnit(seed, what, i) * 2 ** 32)
        .toString(16)
        .padStart(8, '0'),
    )
    .join('');
}

/** The demo API key of a seed: deterministic, so docs and scripts can rely on it for a given seed. */
export function demoApiKeyFor(seed: number): string {
  return `demo-${hex(seed, 'demo-api-key')}`;
}

export function scimTokenFor(seed: number): string {
  return `scim-${hex(seed, 'scim-token')}`;
}

/**
 * Check extra keys: each needs a non-empty key and name and known permissions; keys must be unique and differ from the
 * demo key. `where` prefixes every error (a file name or `keys`). Key values never appear in a message.
 */
export function validateKeys(entries: unknown, where: string, demoApiKey: string): KeyFileEntry[] {
  if (!Array.isArray(entries))
    throw new ConfigError(where, 'must be an array of { "key", "name", "permissions" } objects');
  const seen = new Set<string>([demoApiKey]);
  return entries.map((entry: unknown, i) => {
    const at = `${where}[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
      throw new ConfigError(at, 'must be an object { "key", "name", "permissions" }');
    const { key, name, permissions } = entry as Record<string, unknown>;
    if (typeof key !== 'string' || key.trim() === '') throw new ConfigError(`${at}.key`, 'must be a non-empty string');
    // The client's own rule: a key it would refuse could never be used against this emulator.
    const problem = credentialProblem(key);
    if (problem) throw new ConfigError(`${at}.key`, `${problem} (it travels in an Authorization header)`);
    if (seen.has(key))
      throw new ConfigError(`${at}.key`, 'repeats another key (or the demo key): every key must be unique');
    seen.add(key);
    if (typeof name !== 'string' || name.trim() === '')
      throw new ConfigError(`${at}.name`, 'must be a non-empty string naming the key');
    if (!Array.isArray(permissions))
      throw new ConfigError(
        `${at}.permissions`,
        `must be an array of permission names, e.g. ["${ALL_PERMISSIONS[0]}"]`,
      );
    permissions.forEach((p: unknown, j) => {
      if (typeof p !== 'string' || !ALL_PERMISSIONS.includes(p)) {
        throw new ConfigError(
          `${at}.permissions[${j}]`,
          `${JSON.stringify(p)} is not a permission; known ones: ${ALL_PERMISSIONS.join(', ')}`,
        );
      }
    });
    return { key, name, permissions: [...(permissions as string[])] };
  });
}

/** Read and validate a keys file. */
export function loadKeyFile(path: string, demoApiKey: string): KeyFileEntry[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(
      path,
      `cannot read the keys file (${(err as NodeJS.ErrnoException).code ?? String(err)}); check the path given to --keys`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(
      path,
      `is not valid JSON (${(err as Error).message}); expected { "keys": [ { "key", "name", "permissions" } ] }`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || !Object.hasOwn(parsed, 'keys')) {
    throw new ConfigError(
      path,
      'must be a JSON object with a "keys" array: { "keys": [ { "key", "name", "permissions" } ] }',
    );
  }
  return validateKeys((parsed as { keys: unknown }).keys, `${path}: keys`, demoApiKey);
}

export function buildCredentials(seed: number, extra: readonly KeyFileEntry[]): Credentials {
  const demoApiKey = demoApiKeyFor(seed);
  const apiKeys = new Map<string, ApiKeyGrant>([[demoApiKey, { name: 'demo', permissions: new Set(ALL_PERMISSIONS) }]]);
  for (const entry of validateKeys(extra, 'keys', demoApiKey))
    apiKeys.set(entry.key, { name: entry.name, permissions: new Set(entry.permissions) });
  return { apiKeys, demoApiKey, scimToken: scimTokenFor(seed) };
}
