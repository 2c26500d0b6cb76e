// Hostile echoes of the credentials: a 401 that quotes the key JSON-escaped (PHP, Go), URL- or form-encoded or as HTML;
// a base URL carrying `?api_key=`; keys too short or outside visible ASCII. Nothing leaks, bad keys never leave.
import { DateTime } from 'luxon';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/api-client.js';
import { ENDPOINTS } from '../../src/api/endpoints.js';
import { MIN_CREDENTIAL_LENGTH } from '../../src/api/credential-rules.js';
import { parsePipelineText } from '../../src/config/load-pipeline-file.js';
import { resolveRunOptions } from '../../src/config/run-options.js';
import { resolvePushOptions } from '../../src/push/push-options.js';
import { ConfigError, FatalApiError } from '../../src/errors.js';
import { json, TestServer } from '../api/helpers/test-server.js';
import {
  expectNoSecret,
  expectOneLineError,
  HOSTILE_KEY,
  HOSTILE_TOKEN,
  hostileClient,
  spellings,
  within,
} from './hostile-kit.js';

const call = {
  endpoint: ENDPOINTS.purchasesQuantitySeries,
  query: { length: 1, ending_at: '2025-06-14T00:00:00Z', unit: 'day' },
};

let server: TestServer;
beforeEach(async () => {
  server = await TestServer.create();
});
afterEach(async () => {
  await server.close();
});

describe('a server that echoes the key', () => {
  it('offers the spellings PHP, Go and URL encoders write', () => {
    expect(spellings(HOSTILE_KEY).length).toBeGreaterThanOrEqual(8);
    expect(spellings(HOSTILE_KEY)).toContain('sk-live\\/4f9a+c2e&7b1d-93a0e6f5');
    expect(spellings(HOSTILE_KEY)).toContain('sk-live/4f9a+c2e\\u00267b1d-93a0e6f5');
    expect(spellings(HOSTILE_KEY)).toContain('sk-live%2F4f9a%2Bc2e%267b1d-93a0e6f5');
  });

  it.each(spellings(HOSTILE_KEY).map((s) => [s]))(
    'in the spelling %s, in a 401 body, leaves it in no message and no stored body',
    async (spelling) => {
      const { client } = hostileClient(server.url);
      server.handle((_req, res) => {
        res.writeHead(401, { 'Content-Type': 'application/json' });
        // Written by hand: the spelling is put in the JSON text as the server would have escaped it.
        res.end(
          `{"message":"Invalid API key: ${spelling.replace(/"/g, '\\"')}","hint":"key=${spelling.replace(/"/g, '\\"')}"}`,
        );
      });
      const error = expectOneLineError(
        await within(2_000, client.request(call)),
        /failed with 401: server said "Invalid API key: \[redacted\]"/,
      );
      expect(error).toBeInstanceOf(FatalApiError);
      expectNoSecret(JSON.stringify((error as FatalApiError).body));
    },
  );

  it('in a query string of an HTML 401 page is masked too', async () => {
    const { client } = hostileClient(server.url);
    server.handle((_req, res) => {
      res.writeHead(401, { 'Content-Type': 'text/html' });
      res.end(
        `<html><body><a href="/login?api_key=${encodeURIComponent(HOSTILE_KEY)}&next=%2F">retry</a> key ${HOSTILE_KEY.replace(/&/g, '&amp;')}</body></html>`,
      );
    });
    expectOneLineError(await within(2_000, client.request(call)), /api_key=\[redacted\]&next=%2F/);
  });

  it('echoed by a SCIM endpoint as the token, and in events, is masked likewise', async () => {
    const { client, events } = hostileClient(server.url, { maxAttempts: 2, backoffBaseMs: 1 });
    server.handle((_req, res, i) =>
      i === 0
        ? json(res, 503, { detail: `token ${HOSTILE_TOKEN} is warming up` })
        : json(res, 401, {
            detail: `Bearer ${JSON.stringify(HOSTILE_TOKEN).slice(1, -1).replace(/\//g, '\\/')} refused`,
          }),
    );
    const error = await within(2_000, client.request({ endpoint: ENDPOINTS.scimUserGet, pathParams: { id: 'u-1' } }));
    expectOneLineError(error, /\[redacted\]/);
    expectNoSecret(JSON.stringify(events));
  });
});

