// The analytics side of the emulator's workspace: the seeded catalogue (apps, products, segments, Canvases, campaigns,
// templates, content blocks, integrations, event names) and the restatement hook that lets a test change a past day's data.
import type { DataIntegration } from '../../api/types.js';
import { hashUnit } from '../random.js';
import type { App, Product, Segment } from './analytics-catalogue.js';
import { generateApps, generateProducts, generateSegments } from './analytics-catalogue.js';
import type { Campaign } from './campaign-catalogue.js';
import { generateCampaigns } from './campaign-catalogue.js';
import type { Canvas } from './canvas-catalogue.js';
import { generateCanvases, originalCanvasCount } from './canvas-catalogue.js';
import type { ContentBlockRecord, TemplateRecord } from './metadata-catalogue.js';
import { generateContentBlocks, generateEventNames, generateIntegrations, generateTemplates } from './metadata-catalogue.js';
import type { RestatedSeries, RestatementKeys, SeriesSource } from './series-model.js';
import { formatDay, parseDay } from './time-units.js';

/** A late correction of one past UTC day of one series: every matching value of that day is multiplied by `factor`. */
export interface Restatement extends RestatementKeys {
  series: RestatedSeries;
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  /** Multiplier of the day's final values (e.g. 1.5 adds half again); must be a finite number ≥ 0. */
  factor: number;
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
  readonly #restatements: { r: Restatement; dayMs: number }[] = [];

  constructor(seed: number) {
    this.seed = seed;
    this.startMs = parseDay(WORKSPACE_START)!;
    this.appGroupId = `ag_${Math.floor(hashUnit(seed, 'app-group') * 2 ** 32).toString(16).padStart(8, '0')}`;
    this.apps = generateApps(seed, this.startMs);
    this.products = generateProducts(seed);
    this.segments = generateSegments(seed);
    this.canvases = generateCanvases(seed, this.startMs);
    this.originalCanvasCount = originalCanvasCount(seed);
    this.campaigns = generateCampaigns(seed);
    this.templates = generateTemplates(seed);
    this.contentBlocks = generateContentBlocks(seed, this.canvases.slice(0, this.originalCanvasCount), this.canvases.slice(this.originalCanvasCount));
    this.integrations = generateIntegrations(seed, this.appGroupId);
    this.eventNames = generateEventNames(seed);
  }

  app(id: string): App | undefined {
    return this.apps.find((a) => a.id === id);
  }

  product(id: string): Product | undefined {
    return this.products.find((p) => p.id === id);
  }

  segment(id: string): Segment | undefined {
    return this.segments.find((s) => s.id === id);
  }

  canvas(id: string): Canvas | undefined {
    return this.canvases.find((c) => c.id === id);
  }

  campaign(id: string): Campaign | undefined {
    return this.campaigns.find((c) => c.id === id);
  }

  /**
   * Restate a past day: from now on every value of that day of the series (narrowed by app, product, segment or Canvas
   * when given) is multiplied by `factor`. Restatements of the same day compound. Throws RangeError on bad input.
   */
  restate(r: Restatement): void {
    const dayMs = parseDay(r.day);
    if (dayMs === undefined) throw new RangeError(`restate: day "${r.day}" is not a UTC date; write it as YYYY-MM-DD, e.g. 2024-03-01`);
    if (!Number.isFinite(r.factor) || r.factor < 0) throw new RangeError(`restate: factor ${r.factor} must be a finite number ≥ 0 (1.5 adds half again)`);
    const checks: [string | undefined, (id: string) => unknown, string][] = [
      [r.appId, (id) => this.app(id), 'appId'],
      [r.product, (id) => this.product(id), 'product'],
      [r.segmentId, (id) => this.segment(id), 'segmentId'],
      [r.canvasId, (id) => this.canvas(id), 'canvasId'],
      [r.campaignId, (id) => this.campaign(id), 'campaignId'],
    ];
    for (const [id, find, field] of checks) {
      if (id !== undefined && !find(id)) throw new RangeError(`restate: ${field} "${id}" is not in the workspace (see \`engage-etl emulator --describe\`)`);
    }
    this.#restatements.push({ r: { ...r }, dayMs });
  }

  /** Restatements applied so far, oldest first (for tests and --describe). */
  restatements(): { series: RestatedSeries; day: string; factor: number }[] {
    return this.#restatements.map(({ r, dayMs }) => ({ ...r, day: formatDay(dayMs) }));
  }

  restatementFactor(series: RestatedSeries, dayStartMs: number, keys: RestatementKeys): number {
    let factor = 1;
    for (const { r, dayMs } of this.#restatements) {
      if (r.series !== series || dayMs !== dayStartMs) continue;
      if (r.appId !== undefined && r.appId !== keys.appId) continue;
      if (r.product !== undefined && r.product !== keys.product) continue;
      if (r.segmentId !== undefined && r.segmentId !== keys.segmentId) continue;
      if (r.canvasId !== undefined && r.canvasId !== keys.canvasId) continue;
      if (r.campaignId !== undefined && r.campaignId !== keys.campaignId) continue;
      factor *= r.factor;
    }
    return factor;
  }
}

export function generateAnalytics(seed: number): AnalyticsWorkspace {
  return new AnalyticsWorkspace(seed);
}
