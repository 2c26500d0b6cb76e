// The analytics side of the emulator's workspace: the seeded catalogue (apps, products, segments, Canvases, campaigns,
// templates, content blocks, integrations, event names), the restatement hook that lets a test change a past day's
// data, and the skew hook that makes the Canvas data summary disagree with the data series (reconciliation tests).
import type { DataIntegration } from '../../api/types.js';
import { hashUnit } from '../random.js';
import type { App, Product, Segment } from './analytics-catalogue.js';
import { generateApps, generateProducts, generateSegments } from './analytics-catalogue.js';
import type { Campaign } from './campaign-catalogue.js';
import { generateCampaigns } from './campaign-catalogue.js';
import type { Canvas } from './canvas-catalogue.js';
import { generateCanvases, originalCanvasCount } from './canvas-catalogue.js';
import type { ContentBlockRecord, TemplateRecord } from './metadata-catalogue.js';
import {
  generateContentBlocks,
  generateEventNames,
  generateIntegrations,
  generateTemplates,
} from './metadata-catalogue.js';
import type { RestatedSeries, RestatementKeys, SeriesSource } from './series-model.js';
import { formatDay, parseDay } from './time-units.js';
import type { CatalogueShape } from './workspace-size.js';
import { DEMO_SHAPE } from './workspace-size.js';

/** A late correction of one past UTC day of one series: every matching value of that day is multiplied by `factor`. */
export interface Restatement extends RestatementKeys {
  series: RestatedSeries;
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  /** Multiplier of the day's final values (e.g. 1.5 adds half again); must be a finite number ≥ 0. */
  factor: number;
}

/**
 * A deliberate disagreement between `/canvas/data_summary` and `/canvas/data_series` (to test reconciliation): every
 * data summary of the Canvas whose window holds `day` has these amounts added to its `total_stats`; data series,
 * variant and step statistics stay the model's.
 */
export interface CanvasSummarySkew {
  canvasId: string;
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  /** Added to `total_stats.conversions` (an integer; the result never goes below 0). @default 0 */
  conversions?: number;
  /** Added to `total_stats.entries` (an integer; the result never goes below 0). @default 0 */
  entries?: number;
  /** Added to `total_stats.revenue`, in USD with at most cents. @default 0 */
  revenue?: number;
}

/** First day of data: every series is zero before it. */
export const WORKSPACE_START = '2023-01-01';