describe('a base URL with credentials in it', () => {
  const url = (server: string) => `${server}/rest?api_key=${encodeURIComponent(HOSTILE_KEY)}&workspace=ws-1`;

  it('is refused by the client with every query value masked', () => {
    const error = (() => {
      try {
        ApiClient.create({ baseUrl: url('http://127.0.0.1:1'), apiKey: HOSTILE_KEY });
      } catch (e) {
        return e as Error;
      }
      return undefined;
    })();
    expectOneLineError(
      error,
      /^baseUrl: "http:\/\/127\.0\.0\.1:1\/rest\?api_key=\*\*\*&workspace=\*\*\*" has a query or fragment/,
    );
  });

  it('is refused from --base-url, ENGAGE_BASE_URL, a pipeline file and push, masked each time', () => {
    const now = DateTime.fromISO('2025-06-15T12:00:00Z');
    const yaml = (u: string) =>
      `name: x\nstart_date: 2025-01-01\nsource: { base_url: "${u}" }\nstreams:\n  custom_events: {}\n`;
    const attempts: (() => unknown)[] = [
      () =>
        resolveRunOptions(
          {
            emulator: false,
            baseUrl: url('https://rest.example.com'),
            apiKey: HOSTILE_KEY,
            pipeline: 'pipelines/nightly.yaml',
          },
          {},
          now,
        ),
      () =>
        resolveRunOptions(
          { pipeline: 'pipelines/nightly.yaml' },
          {
            ENGAGE_BASE_URL: `https://user:${encodeURIComponent(HOSTILE_KEY)}@rest.example.com`,
            ENGAGE_API_KEY: HOSTILE_KEY,
          },
          now,
        ),
      () => parsePipelineText(yaml(url('https://rest.example.com')), 'p.yaml'),
      () =>
        resolvePushOptions(
          'user-attributes',
          { table: 'crm_users', baseUrl: url('https://rest.example.com'), apiKey: HOSTILE_KEY },
          {},
        ),
    ];
    for (const attempt of attempts) {
      let error: unknown;
      try {
        attempt();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expectOneLineError(error as Error, /\*\*\*/);
    }
  });
});

describe('a key that cannot be real', () => {
  it.each([
    ['one character', 'k', /is 1 characters long, shorter than any real one \(at least 16\)/],
    ['a placeholder', 'secret', /is 6 characters long/],
    [
      'a character above U+00FF',
      `sk-live-${'a'.repeat(8)}\u0100${'b'.repeat(8)}`,
      /contains a character outside visible ASCII \(U\+0100 at position 17\)/,
    ],
    [
      'a Latin-1 character (é)',
      `sk-live-${'a'.repeat(8)}é${'b'.repeat(8)}`,
      /contains a character outside visible ASCII \(U\+00E9 at position 17\)/,
    ],
    ['a typographic quote', `“sk-live-${'a'.repeat(16)}”`, /U\+201C at position 1/],
    ['a line break', `sk-live-${'a'.repeat(16)}\n`, /contains a space or control character \(U\+000A/],
  ])('(%s) is a ConfigError before any request', async (_name, key, pattern) => {
    expect(() => ApiClient.create({ baseUrl: server.url, apiKey: key })).toThrow(ConfigError);
    expect(() => ApiClient.create({ baseUrl: server.url, apiKey: key })).toThrow(pattern);
    expect(() => ApiClient.create({ baseUrl: server.url, apiKey: HOSTILE_KEY, scimToken: key })).toThrow(
      /^scimToken: the SCIM token /,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('is refused by the command-line options too, naming the flag or the variable and never the key', () => {
    const now = DateTime.fromISO('2025-06-15T12:00:00Z');
    const run = (flags: object, env: NodeJS.ProcessEnv) => () =>
      resolveRunOptions(
        { pipeline: 'pipelines/nightly.yaml', baseUrl: 'https://rest.example.com', ...flags },
        env,
        now,
      );
    expect(run({ apiKey: 'key' }, {})).toThrow(/^--api-key: the REST API key is 3 characters long/);
    expect(run({}, { ENGAGE_API_KEY: `sk-${'x'.repeat(20)}\u0394` })).toThrow(
      /^ENGAGE_API_KEY: the REST API key contains a character outside visible ASCII \(U\+0394/,
    );
    expect(() =>
      resolvePushOptions('user-attributes', { table: 't', baseUrl: 'https://rest.example.com', apiKey: 'abc' }, {}),
    ).toThrow(/^--api-key: the REST API key is 3 characters long/);
    expect(() =>
      resolvePushOptions(
        'dashboard-user-deletions',
        { table: 't', baseUrl: 'https://rest.example.com', confirm: true, requestOrigin: 'x' },
        { ENGAGE_SCIM_TOKEN: 'tok' },
      ),
    ).toThrow(/^ENGAGE_SCIM_TOKEN: the SCIM token is 3 characters long/);
  });

  it('is long enough in the emulator: its demo key and SCIM token pass', async () => {
    const { demoApiKeyFor, scimTokenFor } = await import('../../src/emulator/credentials.js');
    for (const seed of [1, 2, 42]) {
      expect(demoApiKeyFor(seed)).toMatch(/^demo-[0-9a-f]{16}$/);
      expect(demoApiKeyFor(seed).length).toBeGreaterThanOrEqual(MIN_CREDENTIAL_LENGTH);
      expect(() =>
        ApiClient.create({ baseUrl: server.url, apiKey: demoApiKeyFor(seed), scimToken: scimTokenFor(seed) }),
      ).not.toThrow();
    }
  });
});
