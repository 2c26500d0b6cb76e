// `all` in the pipeline file, over HTTP against the emulator: discovery lists the workspace at the start of each run,
// loads exactly what the lists show, re-reads only what changed, and finds objects created between two runs.
import { writeFile } from 'node:fs/promises';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalyticsWorkspace } from '../../src/emulator/analytics/analytics-workspace.js';
import {
  listedCampaigns,
  listedCanvases,
  listedContentBlocks,
  listedProducts,
  listedSegments,
  listedTemplates,
} from '../../src/emulator/analytics/workspace-listing.js';
import type { StreamProgress } from '../../src/pipeline/run-events.js';
import type { RunSummary } from '../../src/pipeline/run-pipeline.js';
import { buildPlanReport, formatPlan } from '../../src/cli/plan-command.js';
import { resolveRunOptions } from '../../src/config/run-options.js';
import { PipelineFixture } from './helpers/pipeline-fixture.js';

const NOW = '2024-06-15T12:00:00Z';
const LATER = '2024-07-15T12:00:00Z';

const PIPELINE = `
name: discovery
start_date: 2024-06-12
lookback_days: 1
streams:
  canvas_summary:  { canvases: all }
  canvas_details:  { canvases: all }
  campaigns:       { include_archived: true }
  segments:        {}
  products:        {}
  campaign_series: { campaigns: all }
  segment_size:    { segments: all }
  email_templates: { ids: all }
  content_blocks:  { ids: all }
`;

const ms = (iso: string) => Date.parse(iso);

async function ids(f: PipelineFixture, sql: string): Promise<string[]> {
  return (await f.query(sql)).map((r) => String(Object.values(r)[0])).sort();
}

const sorted = (xs: readonly string[]) => [...xs].sort();

/**
 * Runs the pipeline and keeps the plan's requests per stream (and per discovery list) as the run announced them, and
 * the progress it showed before announcing them (the lists' pages as they were read).
 */
async function runPlanned(
  f: PipelineFixture,
): Promise<{ summary: RunSummary; planned: Record<string, number>; sent: number; listing: StreamProgress[] }> {
  const planned: Record<string, number> = {};
  const listing: StreamProgress[] = [];
  const before = f.emulator.stats.requests;
  const summary = await f.run(
    {},
    {
      reporter: {
        emit: (e) => {
          if (e.type === 'planned') for (const s of e.streams) planned[s.stream] = s.requests;
          if (e.type === 'progress' && Object.keys(planned).length === 0) listing.push(e.progress);
        },
        close: () => undefined,
      },
    },
  );
  return { summary, planned, sent: f.emulator.stats.requests - before, listing };
}

/** Requests of the per-id streams (details and info): what the lists' pages spare. */
const PER_ID = ['canvas_details', 'campaigns', 'segments', 'email_templates', 'content_blocks'];