export class AnalyticsWorkspace implements SeriesSource {
  readonly seed: number;
  readonly startMs: number;
  /** Identifier of the workspace (app group), as data integrations report it. */
  readonly appGroupId: string;
  readonly apps: readonly App[];
  readonly products: readonly Product[];
  readonly segments: readonly Segment[];
  readonly canvases: readonly Canvas[];
  /** The original Canvases (cv_1 … cv_n, present since before discovery); the rest of `canvases` were added after. */
  readonly originalCanvasCount: number;
  readonly campaigns: readonly Campaign[];
  readonly templates: readonly TemplateRecord[];
  readonly contentBlocks: readonly ContentBlockRecord[];
  readonly integrations: readonly DataIntegration[];
  /** Alphabetical. */
  readonly eventNames: readonly string[];
  readonly #byId: {
    apps: Map<string, App>;
    products: Map<string, Product>;
    segments: Map<string, Segment>;
    canvases: Map<string, Canvas>;
    campaigns: Map<string, Campaign>;
  };
  readonly #restatements: { r: Restatement; dayMs: number }[] = [];
  readonly #skews: { s: CanvasSummarySkew; dayMs: number }[] = [];

  constructor(seed: number, shape: CatalogueShape = DEMO_SHAPE) {
    this.seed = seed;
    this.startMs = parseDay(WORKSPACE_START)!;
    this.appGroupId = `ag_${Math.floor(hashUnit(seed, 'app-group') * 2 ** 32)
      .toString(16)
      .padStart(8, '0')}`;
    this.apps = generateApps(seed, this.startMs, shape);
    this.products = generateProducts(seed, shape);
    this.segments = generateSegments(seed, shape);
    this.canvases = generateCanvases(seed, this.startMs, shape);
    this.originalCanvasCount = Math.min(originalCanvasCount(seed), this.canvases.length);
    this.campaigns = generateCampaigns(seed, shape);
    this.templates = generateTemplates(seed);
    this.contentBlocks = generateContentBlocks(
      seed,
      this.canvases.slice(0, this.originalCanvasCount),
      this.canvases.slice(this.originalCanvasCount),
    );
    this.integrations = generateIntegrations(seed, this.appGroupId);
    this.eventNames = generateEventNames(seed, shape.size.events);
    // Lookups by id serve every request: a workspace of 20,000 Canvases cannot scan its catalogue each time.
    const index = <T extends { id: string }>(items: readonly T[]) => new Map(items.map((item) => [item.id, item]));
    this.#byId = {
      apps: index(this.apps),
      products: index(this.products),
      segments: index(this.segments),
      canvases: index(this.canvases),
      campaigns: index(this.campaigns),
    };
  }

  app(id: string): App | undefined {
    return this.#byId.apps.get(id);
  }

  product(id: string): Product | undefined {
    return this.#byId.products.get(id);
  }

  segment(id: string): Segment | undefined {
    return this.#byId.segments.get(id);
  }

  canvas(id: string): Canvas | undefined {
    return this.#byId.canvases.get(id);
  }

  campaign(id: string): Campaign | undefined {
    return this.#byId.campaigns.get(id);
  }

  /**
   * Restate a past day: from now on every value of that day of the series (narrowed by app, product, segment or Canvas
   * when given) is multiplied by `factor`. Restatements of the same day compound. Throws RangeError on bad input.
   */
  restate(r: Restatement): void {
    const dayMs = parseDay(r.day);
    if (dayMs === undefined)
      throw new RangeError(`restate: day "${r.day}" is not a UTC date; write it as YYYY-MM-DD, e.g. 2024-03-01`);
    if (!Number.isFinite(r.factor) || r.factor < 0)
      throw new RangeError(`restate: factor ${r.factor} must be a finite number ≥ 0 (1.5 adds half again)`);
    const checks: [string | undefined, (id: string) => unknown, string][] = [
      [r.appId, (id) => this.app(id), 'appId'],
      [r.product, (id) => this.product(id), 'product'],
      [r.segmentId, (id) => this.segment(id), 'segmentId'],
      [r.canvasId, (id) => this.canvas(id), 'canvasId'],
      [r.event, (name) => (this.eventNames.includes(name) ? name : undefined), 'event'],
      [r.campaignId, (id) => this.campaign(id), 'campaignId'],
    ];
    for (const [id, find, field] of checks) {
      if (id !== undefined && !find(id))
        throw new RangeError(
          `restate: ${field} "${id}" is not in the workspace (see \`engage-etl emulator --describe\`)`,
        );
    }
    this.#restatements.push({ r: { ...r }, dayMs });
  }

  /** Restatements applied so far, oldest first (for tests and --describe). */
  restatements(): { series: RestatedSeries; day: string; factor: number }[] {
    return this.#restatements.map(({ r, dayMs }) => ({ ...r, day: formatDay(dayMs) }));
  }

  /** Make `/canvas/data_summary` disagree with `/canvas/data_series` (see CanvasSummarySkew). Throws RangeError on bad input. */
  skewCanvasSummary(s: CanvasSummarySkew): void {
    const dayMs = parseDay(s.day);
    if (dayMs === undefined)
      throw new RangeError(
        `skewCanvasSummary: day "${s.day}" is not a UTC date; write it as YYYY-MM-DD, e.g. 2024-03-01`,
      );
    if (!this.canvas(s.canvasId))
      throw new RangeError(
        `skewCanvasSummary: canvasId "${s.canvasId}" is not in the workspace; use one of ${this.canvases.map((c) => c.id).join(', ')}`,
      );
    for (const field of ['conversions', 'entries'] as const) {
      const v = s[field];
      if (v !== undefined && !Number.isSafeInteger(v))
        throw new RangeError(`skewCanvasSummary: ${field} ${v} must be an integer (e.g. 5 adds five)`);
    }
    if (
      s.revenue !== undefined &&
      (!Number.isFinite(s.revenue) || Math.abs(Math.round(s.revenue * 100) - s.revenue * 100) > 1e-6)
    ) {
      throw new RangeError(
        `skewCanvasSummary: revenue ${s.revenue} must be a finite amount in USD with at most cents (e.g. 12.5)`,
      );
    }
    this.#skews.push({ s: { ...s }, dayMs });
  }

  /** The skews registered so far, oldest first (for tests and --describe). */
  canvasSummarySkews(): CanvasSummarySkew[] {
    return this.#skews.map(({ s }) => ({ ...s }));
  }

  /** The skews of one Canvas that fall on the given days, as amounts to add (revenue in cents). */
  summarySkewsFor(
    canvasId: string,
    dayStarts: readonly number[],
  ): { conversions: number; entries: number; revenueCents: number }[] {
    return this.#skews
      .filter(({ s, dayMs }) => s.canvasId === canvasId && dayStarts.includes(dayMs))
      .map(({ s }) => ({
        conversions: s.conversions ?? 0,
        entries: s.entries ?? 0,
        revenueCents: Math.round((s.revenue ?? 0) * 100),
      }));
  }

  restates(series: RestatedSeries): boolean {
    return this.#restatements.some(({ r }) => r.series === series);
  }

  restatementFactor(series: RestatedSeries, dayStartMs: number, keys: RestatementKeys): number {
    let factor = 1;
    for (const { r, dayMs } of this.#restatements) {
      if (r.series !== series || dayMs !== dayStartMs) continue;
      if (r.appId !== undefined && r.appId !== keys.appId) continue;
      if (r.product !== undefined && r.product !== keys.product) continue;
      if (r.segmentId !== undefined && r.segmentId !== keys.segmentId) continue;
      if (r.canvasId !== undefined && r.canvasId !== keys.canvasId) continue;
      if (r.event !== undefined && r.event !== keys.event) continue;
      if (r.campaignId !== undefined && r.campaignId !== keys.campaignId) continue;
      factor *= r.factor;
    }
    return factor;
  }
}

export function generateAnalytics(seed: number, shape: CatalogueShape = DEMO_SHAPE): AnalyticsWorkspace {
  return new AnalyticsWorkspace(seed, shape);
}
