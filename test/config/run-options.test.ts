// `engage-etl run` flags + environment + pipeline file → RunOptions: precedence, defaults, and refusals that never show the key.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DateTime, Settings } from 'luxon';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import type { RawRunFlags } from '../../src/config/run-options.js';
import { resolveRunOptions } from '../../src/config/run-options.js';

const dir = mkdtempSync(join(tmpdir(), 'engage-run-options-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KEY = 'sk-secret-9f8e7d';
const NOW = DateTime.fromISO('2024-03-10T15:30:00Z', { zone: 'utc' });

const plain = join(dir, 'plain.yaml');
writeFileSync(
  plain,
  'name: plain\nstart_date: 2024-01-01\nstreams:\n  revenue: {}\n  sessions: { unit: hour }\n  custom_events: {}\n',
);
const withSource = join(dir, 'with-source.yaml');
writeFileSync(
  withSource,
  'name: src\nstart_date: 2024-01-01\nsource: { base_url: "https://file.example.com/" }\nstreams:\n  revenue: {}\n',
);

function resolve(flags: RawRunFlags, env: NodeJS.ProcessEnv = {}) {
  return resolveRunOptions({ pipeline: plain, ...flags }, env, NOW);
}

function refusal(flags: RawRunFlags, env: NodeJS.ProcessEnv = {}): ConfigError {
  try {
    resolve(flags, env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a refusal');
}

describe('defaults', () => {
  it('runs the emulator with the default paths, every declared stream and until frozen at now', () => {
    const o = resolve({ emulator: true });
    expect(o).toMatchObject({
      emulator: true,
      db: 'data/engage.duckdb',
      out: 'data/parquet',
      fullRefresh: false,
      json: false,
      pipelinePath: plain,
    });
    expect(o.streams).toEqual(['revenue', 'sessions', 'custom_events']);
    expect(o.until.toISO()).toBe('2024-03-10T15:30:00.000Z');
    expect(o.from).toBeUndefined();
    expect(o.baseUrl).toBeUndefined();
    expect(o.pipeline.name).toBe('plain');
  });

  it('reads pipelines/nightly.yaml when no --pipeline is given', () => {
    expect(resolveRunOptions({ emulator: true }, {}, NOW).pipeline.name).toBe('nightly');
  });

  it('passes the booleans and paths through', () => {
    const o = resolve({ emulator: true, fullRefresh: true, json: true, db: 'x.duckdb', out: 'pq' });
    expect(o).toMatchObject({ fullRefresh: true, json: true, db: 'x.duckdb', out: 'pq' });
  });
});

describe('precedence', () => {
  it('takes the flag over the environment over the file', () => {
    const env = { ENGAGE_BASE_URL: 'https://env.example.com', ENGAGE_API_KEY: 'env-key-4d8a1f0c6e2b97' };
    expect(
      resolveRunOptions(
        { pipeline: withSource, baseUrl: 'https://flag.example.com', apiKey: 'flag-key-9b3e7c1a5d0f24' },
        env,
        NOW,
      ),
    ).toMatchObject({ baseUrl: 'https://flag.example.com', apiKey: 'flag-key-9b3e7c1a5d0f24' });
    expect(resolveRunOptions({ pipeline: withSource }, env, NOW)).toMatchObject({
      baseUrl: 'https://env.example.com',
      apiKey: 'env-key-4d8a1f0c6e2b97',
    });
    expect(
      resolveRunOptions({ pipeline: withSource }, { ENGAGE_API_KEY: 'env-key-4d8a1f0c6e2b97' }, NOW),
    ).toMatchObject({ baseUrl: 'https://file.example.com' });
  });

  it('treats an empty environment variable as unset', () => {
    expect(resolveRunOptions({ pipeline: withSource, apiKey: KEY }, { ENGAGE_BASE_URL: '' }, NOW).baseUrl).toBe(
      'https://file.example.com',
    );
  });

  it('lets --emulator override a base URL standing in the environment or the file', () => {
    const o = resolveRunOptions(
      { pipeline: withSource, emulator: true },
      { ENGAGE_BASE_URL: 'https://env.example.com' },
      NOW,
    );
    expect(o.emulator).toBe(true);
    expect(o.baseUrl).toBeUndefined();
  });
});

describe('source refusals', () => {
  it('refuses to guess a source', () => {
    expect(refusal({}).message).toContain(
      'no source: pass --base-url or set ENGAGE_BASE_URL, or --emulator for the built-in emulator',
    );
  });

  it('refuses --emulator together with --base-url', () => {
    expect(refusal({ emulator: true, baseUrl: 'https://x.example.com' }).message).toMatch(
      /^--emulator: cannot be combined with --base-url/,
    );
  });

  it.each([
    [{ baseUrl: 'rest.example.com' }, {}, '--base-url: "rest.example.com" is not a URL'],
    [{ baseUrl: 'ftp://rest.example.com' }, {}, '--base-url: "ftp://rest.example.com" uses ftp'],
    [{}, { ENGAGE_BASE_URL: 'file:///etc/passwd' }, 'ENGAGE_BASE_URL: "file:///etc/passwd" uses file'],
  ])('refuses a base URL that is not http(s): %j %j', (flags, env, expected) => {
    expect(refusal({ apiKey: KEY, ...flags }, env).message).toContain(expected);
  });

  it('asks for an API key when a real service is named', () => {
    expect(refusal({ baseUrl: 'https://rest.example.com' }).message).toMatch(
      /^--api-key: .*https:\/\/rest\.example\.com.*--api-key KEY.*ENGAGE_API_KEY/,
    );
  });

  it('never shows the API key, even when it was pasted in the wrong flag', () => {
    const messages = [
      refusal({ baseUrl: KEY, apiKey: KEY }).message,
      refusal({ emulator: true, from: KEY }, { ENGAGE_API_KEY: KEY }).message,
      refusal({ emulator: true, streams: KEY, apiKey: KEY }).message,
      refusal({ baseUrl: `https://x.example.com/?key=${KEY}`, apiKey: KEY }).message,
    ];
    for (const m of messages) {
      expect(m).not.toContain(KEY);
      expect(m).toContain('***');
    }
  });
});

describe('--from and --until', () => {
  it('reads dates and date-times without a zone as UTC', () => {
    const o = resolve({ emulator: true, from: '2024-02-01', until: '2024-03-01T06:00' });
    expect(o.from?.toISO()).toBe('2024-02-01T00:00:00.000Z');
    expect(o.until.toISO()).toBe('2024-03-01T06:00:00.000Z');
    expect(o.until.zoneName).toBe('UTC');
  });

  it('stays in UTC when the machine runs in another zone', () => {
    const saved = { tz: process.env.TZ, zone: Settings.defaultZone };
    process.env.TZ = 'America/New_York';
    Settings.defaultZone = 'America/New_York';
    try {
      const o = resolve({ emulator: true, from: '2024-03-10', until: '2024-03-10 12:00:00' });
      expect([o.from?.toISO(), o.until.toISO(), o.pipeline.startDate.toISO()]).toEqual([
        '2024-03-10T00:00:00.000Z',
        '2024-03-10T12:00:00.000Z',
        '2024-01-01T00:00:00.000Z',
      ]);
    } finally {
      if (saved.tz === undefined) delete process.env.TZ;
      else process.env.TZ = saved.tz;
      Settings.defaultZone = saved.zone;
    }
  });

  it('converts an offset to UTC', () => {
    expect(resolve({ emulator: true, until: '2024-03-10T08:00:00-05:00' }).until.toISO()).toBe(
      '2024-03-10T13:00:00.000Z',
    );
  });

  it('shows the bad value and an example', () => {
    expect(refusal({ emulator: true, from: 'last week' }).message).toBe(
      '--from: "last week" is not an ISO 8601 date or date-time; e.g. 2024-03-10 or 2024-03-10T14:00:00Z (without a zone it is UTC)',
    );
    expect(refusal({ emulator: true, until: '2024-02-30' }).message).toMatch(
      /^--until: "2024-02-30" is not an ISO 8601/,
    );
  });

  it('refuses --from after --until', () => {
    expect(refusal({ emulator: true, from: '2024-03-05', until: '2024-03-01' }).message).toMatch(
      /^--from: 2024-03-05T00:00:00.000Z is after --until 2024-03-01T00:00:00.000Z/,
    );
  });

  it('refuses an --until at or before the start (start_date, or --from), saying nothing is in range', () => {
    expect(refusal({ emulator: true, until: '2023-12-31' }).message).toMatch(
      /^--until: 2023-12-31T00:00:00.000Z is not after start_date 2024-01-01 of .*plain\.yaml: nothing is in range; pass a later --until, or an earlier start_date$/,
    );
    expect(refusal({ emulator: true, until: '2024-01-01' }).message).toMatch(/nothing is in range/);
    expect(refusal({ emulator: true, from: '2024-02-01', until: '2024-02-01' }).message).toMatch(
      /^--until: .* is not after --from 2024-02-01T00:00:00.000Z: nothing is in range/,
    );
    expect(resolve({ emulator: true, until: '2024-01-01T01:00Z' }).until.toISO()).toBe('2024-01-01T01:00:00.000Z');
  });

  it('allows --until a few seconds ahead of the clock but not beyond a minute', () => {
    expect(resolve({ emulator: true, until: '2024-03-10T15:30:59Z' }).until.toISO()).toBe('2024-03-10T15:30:59.000Z');
    expect(refusal({ emulator: true, until: '2024-03-10T15:31:01Z' }).message).toMatch(/^--until: .* is in the future/);
  });
});

describe('--streams', () => {
  it('selects streams in the canonical order, ignoring spaces and repeats', () => {
    expect(resolve({ emulator: true, streams: 'custom_events, revenue,revenue' }).streams).toEqual([
      'revenue',
      'custom_events',
    ]);
  });

  it('refuses an unknown stream, suggesting the nearest and listing the valid ones', () => {
    const m = refusal({ emulator: true, streams: 'revenue,sesions' }).message;
    expect(m).toContain('--streams: unknown stream "sesions". Did you mean "sessions"?');
    expect(m).toContain('Valid: purchase_quantity, revenue, sessions');
  });

  it('refuses a stream the pipeline file does not declare', () => {
    expect(refusal({ emulator: true, streams: 'segment_size' }).message).toBe(
      `--streams: stream "segment_size" is not configured in ${plain}; add it under streams: there, or choose among revenue, sessions, custom_events`,
    );
  });

  it('refuses an empty list', () => {
    expect(refusal({ emulator: true, streams: ' , ' }).message).toMatch(/^--streams: is empty/);
  });
});

it('reports a broken pipeline file through the same ConfigError', () => {
  expect(refusal({ emulator: true, pipeline: join(dir, 'missing.yaml') }).message).toMatch(
    /missing\.yaml: cannot read the pipeline file \(no such file\)/,
  );
});