describe('a run whose pipeline says `all`', () => {
  let f: PipelineFixture;
  let ws: AnalyticsWorkspace;
  let first: Awaited<ReturnType<typeof runPlanned>>;
  let second: Awaited<ReturnType<typeof runPlanned>>;
  let third: Awaited<ReturnType<typeof runPlanned>>;

  beforeAll(async () => {
    f = await PipelineFixture.create({ now: NOW, pipeline: PIPELINE });
    ws = f.emulator.state.analytics;
    first = await runPlanned(f);
  }, 120_000);
  afterAll(async () => f.close());

  it('loads every object the lists show, archived ones only where include_archived says so, and nothing else', async () => {
    const now = ms(NOW);
    expect(await ids(f, 'SELECT canvas_id FROM canvases')).toEqual(sorted(listedCanvases(ws, now).map((c) => c.id)));
    expect(listedCanvases(ws, now, { includeArchived: true }).length).toBeGreaterThan(listedCanvases(ws, now).length);
    const campaigns = listedCampaigns(ws, now, { includeArchived: true });
    expect(campaigns.length).toBeGreaterThan(listedCampaigns(ws, now).length);
    expect(await ids(f, 'SELECT campaign_id FROM campaigns')).toEqual(sorted(campaigns.map((c) => c.id)));
    const [archived] = await f.query('SELECT count(*) AS n FROM campaigns WHERE archived');
    expect(Number(archived!['n'])).toBe(campaigns.length - listedCampaigns(ws, now).length);
    expect(await ids(f, 'SELECT segment_id FROM segments')).toEqual(sorted(listedSegments(ws, now).map((s) => s.id)));
    expect(await ids(f, 'SELECT product_id FROM products')).toEqual(sorted(listedProducts(ws, now)));
    expect(await ids(f, 'SELECT email_template_id FROM email_templates')).toEqual(
      sorted(listedTemplates(ws, now).map((t) => t.email_template_id)),
    );
    expect(await ids(f, 'SELECT content_block_id FROM content_blocks')).toEqual(
      sorted(listedContentBlocks(ws, now).map((b) => b.content_block_id)),
    );
    expect(await ids(f, 'SELECT DISTINCT canvas_id FROM canvas_summary')).toEqual(
      sorted(listedCanvases(ws, now).map((c) => c.id)),
    );
    const [messages] = await f.query('SELECT count(DISTINCT campaign_id) AS n FROM campaign_messages');
    expect(Number(messages!['n'])).toBe(campaigns.length);
    // campaign_series says `all` without include_archived: one series per listed campaign, archived ones left out,
    // though the campaigns stream of the same run asked for them (listings with and without archived are apart).
    const series = await ids(f, "SELECT series_key FROM _etl_series_state WHERE stream = 'campaign_series'");
    expect(series).toHaveLength(listedCampaigns(ws, now).length);
    expect(series).toEqual(sorted(listedCampaigns(ws, now).map((c) => `unit=day|campaign_id=${c.id}`)));
  });

  it('skips segments whose analytics tracking is off, saying so once, without failing the run', async () => {
    const tracked = listedSegments(ws, ms(NOW))
      .filter((s) => s.analytics_tracking_enabled)
      .map((s) => s.id);
    expect(tracked).not.toContain('seg_101');
    expect(await ids(f, 'SELECT DISTINCT segment_id FROM segment_size')).toEqual(sorted(tracked));
    const skipped = first.summary.warnings.filter((w) => w.code === 'objects_skipped');
    expect(skipped).toHaveLength(1);
    expect(skipped[0]!.message).toContain('seg_101');
    expect(first.summary.status).toBe('succeeded');
  });

  it('sends exactly the minimum: the list pages, one request per object, the series windows', () => {
    const now = ms(NOW);
    expect(first.summary.requests.sent).toBe(first.summary.requests.minimum);
    expect(first.sent).toBe(first.summary.requests.minimum);
    // Page-index lists of 100 and product pages of 10, read until a page is shorter than the first; templates and blocks
    // in one request of up to 1,000 (`count` says it is the last).
    const pages = (n: number, size: number) => (n > 0 && n < size ? 2 : Math.floor(n / size) + 1);
    expect(first.planned['discovery: canvases']).toBe(pages(listedCanvases(ws, now).length, 100));
    expect(first.planned['discovery: campaigns+archived']).toBe(
      pages(listedCampaigns(ws, now, { includeArchived: true }).length, 100),
    );
    expect(first.planned['discovery: segments']).toBe(pages(listedSegments(ws, now).length, 100));
    expect(first.planned['discovery: products']).toBe(pages(listedProducts(ws, now).length, 10));
    expect(first.planned['discovery: email_templates']).toBe(1);
    expect(first.planned['discovery: content_blocks']).toBe(1);
    expect(first.planned['canvas_details']).toBe(listedCanvases(ws, now).length);
    expect(first.planned['campaigns']).toBe(listedCampaigns(ws, now, { includeArchived: true }).length);
    // start_date to --until is 4 days: one window per series, whatever the planner computes as its minimum.
    const tracked = listedSegments(ws, now).filter((s) => s.analytics_tracking_enabled).length;
    expect(first.planned['canvas_summary']).toBe(listedCanvases(ws, now).length);
    expect(first.planned['segment_size']).toBe(tracked);
    expect(first.planned['campaign_series']).toBe(listedCampaigns(ws, now).length);
    const perId =
      listedCanvases(ws, now).length +
      listedCampaigns(ws, now, { includeArchived: true }).length +
      listedSegments(ws, now).length +
      listedTemplates(ws, now).length +
      listedContentBlocks(ws, now).length;
    const lists = Object.entries(first.planned)
      .filter(([k]) => k.startsWith('discovery: '))
      .reduce((n, [, v]) => n + v, 0);
    expect(first.sent).toBe(lists + perId + listedCanvases(ws, now).length + tracked + listedCampaigns(ws, now).length);
  });

  it("shows each list's pages as they are read, before the plan: pages and objects so far, up to what the plan counts", () => {
    const canvases = first.listing.filter((p) => p.stream === 'discovery: canvases');
    expect(canvases.map((p) => p.requestsDone)).toEqual(
      Array.from({ length: first.planned['discovery: canvases']! }, (_, i) => i + 1),
    );
    expect(canvases.at(-1)!.rows).toBe(listedCanvases(ws, ms(NOW)).length);
    for (const p of first.listing) expect(p.requestsPlanned).toBeGreaterThanOrEqual(p.requestsDone);
    expect(new Set(first.listing.map((p) => p.stream))).toEqual(
      new Set(Object.keys(first.planned).filter((k) => k.startsWith('discovery: '))),
    );
  });

  it('lets `plan` count the next run from the stored lists, without a request: list pages, and no details re-read', async () => {
    const before = f.emulator.stats.requests;
    const opts = resolveRunOptions(
      {
        pipeline: f.pipelinePath,
        baseUrl: f.emulator.url,
        apiKey: f.emulator.demoApiKey,
        db: f.db,
        out: f.out,
        until: NOW,
      },
      {},
      DateTime.fromISO(LATER),
    );
    const report = await buildPlanReport(opts);
    expect(f.emulator.stats.requests).toBe(before);
    const row = (name: string) => report.streams.find((s) => s.stream === name)!;
    expect(row('discovery: canvases')).toMatchObject({
      requests: first.planned['discovery: canvases'],
      series: listedCanvases(ws, ms(NOW)).length,
      estimated: true,
    });
    expect(row('canvas_details')).toMatchObject({ requests: 0, unchanged: listedCanvases(ws, ms(NOW)).length });
    expect(row('campaigns')).toMatchObject({
      requests: 0,
      unchanged: listedCampaigns(ws, ms(NOW), { includeArchived: true }).length,
    });
    expect(formatPlan(report)).toContain('listed unchanged since stored: not re-read');
  });

  describe('a second run on the unchanged workspace', () => {
    beforeAll(async () => {
      second = await runPlanned(f);
    }, 120_000);

    it('sends only the list pages for metadata, and keeps every stored object', async () => {
      const now = ms(NOW);
      expect(second.sent).toBe(second.summary.requests.minimum);
      for (const stream of PER_ID) expect(second.planned[stream], stream).toBe(0);
      // The entries stored last run say how many pages to expect: the progress knows its end from the first page on.
      expect(second.listing.find((p) => p.stream === 'discovery: canvases')!.requestsPlanned).toBe(
        second.planned['discovery: canvases'],
      );
      const lists = Object.entries(second.planned)
        .filter(([k]) => k.startsWith('discovery: '))
        .reduce((n, [, v]) => n + v, 0);
      const series =
        (second.planned['canvas_summary'] ?? 0) +
        (second.planned['segment_size'] ?? 0) +
        (second.planned['campaign_series'] ?? 0);
      expect(second.sent).toBe(lists + series);
      expect(await ids(f, 'SELECT canvas_id FROM canvases')).toEqual(sorted(listedCanvases(ws, now).map((c) => c.id)));
      // Nothing re-read, yet every stream is current as of this run's --until (what `status` and freshness read).
      const snapshots = await f.query(
        `SELECT stream, watermark FROM _etl_series_state WHERE unit = 'snapshot' ORDER BY stream`,
      );
      expect(snapshots.map((r) => r['stream'])).toEqual([
        'campaigns',
        'canvas_details',
        'content_blocks',
        'email_templates',
        'products',
        'segments',
      ]);
      expect(new Set(snapshots.map((r) => (r['watermark'] as Date).toISOString()))).toEqual(
        new Set([new Date(NOW).toISOString()]),
      );
      expect(
        second.summary.tables
          .filter((t) =>
            ['canvases', 'campaigns', 'segments', 'email_templates', 'content_blocks', 'products'].includes(t.table),
          )
          .every((t) => t.inserted + t.updated + t.deleted === 0),
      ).toBe(true);
    });
  });

  describe('a run a month later', () => {
    let before: string[];

    beforeAll(async () => {
      before = listedCanvases(ws, ms(NOW)).map((c) => c.id);
      f.emulator.clock.set(LATER);
      third = await runPlanned(f);
    }, 300_000);

    it('loads a Canvas created in between, with its history from the start date', async () => {
      const created = listedCanvases(ws, ms(LATER))
        .map((c) => c.id)
        .filter((id) => !before.includes(id));
      expect(created.length).toBeGreaterThan(0);
      const days =
        DateTime.fromISO(LATER, { zone: 'utc' })
          .startOf('day')
          .diff(DateTime.fromISO('2024-06-12', { zone: 'utc' }), 'days').days + 1;
      for (const id of created) {
        const [row] = await f.query(
          `SELECT count(*) AS n, min(day) AS lo FROM canvas_summary WHERE canvas_id = '${id}'`,
        );
        expect(Number(row!['n']), id).toBe(days);
        expect(row!['lo']).toEqual(new Date('2024-06-12T00:00:00Z'));
      }
      expect(await ids(f, 'SELECT canvas_id FROM canvases WHERE _removed_at IS NULL')).toEqual(
        sorted(listedCanvases(ws, ms(LATER)).map((c) => c.id)),
      );
    });

    it('re-reads only the objects whose list entry moved, and marks the ones the list no longer shows', async () => {
      const moved = (a: { id: string; last_edited: string }[], b: { id: string; last_edited: string }[]) =>
        b.filter((x) => a.find((y) => y.id === x.id)?.last_edited !== x.last_edited).length;
      const canvasesChanged = moved(listedCanvases(ws, ms(NOW)), listedCanvases(ws, ms(LATER)));
      expect(third.planned['canvas_details']).toBe(canvasesChanged);
      expect(third.planned['campaigns']).toBe(
        moved(
          listedCampaigns(ws, ms(NOW), { includeArchived: true }),
          listedCampaigns(ws, ms(LATER), { includeArchived: true }),
        ),
      );
      expect(third.sent).toBe(third.summary.requests.minimum);
      const gone = listedCanvases(ws, ms(NOW))
        .map((c) => c.id)
        .filter((id) => !listedCanvases(ws, ms(LATER)).some((c) => c.id === id));
      expect(await ids(f, 'SELECT canvas_id FROM canvases WHERE _removed_at IS NOT NULL')).toEqual(sorted(gone));
    });
  });
});

describe('an option that changes what a stored row holds', () => {
  it('re-reads every block once when inclusion_data is switched on, then none', async () => {
    const f = await PipelineFixture.create({
      now: NOW,
      pipeline: 'name: blocks\nstart_date: 2024-06-12\nstreams:\n  content_blocks: { ids: all }\n',
    });
    try {
      const ws = f.emulator.state.analytics;
      const blocks = listedContentBlocks(ws, ms(NOW)).length;
      expect((await runPlanned(f)).planned['content_blocks']).toBe(blocks);
      expect((await runPlanned(f)).planned['content_blocks']).toBe(0);
      await writeFile(
        f.pipelinePath,
        'name: blocks\nstart_date: 2024-06-12\nstreams:\n  content_blocks: { ids: all, inclusion_data: true }\n',
      );
      expect((await runPlanned(f)).planned['content_blocks']).toBe(blocks);
      const [row] = await f.query('SELECT count(*) AS n FROM content_blocks WHERE inclusion_data IS NOT NULL');
      expect(Number(row!['n'])).toBe(blocks);
      expect((await runPlanned(f)).planned['content_blocks']).toBe(0);
    } finally {
      await f.close();
    }
  }, 120_000);
});
