// The pipeline follows the spec, not our emulator: the same run against the emulator directly and against variant servers
// that answer differently wherever the spec leaves room must load the same data, at a bounded extra cost.
import { get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { createEmulator } from '../../src/emulator/server.js';
import { parsePipelineText } from '../../src/config/load-pipeline-file.js';
import { tablesOf } from '../../src/pipeline/run-pipeline.js';
import type { RunSummary } from '../../src/pipeline/run-pipeline.js';
import { differences, PipelineRuns } from './alt-server/pipeline-runs.js';
import type { RunRequest } from './alt-server/pipeline-runs.js';
import type { VariantOptions } from './alt-server/variant-server.js';
import { VariantServer } from './alt-server/variant-server.js';
import { parseUtcInstant } from '../../src/extract/windows.js';
import {
  listedCampaigns,
  listedCanvases,
  listedContentBlocks,
  listedSegments,
  listedTemplates,
} from '../../src/emulator/analytics/workspace-listing.js';

// --until on a day boundary: every planned unit is complete, so even a server that only returns whole units can return
// all of them, and the two runs must agree row for row.
const NOW = '2025-03-10T00:00:00Z';
const FROM = '2024-11-01';
const PIPELINE = `
name: independent
start_date: 2024-01-01
lookback_days: 3
streams:
  purchase_quantity: { unit: day, apps: ["*", app_1], products: ["*", gems_small] }
  revenue:           { unit: day, apps: ["*"], products: ["*", gems_small] }
  sessions:          { unit: hour, apps: ["*", app_2], segments: ["*", seg_1] }
  segment_size:      { segments: [seg_1, seg_2] }
  custom_events:     {}
  canvas_summary:    { canvases: [cv_1], source: data_summary, variant_breakdown: true, step_breakdown: true }
  canvas_details:    { canvases: all }
  email_templates:   { ids: all }
  content_blocks:    { ids: all, inclusion_data: true }
  campaigns:         { include_archived: true }
  segments:          {}
  products:          {}
  data_integrations: {}
`;
// The event, KPI, campaign and Canvas data series are read through variant servers in new-series-variants.test.ts.
const IN_PIPELINE = new Set<string>(tablesOf(parsePipelineText(PIPELINE, 'independent.yaml').streamNames));

let emulator: Emulator;
let runs: PipelineRuns;
let direct: RunSummary;
let windows: number;

function runThrough(
  name: string,
  options: VariantOptions,
  client: RunRequest['client'] = {},
): Promise<{ summary: RunSummary; variant: VariantServer }> {
  return runs.runThrough(emulator, { name, from: FROM, until: NOW, client }, options);
}

beforeAll(async () => {
  emulator = await createEmulator({ seed: 1, now: NOW, rateLimits: false });
  // Exactly two full pages of event names: the last full page must be followed by an empty one, not end the list.
  const names = Array.from({ length: 500 }, (_, i) => `event_${String(i).padStart(3, '0')}`);
  (emulator.state.analytics as { eventNames: readonly string[] }).eventNames = names;
  runs = await PipelineRuns.create(PIPELINE);
  direct = await runs.run({
    name: 'direct',
    baseUrl: emulator.url,
    apiKey: emulator.demoApiKey,
    from: FROM,
    until: NOW,
  });
  windows = runs.seriesWindows(FROM, NOW);
}, 120_000);

afterAll(async () => {
  await emulator?.close();
  await runs?.close();
});

/** One GET through node:http, to see header names exactly as they were written on the wire. */
function rawGet(url: string, apiKey: string): Promise<{ status: number; rawHeaders: string[]; text: string }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { Authorization: `Bearer ${apiKey}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, rawHeaders: res.rawHeaders, text }));
    }).on('error', reject);
  });
}

describe('the variant server itself', () => {
  it('reads a window as the whole units before ending_at, and never returns the unit in progress', async () => {
    const variant = await VariantServer.create(emulator, { prefix: '/rest/v1', windows: 'whole' });
    try {
      const q = 'purchases/quantity_series?unit=day&length=3&ending_at=2025-03-05T23:59:59Z';
      const s2 = JSON.parse((await rawGet(`${variant.url}/${q}`, emulator.demoApiKey)).text);
      const s1 = JSON.parse((await rawGet(`${emulator.url}/${q}`, emulator.demoApiKey)).text);
      expect(s2.data.map((p: { time: string }) => p.time)).toEqual(['2025-03-02', '2025-03-03', '2025-03-04']);
      expect(s1.data.map((p: { time: string }) => p.time)).toEqual(['2025-03-03', '2025-03-04', '2025-03-05']);
      // At NOW (2025-03-10T00:00Z) the day 2025-03-10 has just begun: asked for explicitly, it is still left out.
      const late = JSON.parse(
        (
          await rawGet(
            `${variant.url}/purchases/quantity_series?length=2&ending_at=2025-03-11T00:00:00Z`,
            emulator.demoApiKey,
          )
        ).text,
      );
      expect(late.data.map((p: { time: string }) => p.time)).toEqual(['2025-03-09']);
      expect((await rawGet(`${variant.url.replace('/rest/v1', '')}/${q}`, emulator.demoApiKey)).status).toBe(404);
    } finally {
      await variant.close();
    }
  });

  it('writes times, numbers, links and header names in the forms it was asked for, each the same value', async () => {
    const variant = await VariantServer.create(emulator, {
      prefix: '/api',
      timeForm: ['millis-z', 'plus-zero', 'space', 'offset-east', 'offset-west'],
      numberForm: ['float', 'string'],
      extraFields: true,
      link: { target: 'absolute', headerName: 'link', quoteRel: false },
      rateLimitHeaderCase: 'upper',
    });
    try {
      const q = 'sessions/data_series?unit=hour&length=5&ending_at=2025-03-05T04:59:59Z';
      const res = await rawGet(`${variant.url}/${q}`, emulator.demoApiKey);
      const plain = JSON.parse((await rawGet(`${emulator.url}/${q}`, emulator.demoApiKey)).text);
      expect(res.text).toMatch(/"sessions":\d+\.0[,}]/);
      const body = JSON.parse(res.text);
      expect(body.data.map((p: { time: string }) => p.time)).toEqual([
        '2025-03-05T00:00:00.000Z',
        '2025-03-05T01:00:00+00:00',
        '2025-03-05 02:00:00',
        '2025-03-05T05:00:00+02:00',
        '2025-03-04T23:00:00-05:00',
      ]);
      expect(body.data.map((p: { time: string }) => parseUtcInstant(p.time)?.toMillis())).toEqual(
        plain.data.map((p: { time: string }) => Date.parse(p.time)),
      );
      expect(body.data.map((p: { sessions: unknown }) => Number(p.sessions))).toEqual(
        plain.data.map((p: { sessions: number }) => p.sessions),
      );
      expect(typeof body.data[1].sessions).toBe('string');
      expect(body.generated_by).toBe('variant');
      expect(res.rawHeaders).toContain('X-RATELIMIT-REMAINING');

      const page = await rawGet(`${variant.url}/cdi/integrations`, emulator.demoApiKey);
      const at = page.rawHeaders.indexOf('link');
      expect(at).toBeGreaterThanOrEqual(0);
      expect(page.rawHeaders[at + 1]).toMatch(
        new RegExp(`^<${variant.url}/cdi/integrations\\?cursor=[A-Za-z0-9_-]+>; rel=next$`),
      );
    } finally {
      await variant.close();
    }
  });

  it('answers 429 with nothing but an HTTP-date Retry-After, and 502 with an HTML page', async () => {
    const variant = await VariantServer.create(emulator, {
      faults: { every: 1, kinds: ['429-http-date', '502-html'], max: 2 },
    });
    try {
      const limited = await fetch(`${variant.url}/events/list`, {
        headers: { Authorization: `Bearer ${emulator.demoApiKey}` },
      });
      await limited.text();
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toMatch(
        /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
      );
      expect([...limited.headers.keys()].filter((k) => k.startsWith('x-ratelimit'))).toEqual([]);
      const bad = await fetch(`${variant.url}/events/list`, {
        headers: { Authorization: `Bearer ${emulator.demoApiKey}` },
      });
      expect(bad.status).toBe(502);
      expect(bad.headers.get('content-type')).toBe('text/html');
      expect(await bad.text()).toContain('<h1>502 Bad Gateway</h1>');
      const ok = await fetch(`${variant.url}/events/list`, {
        headers: { Authorization: `Bearer ${emulator.demoApiKey}` },
      });
      expect(ok.status).toBe(200);
      expect(variant.stats.faults).toMatchObject({ '429-http-date': 1, '502-html': 1 });
    } finally {
      await variant.close();
    }
  });
});

describe('the reference run straight against the emulator', () => {
  it('loads every table and needs no follow-up request', async () => {
    const counts = await runs.counts('direct');
    for (const [table, n] of Object.entries(counts)) if (IN_PIPELINE.has(table)) expect(n, table).toBeGreaterThan(0);
    expect(counts['custom_events']).toBe(500);
    expect(direct.requests.followUps).toBe(0);
    expect(direct.warnings).toEqual([]);
  });
});

describe('a server that returns only whole units before ending_at, under a path prefix, with absolute links', () => {
  it('loads the same rows, with exactly one follow-up per window (the last unit, which an S2 server leaves out)', async () => {
    const { summary, variant } = await runThrough('whole-units', {
      prefix: '/rest/v1',
      windows: 'whole',
      link: { target: 'absolute', headerName: 'LINK', quoteRel: true },
    });
    expect(differences(await runs.diff('direct', 'whole-units'))).toEqual([]);
    expect(summary.requests.followUps).toBe(windows);
    expect(summary.warnings).toEqual([]);
    // Every integration page was reached through the absolute next links, each one once.
    expect(variant.stats.byPath['/cdi/integrations']).toBe(
      Math.ceil(emulator.state.analytics.integrations.length / 10),
    );
  }, 120_000);
});

describe('a server that returns one unit fewer than length, dropping the oldest', () => {
  it('under the containing-unit reading: same rows, one follow-up per window for its first unit', async () => {
    const { summary } = await runThrough('fewer-s1', { windows: 'contains', fewerAtOldEnd: true });
    expect(differences(await runs.diff('direct', 'fewer-s1'))).toEqual([]);
    expect(summary.requests.followUps).toBe(windows);
    expect(summary.warnings).toEqual([]);
  }, 120_000);

  it('under the whole-units reading: same rows, one follow-up per window for its last unit', async () => {
    const { summary } = await runThrough('fewer-s2', { windows: 'whole', fewerAtOldEnd: true });
    expect(differences(await runs.diff('direct', 'fewer-s2'))).toEqual([]);
    expect(summary.requests.followUps).toBe(windows);
    expect(summary.warnings).toEqual([]);
  }, 120_000);
});

describe('a server that spells everything the spec leaves open its own way', () => {
  it('loads the same rows: every time form, floats and numeric strings, extra and missing fields, other header cases', async () => {
    const { summary, variant } = await runThrough('spellings', {
      prefix: '/api',
      timeForm: ['millis-z', 'plus-zero', 'space', 'offset-east', 'offset-west', 'emulator'],
      metadataTimeForm: ['offset-east', 'space', 'millis-z', 'offset-west', 'plus-zero'],
      numberForm: ['string', 'float', 'json'],
      extraFields: true,
      dropOptional: true,
      link: { target: 'prefixed', headerName: 'link', quoteRel: false },
      rateLimitHeaderCase: 'upper',
    });
    expect(differences(await runs.diff('direct', 'spellings'))).toEqual([]);
    expect(summary.requests.followUps).toBe(0);
    // Offsets rotating point by point are offset changes: one warning per daily stream, and the days keep their dates.
    expect(summary.warnings.map((w) => [w.code, w.stream]).sort()).toEqual(
      ['purchase_quantity', 'revenue', 'segment_size'].map((s) => ['series_offset_changed', s]),
    );
    expect(variant.stats.byPath['/events/list']).toBe(3);
  }, 120_000);
});

describe('a server that reads the list endpoints its own way', () => {
  it('loads every listed object exactly: pages of 40, no `count`, limits capped, edit times with offsets', async () => {
    const { summary, variant } = await runThrough('lists', {
      lists: { pageSize: 40 },
      metadataTimeForm: ['offset-east', 'offset-west', 'plus-zero'],
    });
    expect(differences(await runs.diff('direct', 'lists'))).toEqual([]);
    expect(summary.warnings).toEqual([]);
    const ws = emulator.state.analytics;
    const now = Date.parse(NOW);
    // Read until a page is shorter than the first: ⌊n / 40⌋ + 1 pages; `count` absent, so the last template and block
    // pages are confirmed by an empty or short one.
    const pages = (n: number) => Math.floor(n / 40) + 1;
    expect(variant.stats.byPath['/canvas/list']).toBe(pages(listedCanvases(ws, now).length));
    expect(variant.stats.byPath['/campaigns/list']).toBe(
      pages(listedCampaigns(ws, now, { includeArchived: true }).length),
    );
    expect(variant.stats.byPath['/segments/list']).toBe(pages(listedSegments(ws, now).length));
    expect(variant.stats.byPath['/templates/email/list']).toBe(pages(listedTemplates(ws, now).length));
    expect(variant.stats.byPath['/content_blocks/list']).toBe(pages(listedContentBlocks(ws, now).length));
  }, 120_000);
});

describe('a server with faults the emulator never makes', () => {
  it('loads the same rows after retrying 429 with an HTTP-date Retry-After, HTML 502 pages and an answer that outlives the timeout', async () => {
    const reasons: string[] = [];
    const { summary, variant } = await runThrough(
      'faults',
      {
        prefix: '/v1',
        faults: {
          every: 7,
          kinds: ['429-http-date', '502-html', 'slow-first-byte', 'stall'],
          max: 8,
          slowMs: 200,
          stallMs: 4000,
        },
      },
      { timeoutMs: 2000, onEvent: (e) => (e.type === 'retry-scheduled' ? reasons.push(e.reason) : undefined) },
    );
    expect(differences(await runs.diff('direct', 'faults'))).toEqual([]);
    expect(variant.stats.faults).toEqual({ '429-http-date': 2, '502-html': 2, 'slow-first-byte': 2, stall: 2 });
    // A slow first byte within the timeout is an answer; the other six faults each cost exactly one retry.
    expect(summary.requests.retries).toBe(6);
    expect(reasons.filter((r) => /rate limited/.test(r))).toHaveLength(2);
    expect(reasons.filter((r) => /server error.*502 Bad Gateway/.test(r))).toHaveLength(2);
    expect(reasons.filter((r) => /timeoutMs=2000/.test(r))).toHaveLength(2);
    expect(summary.requests.followUps).toBe(0);
  }, 120_000);
});

describe('a server that leaves zero-valued points out', () => {
  // Its own emulator: days restated to zero change the data, so it needs its own reference run.
  let zeroEmulator: Emulator;
  // 2025-01-15 lies inside a window (days and hours); 2024-11-30 starts the newer day window and an hour window.
  const ZERO_DAYS = ['2024-11-30', '2025-01-15'];

  beforeAll(async () => {
    zeroEmulator = await createEmulator({ seed: 1, now: NOW, rateLimits: false });
    for (const day of ZERO_DAYS) {
      zeroEmulator.state.analytics.restate({ series: 'purchases', day, factor: 0 });
      zeroEmulator.state.analytics.restate({ series: 'sessions', day, factor: 0 });
    }
    await runs.run({
      name: 'zeros-direct',
      baseUrl: zeroEmulator.url,
      apiKey: zeroEmulator.demoApiKey,
      from: FROM,
      until: NOW,
    });
  }, 120_000);
  afterAll(async () => zeroEmulator?.close());

  it('loads every non-zero row, spends no request on the points left out inside a window, and records each as a hole (exit 3)', async () => {
    const variant = await VariantServer.create(zeroEmulator, { omitZeros: true, windows: 'whole' });
    let summary: RunSummary;
    try {
      summary = await runs.run({
        name: 'zeros-variant',
        baseUrl: variant.url,
        apiKey: zeroEmulator.demoApiKey,
        from: FROM,
        until: NOW,
      });
    } finally {
      await variant.close();
    }
    const [zeros] = await runs.query(
      'zeros-direct',
      `
      SELECT (SELECT count(*) FROM purchase_quantity WHERE purchase_quantity = 0) + (SELECT count(*) FROM revenue WHERE revenue = 0)
           + (SELECT count(*) FROM sessions WHERE sessions = 0) + (SELECT count(*) FROM segment_size WHERE size = 0) AS n`,
    );
    // 4 purchase series + 2 revenue series, one row per zero day; 4 session series, 24 rows per zero day.
    expect(Number(zeros!['n'])).toBe(ZERO_DAYS.length * (4 + 2 + 4 * 24));
    // The comparison sees the left-out points (so it can fail)…
    const strict = await runs.diff('zeros-direct', 'zeros-variant');
    expect(strict.reduce((n, d) => n + d.onlyLeft, 0)).toBe(Number(zeros!['n']));
    expect(strict.reduce((n, d) => n + d.onlyRight, 0)).toBe(0);
    // …and they are the only difference.
    expect(
      differences(
        await runs.diff('zeros-direct', 'zeros-variant', {
          purchase_quantity: 'purchase_quantity <> 0',
          revenue: 'revenue <> 0',
          sessions: 'sessions <> 0',
          segment_size: 'size <> 0',
        }),
      ),
    ).toEqual([]);
    // Only the S2 follow-up of each window's last unit: the zero runs, bracketed by returned points, cost nothing now…
    expect(summary.requests.followUps).toBe(windows);
    // …but a unit left out cannot be told from an outage: each is a hole, the run completes with exit 3.
    expect(summary.status).toBe('completed_with_holes');
    expect(summary.holes.open).toBe(Number(zeros!['n']));
    expect(summary.warnings.map((w) => w.code)).toEqual(['units_missing']);
    const [stored] = await runs.query(
      'zeros-variant',
      `SELECT count(*) AS n, count(DISTINCT CAST(unit_start AS DATE)) AS days FROM _etl_holes WHERE status = 'open'`,
    );
    expect([Number(stored!['n']), Number(stored!['days'])]).toEqual([Number(zeros!['n']), ZERO_DAYS.length]);
  }, 120_000);

  it('asks for those holes again on the next runs, and after hole_retries runs without them confirms them absent (exit 0)', async () => {
    const variant = await VariantServer.create(zeroEmulator, { omitZeros: true, windows: 'whole' });
    const statuses: string[] = [];
    let last: RunSummary | undefined;
    try {
      for (let run = 0; run < 3; run++) {
        last = await runs.run({
          name: 'zeros-variant',
          baseUrl: variant.url,
          apiKey: zeroEmulator.demoApiKey,
          from: FROM,
          until: NOW,
        });
        statuses.push(last.status);
      }
    } finally {
      await variant.close();
    }
    // hole_retries is 3: the first run and two more leave them open, the third retry (fourth miss) confirms them.
    expect(statuses).toEqual(['completed_with_holes', 'completed_with_holes', 'succeeded']);
    expect(last!.holes).toMatchObject({ open: 0, confirmedAbsent: ZERO_DAYS.length * (4 + 2 + 4 * 24) });
    const [stored] = await runs.query(
      'zeros-variant',
      `SELECT count(*) FILTER (WHERE status = 'confirmed_absent') AS absent, count(*) FILTER (WHERE status = 'open') AS open, min(attempts) AS attempts FROM _etl_holes`,
    );
    expect([Number(stored!['absent']), Number(stored!['open']), Number(stored!['attempts'])]).toEqual([
      ZERO_DAYS.length * (4 + 2 + 4 * 24),
      0,
      4,
    ]);
  }, 120_000);
});

describe('a run whose --until falls inside a unit, against a server that only knows whole units', () => {
  // The day 2025-03-10 and the hour 15:00 are in progress at MID. The emulator returns them (partial); a server that
  // returns only whole units cannot, under any window. The pipeline follows them up once, finds them absent, says so
  // in a warning, stores nothing for them, and — as for any in-progress unit — keeps the watermark before them, so
  // the next run asks again and loads them once they are complete.
  const MID = '2025-03-10T15:30:00Z';
  const NEXT = '2025-03-11T00:00:00Z';
  const SERIES = 4 + 2 + 4 + 2;
  let midEmulator: Emulator;
  let open: RunSummary;
  let whole: RunSummary;

  beforeAll(async () => {
    midEmulator = await createEmulator({ seed: 1, now: MID, rateLimits: false });
    await runs.run({
      name: 'mid-direct',
      baseUrl: midEmulator.url,
      apiKey: midEmulator.demoApiKey,
      from: FROM,
      until: MID,
    });
    for (const [name, reading] of [
      ['mid-open', 'whole-open'],
      ['mid-whole', 'whole'],
    ] as const) {
      const variant = await VariantServer.create(midEmulator, { windows: reading, prefix: '/rest' });
      try {
        const summary = await runs.run({
          name,
          baseUrl: variant.url,
          apiKey: midEmulator.demoApiKey,
          from: FROM,
          until: MID,
        });
        if (reading === 'whole') whole = summary;
        else open = summary;
      } finally {
        await variant.close();
      }
    }
  }, 180_000);
  afterAll(async () => midEmulator?.close());

  it('loads the in-progress units from a whole-units server that answers for a window ending after them', async () => {
    expect(differences(await runs.diff('mid-direct', 'mid-open'))).toEqual([]);
    expect(open.requests.followUps).toBe(runs.seriesWindows(FROM, MID));
    expect(open.warnings).toEqual([]);
  });

  it('lacks exactly the in-progress unit of each series when the server never returns one, and warns about each', async () => {
    const strict = await runs.diff('mid-direct', 'mid-whole');
    expect(strict.reduce((n, d) => n + d.onlyLeft, 0)).toBe(SERIES);
    expect(strict.reduce((n, d) => n + d.onlyRight, 0)).toBe(0);
    const complete = "time < TIMESTAMP '2025-03-10 00:00:00'";
    expect(
      differences(
        await runs.diff('mid-direct', 'mid-whole', {
          purchase_quantity: complete,
          revenue: complete,
          segment_size: complete,
          sessions: "time < TIMESTAMP '2025-03-10 15:00:00'",
        }),
      ),
    ).toEqual([]);
    expect(whole.warnings).toHaveLength(SERIES);
    for (const w of whole.warnings) expect(w.message).toMatch(/1 unit\(s\) between .* were not returned/);
    expect(whole.requests.followUps).toBe(runs.seriesWindows(FROM, MID));
  });

  it('keeps the same watermarks as the direct run: before the unit in progress, never past it', async () => {
    const sql =
      "SELECT stream, series_key, watermark FROM _etl_series_state WHERE unit IN ('day', 'hour') ORDER BY stream, series_key";
    const direct = await runs.query('mid-direct', sql);
    expect(await runs.query('mid-whole', sql)).toEqual(direct);
    for (const row of direct.filter((r) => r['stream'] !== 'canvas_summary')) {
      const expected = String(row['series_key']).startsWith('unit=hour')
        ? '2025-03-10T15:00:00.000Z'
        : '2025-03-10T00:00:00.000Z';
      expect((row['watermark'] as Date).toISOString(), String(row['series_key'])).toBe(expected);
    }
  });

  it('loads those units on the next run, once they are complete, and then agrees with the direct run row for row', async () => {
    midEmulator.clock.set(NEXT);
    await runs.run({
      name: 'mid-direct',
      baseUrl: midEmulator.url,
      apiKey: midEmulator.demoApiKey,
      from: FROM,
      until: NEXT,
    });
    const variant = await VariantServer.create(midEmulator, { windows: 'whole', prefix: '/rest' });
    let next: RunSummary;
    try {
      next = await runs.run({
        name: 'mid-whole',
        baseUrl: variant.url,
        apiKey: midEmulator.demoApiKey,
        from: FROM,
        until: NEXT,
      });
    } finally {
      await variant.close();
    }
    expect(differences(await runs.diff('mid-direct', 'mid-whole'))).toEqual([]);
    expect(next.warnings).toEqual([]);
    expect(next.requests.followUps).toBeLessThanOrEqual(next.requests.planned);
  }, 120_000);
});
