// Pipeline files on disk: the shipped nightly pipeline, defaults, and every refusal naming file, line, field and fix.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { reportPathFor } from '../../src/config/report-path.js';
import { loadPipelineFile, parsePipelineText } from '../../src/config/load-pipeline-file.js';
import { STREAM_NAMES } from '../../src/config/pipeline-definition.js';

const dir = mkdtempSync(join(tmpdir(), 'engage-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;

function file(text: string, ext = 'yaml'): string {
  counter += 1;
  const path = join(dir, `p${counter}.${ext}`);
  writeFileSync(path, text);
  return path;
}

function refusal(path: string): ConfigError {
  try {
    loadPipelineFile(path);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`expected ${path} to be refused`);
}

const HEAD = 'name: t\nstart_date: 2024-01-01\n';

describe('the shipped nightly pipeline', () => {
  const nightly = loadPipelineFile('pipelines/nightly.yaml');

  it("reads lookback_days: auto with its bound, and a stream's own lookback_days over the pipeline's", () => {
    const p = parsePipelineText(
      `${HEAD}lookback_days: auto\nlookback_max_days: 14\nstreams:\n  kpis: {}\n  sessions: { lookback_days: 1 }\n  custom_events: {}\n`,
      'auto.yaml',
    );
    expect(p.lookback).toEqual({ mode: 'auto', maxDays: 14 });
    expect(p.streamLookbacks).toEqual({ kpis: { mode: 'auto', maxDays: 14 }, sessions: { mode: 'fixed', days: 1 } });
    const fixed = parsePipelineText(
      `${HEAD}lookback_days: 5\nstreams:\n  revenue: { lookback_days: auto }\n`,
      'fixed.yaml',
    );
    expect(fixed.streamLookbacks).toEqual({ revenue: { mode: 'auto', maxDays: 28 } });
  });

  it('loads with every stream, in the canonical order', () => {
    expect(nightly.name).toBe('nightly');
    expect(nightly.startDate.toISO()).toBe('2024-01-01T00:00:00.000Z');
    expect(nightly.lookback).toEqual({ mode: 'fixed', days: 3 });
    expect(nightly.streamNames).toEqual(STREAM_NAMES);
  });

  it('names no workspace\'s ids: `all` for every list, `"*"` for every aggregate', () => {
    const s = nightly.streams;
    const all = { all: true, ids: [] };
    expect(s.purchase_quantity).toEqual({ unit: 'day', apps: ['*'], products: { all: true, ids: ['*'] } });
    expect(s.sessions?.apps).toEqual(['*']);
    expect(s.sessions?.segments).toEqual(['*']);
    expect(s.sessions?.unit).toBe('hour');
    expect(s.segment_size?.segments).toEqual(all);
    expect(s.canvas_summary).toEqual({
      canvases: all,
      source: 'data_series',
      reconcile: true,
      variantBreakdown: true,
      stepBreakdown: true,
      deletedStepData: false,
    });
    expect(s.kpis).toEqual({ metrics: ['dau', 'mau', 'new_users', 'uninstalls'], apps: ['*'] });
    expect(s.event_counts).toEqual({ events: 'all', unit: 'day', apps: ['*'], segments: ['*'] });
    expect(s.campaign_series).toEqual({ campaigns: all });
    expect(s.canvas_details).toEqual({ canvases: all, includeArchived: false });
    expect(s.email_templates?.ids).toEqual(all);
    expect(s.content_blocks).toEqual({ ids: all, inclusionData: true });
    expect(s.campaigns).toEqual({ campaigns: all, includeArchived: false });
    expect(s.segments).toEqual({ segments: all });
    expect(nightly.source).toEqual({});
  });
});

describe('defaults', () => {
  it('fills lookback 3, unit day, "*" selectors and false booleans, and reads a bare stream key as no options', () => {
    const p = loadPipelineFile(
      file(
        `${HEAD}streams:\n  revenue: {}\n  sessions: {}\n  canvas_summary: { canvases: [cv_1] }\n  content_blocks: { ids: [cb_1] }\n  custom_events:\n`,
      ),
    );
    expect(p.lookback).toEqual({ mode: 'fixed', days: 3 });
    expect(p.streams.revenue).toEqual({ unit: 'day', apps: ['*'], products: { all: false, ids: ['*'] } });
    expect(p.streams.sessions).toEqual({ unit: 'day', apps: ['*'], segments: ['*'] });
    expect(p.streams.canvas_summary).toEqual({
      canvases: { all: false, ids: ['cv_1'] },
      source: 'data_series',
      reconcile: false,
      variantBreakdown: false,
      stepBreakdown: false,
      deletedStepData: false,
    });
    expect(p.streams.content_blocks?.inclusionData).toBe(false);
    expect(p.streams.custom_events).toEqual({});
    expect(p.streamNames).toEqual(['revenue', 'sessions', 'custom_events', 'canvas_summary', 'content_blocks']);
  });

  it('reads a date without a zone as the start of that UTC day, whatever the machine zone', () => {
    const p = loadPipelineFile(file(`name: t\nstart_date: "2024-03-10"\nstreams: { custom_events: {} }\n`));
    expect(p.startDate.toISO()).toBe('2024-03-10T00:00:00.000Z');
    expect(p.startDate.zoneName).toBe('UTC');
  });

  it('reads a JSON pipeline file with the same parser', () => {
    const p = loadPipelineFile(
      file(
        JSON.stringify({
          name: 'j',
          start_date: '2024-01-01',
          lookback_days: 0,
          source: { base_url: 'https://rest.example.com/' },
          streams: { data_integrations: {} },
        }),
        'json',
      ),
    );
    expect(p).toMatchObject({
      name: 'j',
      lookback: { mode: 'fixed', days: 0 },
      source: { baseUrl: 'https://rest.example.com' },
      streamNames: ['data_integrations'],
    });
  });
});

describe('refusals', () => {
  it('names a missing file and says how to point at one', () => {
    const err = refusal(join(dir, 'nope.yaml'));
    expect(err.message).toContain('nope.yaml');
    expect(err.message).toMatch(/no such file.*--pipeline/);
  });

  it('names a directory given as the file', () => {
    const sub = join(dir, 'adir');
    mkdirSync(sub);
    expect(refusal(sub).message).toMatch(/directory/);
  });

  it('gives line and column of a YAML syntax error', () => {
    const path = file(`${HEAD}streams:\n  revenue: { unit: day\n`);
    expect(refusal(path).message).toMatch(new RegExp(`${path.replace(/[.]/g, '\\.')}:\\d+:\\d+: YAML syntax error`));
  });

  it('refuses a duplicate key as a syntax error', () => {
    expect(refusal(file(`${HEAD}name: again\nstreams: { custom_events: {} }\n`)).message).toMatch(
      /:3:1: YAML syntax error/,
    );
  });

  it.each([
    ['an empty file', '', /is empty/],
    ['a list instead of a mapping', '- a\n- b\n', /must be a mapping.*found a list/],
  ])('refuses %s', (_label, text, pattern) => {
    expect(refusal(file(text)).message).toMatch(pattern);
  });

  it.each([
    [
      'an unknown top-level key with the nearest valid one',
      `${HEAD}lookback_day: 2\nstreams: { custom_events: {} }\n`,
      ':3:1 at lookback_day: unknown top-level key "lookback_day". Did you mean "lookback_days"?',
    ],
    [
      'an unknown stream with the nearest valid one',
      `${HEAD}streams:\n  revenu: {}\n`,
      ':4:3 at streams.revenu: unknown stream "revenu". Did you mean "revenue"?',
    ],
    [
      'an unknown key in a stream with the nearest valid one',
      `${HEAD}streams:\n  revenue: { product: [a] }\n`,
      'at streams.revenue.product: unknown key in stream revenue "product". Did you mean "products"?',
    ],
    [
      'an option on a stream that takes none',
      `${HEAD}streams:\n  custom_events: { page: 2 }\n`,
      'at streams.custom_events.page: unknown key in stream custom_events "page". This stream takes no options',
    ],
    ['a missing name', 'start_date: 2024-01-01\nstreams: { custom_events: {} }\n', 'at name: is required but missing'],
    [
      'a name that cannot name files',
      `name: "my pipe"\nstart_date: 2024-01-01\nstreams: { custom_events: {} }\n`,
      'at name: "my pipe" is not a usable pipeline name',
    ],
    [
      'a missing start_date',
      'name: t\nstreams: { custom_events: {} }\n',
      'at start_date: is required but missing; add the first UTC day',
    ],
    [
      'an invalid start_date',
      'name: t\nstart_date: 2024-02-30\nstreams: { custom_events: {} }\n',
      ':2:13 at start_date: "2024-02-30" is not a date; write YYYY-MM-DD',
    ],
    [
      'a negative lookback',
      `${HEAD}lookback_days: -1\nstreams: { custom_events: {} }\n`,
      'at lookback_days: -1 is not a whole number of days',
    ],
    [
      'a fractional lookback',
      `${HEAD}lookback_days: 1.5\nstreams: { custom_events: {} }\n`,
      'at lookback_days: 1.5 is not a whole number of days',
    ],
    [
      'a quoted lookback',
      `${HEAD}lookback_days: "3"\nstreams: { custom_events: {} }\n`,
      'at lookback_days: "3" is not a whole number of days',
    ],
    [
      'a lookback word other than auto',
      `${HEAD}lookback_days: automatic\nstreams: { custom_events: {} }\n`,
      'at lookback_days: "automatic" is not a whole number of days ≥ 0 nor auto; e.g. lookback_days: 3',
    ],
    [
      'a bad lookback in a stream',
      `${HEAD}streams:\n  kpis: { lookback_days: -2 }\n`,
      'at streams.kpis.lookback_days: -2 is not a whole number of days ≥ 0 nor auto',
    ],
    [
      'a lookback on a stream read whole',
      `${HEAD}streams:\n  data_integrations: { lookback_days: auto }\n`,
      'at streams.data_integrations.lookback_days: data_integrations re-reads nothing before a watermark',
    ],
    [
      'a lookback_max_days of 0',
      `${HEAD}lookback_days: auto\nlookback_max_days: 0\nstreams: { custom_events: {} }\n`,
      'at lookback_max_days: 0 is not a whole number of days ≥ 1',
    ],
    [
      'a lookback_max_days without auto',
      `${HEAD}lookback_days: 3\nlookback_max_days: 14\nstreams: { kpis: {} }\n`,
      'at lookback_max_days: bounds only lookback_days: auto, and no lookback_days here says auto',
    ],
    ['missing streams', HEAD, 'at streams: is required; declare at least one stream'],
    ['empty streams', `${HEAD}streams: {}\n`, 'at streams: is empty'],
    [
      'a stream that is not a mapping',
      `${HEAD}streams:\n  revenue: [a]\n`,
      'at streams.revenue: must be a mapping of options',
    ],
    [
      'an invalid unit',
      `${HEAD}streams:\n  sessions: { unit: week }\n`,
      'at streams.sessions.unit: "week" is not a unit; write unit: day or unit: hour',
    ],
    [
      'an hourly segment size',
      `${HEAD}streams:\n  segment_size: { unit: hour, segments: [s] }\n`,
      'at streams.segment_size.unit: "hour" is not available: segment_size is a daily series only',
    ],
    [
      'a selector that is not a list',
      `${HEAD}streams:\n  revenue: { apps: app_1 }\n`,
      'at streams.revenue.apps: must be a list, found a string "app_1"',
    ],
    [
      'an empty list',
      `${HEAD}streams:\n  revenue: { products: [] }\n`,
      'at streams.revenue.products: is an empty list',
    ],
    [
      'a duplicate list entry',
      `${HEAD}streams:\n  revenue: { products: ["*", gems_small, gems_small] }\n`,
      'at streams.revenue.products[2]: "gems_small" is listed twice (also at [1])',
    ],
    [
      'a workspace YAML reads as a number',
      `${HEAD}workspace: 0012\nstreams: { custom_events: {} }\n`,
      'at workspace: must be text, found a number 12; YAML read the unquoted 0012 as the number 12: quote it to keep it as text, workspace: "0012"',
    ],
    [
      'a name YAML reads as a number',
      'name: 2024\nstart_date: 2024-01-01\nstreams: { custom_events: {} }\n',
      'at name: must be a non-empty text, found a number 2024 (e.g. name: nightly); YAML read the unquoted 2024 as the number 2024: quote it to keep it as text, name: "2024"',
    ],
    [
      'an id YAML reads as a number with its zeros dropped',
      `${HEAD}streams:\n  email_templates: { ids: [0123] }\n`,
      'at streams.email_templates.ids[0]: must be a non-empty text, found a number 123; YAML read the unquoted 0123 as the number 123: quote it to keep it as text, "0123"',
    ],
    [
      'a number as an id',
      `${HEAD}streams:\n  email_templates: { ids: [tpl_1, 123] }\n`,
      'at streams.email_templates.ids[1]: must be a non-empty text, found a number 123; YAML read the unquoted 123 as the number 123: quote it to keep it as text, "123"',
    ],
    [
      '"*" where explicit ids are needed',
      `${HEAD}streams:\n  canvas_details: { canvases: ["*"] }\n`,
      'at streams.canvas_details.canvases[0]: "*" is not allowed here',
    ],
    [
      'missing segment ids',
      `${HEAD}streams:\n  segment_size: {}\n`,
      'at streams.segment_size.segments: is required but missing',
    ],
    [
      'missing canvases',
      `${HEAD}streams:\n  canvas_summary: { step_breakdown: true }\n`,
      'at streams.canvas_summary.canvases: is required but missing',
    ],
    [
      'missing ids',
      `${HEAD}streams:\n  content_blocks: { inclusion_data: true }\n`,
      'at streams.content_blocks.ids: is required but missing',
    ],
    [
      'a quoted boolean',
      `${HEAD}streams:\n  content_blocks: { ids: [cb_1], inclusion_data: "true" }\n`,
      'at streams.content_blocks.inclusion_data: must be true or false (unquoted)',
    ],
    [
      'a base URL that is not http(s)',
      `${HEAD}source: { base_url: ftp://x.example.com }\nstreams: { custom_events: {} }\n`,
      'at source.base_url: "ftp://x.example.com" uses ftp, not http or https',
    ],
    [
      'an unknown key in source',
      `${HEAD}source: { baseurl: https://x.example.com }\nstreams: { custom_events: {} }\n`,
      'at source.baseurl: unknown key in source "baseurl". Did you mean "base_url"?',
    ],
  ])('refuses %s, naming the field', (_label, text, expected) => {
    const path = file(text);
    const err = refusal(path);
    expect(err.message.startsWith(path)).toBe(true);
    expect(err.message).toContain(expected);
  });

  it.each([
    [
      'in source',
      `${HEAD}source: { base_url: https://x.example.com, api_key: sk-live-abc123 }\nstreams: { custom_events: {} }\n`,
      'source.api_key',
    ],
    ['at the top level', `${HEAD}api_key: sk-live-abc123\nstreams: { custom_events: {} }\n`, 'api_key'],
    [
      'spelt apiKey inside a stream',
      `${HEAD}streams:\n  revenue: { apiKey: sk-live-abc123 }\n`,
      'streams.revenue.apiKey',
    ],
  ])('refuses an API key %s without repeating it', (_label, text, field) => {
    const err = refusal(file(text));
    expect(err.message).toContain(`at ${field}:`);
    expect(err.message).toMatch(/--api-key.*ENGAGE_API_KEY/);
    expect(err.message).not.toContain('sk-live-abc123');
  });

  it('masks a password in a base URL', () => {
    const err = refusal(
      file(`${HEAD}source: { base_url: "https://me:hunter2@x.example.com" }\nstreams: { custom_events: {} }\n`),
    );
    expect(err.message).toContain('at source.base_url');
    expect(err.message).not.toContain('hunter2');
  });
});

describe('the report option', () => {
  it('reads report: { path } and report: {}, and leaves it out when absent; the nightly pipeline writes it beside the database', () => {
    expect(
      loadPipelineFile(file(`${HEAD}report: { path: out/r.html }\nstreams: { custom_events: {} }\n`)).report,
    ).toEqual({ path: 'out/r.html' });
    expect(loadPipelineFile(file(`${HEAD}report: {}\nstreams: { custom_events: {} }\n`)).report).toEqual({});
    expect(loadPipelineFile(file(`${HEAD}streams: { custom_events: {} }\n`)).report).toBeUndefined();
    expect(loadPipelineFile('pipelines/nightly.yaml').report).toEqual({});
  });

  it('puts a report without a path beside the database (local), in --work-dir or the working folder (s3://)', () => {
    expect(reportPathFor('/srv/a/other.duckdb')).toBe('/srv/a/report.html');
    expect(reportPathFor('/srv/a/other.duckdb', 'out/r.html')).toBe('out/r.html');
    expect(reportPathFor('s3://lake/state/engage.duckdb', undefined, '/tmp/w')).toBe('/tmp/w/report.html');
    expect(reportPathFor('s3://lake/state/engage.duckdb')).toBe('report.html');
  });

  it.each([
    [
      `report: data/report.html`,
      'at report:',
      'must be a mapping',
      'e.g. report: {} (report.html beside the database)',
    ],
    [
      `report: { path: data/report.pdf }`,
      'at report.path:',
      'not the path of an HTML file',
      'e.g. report: { path: out/report.html }',
    ],
    [`report: { file: r.html }`, 'at report.file:', 'unknown key in report', 'Valid: path'],
  ])('refuses %s, naming the field and the fix', (line, where, why, fix) => {
    const err = refusal(file(`${HEAD}${line}\nstreams: { custom_events: {} }\n`));
    expect(err.message).toContain(where);
    expect(err.message).toContain(why);
    expect(err.message).toContain(fix);
  });
});

describe('the workspace option', () => {
  it('reads workspace: NAME and leaves it out when absent', () => {
    expect(loadPipelineFile(file(`${HEAD}workspace: brand_eu-2\nstreams: { custom_events: {} }\n`)).workspace).toBe(
      'brand_eu-2',
    );
    expect(loadPipelineFile(file(`${HEAD}streams: { custom_events: {} }\n`)).workspace).toBeUndefined();
  });

  it.each([['"brand eu"'], ['"a/b"'], ['"x=y"'], ['""']])(
    'refuses workspace: %s, naming the field and the characters allowed',
    (value) => {
      const err = refusal(file(`${HEAD}workspace: ${value}\nstreams: { custom_events: {} }\n`));
      expect(err.message).toContain('at workspace:');
      expect(err.message).toContain('letters, digits, "_" and "-" only');
    },
  );
});

describe('retries', () => {
  it('defaults to 6 attempts and 120 s of waiting, and reads both limits from the file', () => {
    expect(loadPipelineFile(file(`${HEAD}streams: { custom_events: {} }\n`)).retries).toEqual({
      maxAttempts: 6,
      maxWaitSeconds: 120,
    });
    expect(
      loadPipelineFile(
        file(`${HEAD}retries: { max_attempts: 2, max_wait_seconds: 0 }\nstreams: { custom_events: {} }\n`),
      ).retries,
    ).toEqual({ maxAttempts: 2, maxWaitSeconds: 0 });
  });

  it.each([
    ['retries: 3', /at retries: must be a mapping/],
    ['retries: { max_attempts: 0 }', /at retries\.max_attempts: 0 is not a whole number from 1 to 20/],
    ['retries: { max_wait_seconds: 1.5 }', /at retries\.max_wait_seconds: 1\.5 is not a whole number/],
    [
      'retries: { attempts: 3 }',
      /p\d+\.yaml:3:\d+ at retries\.attempts: unknown key in retries "attempts"; use max_attempts or max_wait_seconds/,
    ],
  ])('refuses %s, naming the field', (line, what) => {
    expect(refusal(file(`${HEAD}${line}\nstreams: { custom_events: {} }\n`)).message).toMatch(what);
  });
});

describe('max_list_pages', () => {
  it('defaults to 500 pages and reads the cap from the file', () => {
    expect(loadPipelineFile(file(`${HEAD}streams: { custom_events: {} }\n`)).maxListPages).toBe(500);
    expect(loadPipelineFile(file(`${HEAD}max_list_pages: 2000\nstreams: { custom_events: {} }\n`)).maxListPages).toBe(
      2000,
    );
  });

  it.each([
    ['max_list_pages: 0', /at max_list_pages: 0 is not a whole number of pages ≥ 1; e\.g\. max_list_pages: 500/],
    ['max_list_pages: 2.5', /at max_list_pages: 2\.5 is not a whole number of pages ≥ 1/],
  ])('refuses %s, naming the field', (line, what) => {
    expect(refusal(file(`${HEAD}${line}\nstreams: { custom_events: {} }\n`)).message).toMatch(what);
  });
});

describe('backfill_order', () => {
  it('defaults to newest_first and reads oldest_first from the file', () => {
    expect(loadPipelineFile(file(`${HEAD}streams: { custom_events: {} }\n`)).backfillOrder).toBe('newest_first');
    expect(
      loadPipelineFile(file(`${HEAD}backfill_order: oldest_first\nstreams: { custom_events: {} }\n`)).backfillOrder,
    ).toBe('oldest_first');
  });

  it('refuses another word, naming the field and both values', () => {
    expect(refusal(file(`${HEAD}backfill_order: newest\nstreams: { custom_events: {} }\n`)).message).toMatch(
      /at backfill_order: "newest" is not newest_first nor oldest_first; e\.g\. backfill_order: newest_first/,
    );
  });
});

describe('a file with several mistakes', () => {
  it('names every one in one error, in file order, each with its line, field and fix', () => {
    const path = file(
      [
        'name: t',
        'lookback_days: -2',
        'streams:',
        '  revenu: {}',
        '  sessions: { unit: week }',
        '  email_templates: { ids: [tpl_1, 123] }',
        '',
      ].join('\n'),
    );
    const err = refusal(path);
    expect(err.where).toBe(path);
    const expected = [
      `${path} at start_date: is required but missing; add the first UTC day`,
      `${path}:2:16 at lookback_days: -2 is not a whole number of days`,
      `${path}:4:3 at streams.revenu: unknown stream "revenu". Did you mean "revenue"?`,
      `${path}:5:21 at streams.sessions.unit: "week" is not a unit; write unit: day or unit: hour`,
      `${path}:6:35 at streams.email_templates.ids[1]: must be a non-empty text, found a number 123; YAML read the unquoted 123 as the number 123: quote it to keep it as text, "123"`,
    ];
    expect(err.message).toContain(`${expected.length} problems in the pipeline file`);
    const at = expected.map((line, i) => err.message.indexOf(`(${i + 1}) ${line}`));
    expect(
      at.every((i) => i >= 0),
      err.message,
    ).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });

  it('names each bad option of each stream, not only the first of the block', () => {
    const err = refusal(
      file(
        `${HEAD}streams:\n  canvas_summary: { canvases: [cv_1], source: cube, reconcile: "yes" }\n  kpis: { metrics: [dau, wau], apps: app_1 }\n`,
      ),
    );
    for (const field of [
      'streams.canvas_summary.source',
      'streams.canvas_summary.reconcile',
      'streams.kpis.metrics[1]',
      'streams.kpis.apps',
    ]) {
      expect(err.message).toContain(`at ${field}:`);
    }
    expect(err.message).toContain('4 problems');
  });

  it('names every bad field of the retries block, and an API key in it once', () => {
    const err = refusal(
      file(
        `${HEAD}retries: { api_key: abc123, max_attempts: 99, bogus: 1, max_wait_seconds: -1 }\nstreams: { custom_events: {} }\n`,
      ),
    );
    for (const field of ['retries.max_attempts', 'retries.bogus', 'retries.max_wait_seconds'])
      expect(err.message).toContain(`at ${field}:`);
    expect(err.message.match(/at retries\.api_key:/g)).toHaveLength(1);
    expect(err.message).toContain('4 problems');
  });

  it('refuses an API key once, with the advice about flags, not also as an unknown key', () => {
    const err = refusal(file(`${HEAD}source: { api_key: sk-live-abc123 }\nstreams: { custom_events: {} }\n`));
    expect(err.message).not.toContain('problems');
    expect(err.message).not.toContain('unknown key');
    expect(err.message).toMatch(/at source\.api_key: .*--api-key/);
  });
});
