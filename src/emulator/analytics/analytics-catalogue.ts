// The identifiers of the analytics side, generated from the seed: apps, products with their USD prices, segments, and
// the per-entity base rates the series model grows from. Seed 1 has fixed counts so the demo pipeline can name its ids.
// Products and segments after the original ones appear over time, for discovery.
import { hashUnit } from '../random.js';
import type { Lifecycle } from './lifecycle.js';
import { ADDED_ID_BASE, seededLifecycle } from './lifecycle.js';
import type { CatalogueShape } from './workspace-size.js';
import { DEMO_SHAPE, splitCount, styledId } from './workspace-size.js';

export interface App {
  id: string;
  name: string;
  /** Mean sessions per hour at the workspace start, before growth, weekly and diurnal shaping. */
  sessionsPerHour: number;
  /** The one day (epoch ms of its UTC start) on which this app had an outage: every series of the app is zero that day. */
  outageDayMs: number;
}

export interface Product {
  id: string;
  /** Integer USD price: revenue = quantity × price. */
  priceUsd: number;
  /**
   * Start of the hour of the product's first sale (at least one unit sells in it); undefined for the original products,
   * which sell from the workspace start. The product list names a product once this hour has begun.
   */
  firstSaleMs?: number;
}

export interface Segment {
  id: string;
  name: string;
  /** Estimated size at the workspace start. */
  baseSize: number;
  description: string;
  tags: string[];
  teams: string[];
  /** Creation, edits and archiving: an archived segment is never listed; its series stay readable. */
  lifecycle: Lifecycle;
  /** False for a segment without analytics tracking: the platform keeps no series for it (400 on its series). */
  analyticsTrackingEnabled: boolean;
}

const PRODUCT_NAMES = [
  'gems_small',
  'gems_medium',
  'gems_large',
  'coins_pack',
  'starter_bundle',
  'season_pass',
  'no_ads',
  'vip_month',
] as const;
const BASE_PRICES: Record<(typeof PRODUCT_NAMES)[number], number> = {
  gems_small: 2,
  gems_medium: 5,
  gems_large: 20,
  coins_pack: 3,
  starter_bundle: 10,
  season_pass: 15,
  no_ads: 4,
  vip_month: 9,
};
const APP_NAMES = ['Puzzle Quest', 'Word Garden', 'Tile Tycoon', 'Space Merge', 'Farm Match'];
const SEGMENT_NAMES = [
  'Whales',
  'Lapsed 7 days',
  'New this week',
  'Push enabled',
  'Spenders 30 days',
  'Tutorial completers',
  'Weekend players',
  'Guild members',
];

/** Count for seed 1 (fixed), or a seed-dependent count in [min, max] for other seeds. */
export function countFor(seed: number, what: string, seedOne: number, min: number, max: number): number {
  if (seed === 1) return seedOne;
  return min + Math.floor(hashUnit(seed, 'count', what) * (max - min + 1));
}

export function generateApps(seed: number, workspaceStartMs: number, shape: CatalogueShape = DEMO_SHAPE): App[] {
  const n = shape.size.apps ?? countFor(seed, 'apps', 3, 2, 5);
  return Array.from({ length: n }, (_, i) => {
    const id = styledId(seed, shape.idStyle, `app_${i + 1}`);
    // Outage days fall in the first two years of history so a 2024 pipeline meets one.
    const outageOffsetDays = 200 + Math.floor(hashUnit(seed, 'outage-day', id) * 500);
    return {
      id,
      name: APP_NAMES[i] ?? `App ${i + 1}`,
      sessionsPerHour: 40 + Math.floor(hashUnit(seed, 'sessions-rate', id) * 260),
      outageDayMs: workspaceStartMs + outageOffsetDays * 86_400_000,
    };
  });
}

/** Products first sold after July 2025 (after every window the original tests read), one every five weeks or so. */
const ADDED_PRODUCTS: readonly [string, number][] = [
  ['extra_lives', 1],
  ['booster_pack', 3],
  ['hint_bundle', 2],
  ['skin_dragon', 6],
  ['skin_robot', 6],
  ['energy_refill', 1],
  ['mega_chest', 25],
  ['piggy_bank', 8],
  ['battle_pass_plus', 18],
  ['name_change', 2],
  ['pet_egg', 5],
  ['double_xp', 4],
  ['remove_timer', 3],
  ['gift_card', 12],
];
const ADDED_PRODUCTS_FROM = Date.UTC(2025, 7, 1);
const ADDED_PRODUCTS_TO = Date.UTC(2027, 5, 30);
const HOUR = 3_600_000;

/**
 * Product ids are the names a workspace gives them (there is no other id): a larger workspace than the demo's gets
 * `product_23`, `product_24`, … after the named ones, priced from the seed.
 */
export function generateProducts(seed: number, shape: CatalogueShape = DEMO_SHAPE): Product[] {
  const count = splitCount(shape.size.products, countFor(seed, 'products', 7, 6, 8), ADDED_PRODUCTS.length);
  const originals = PRODUCT_NAMES.slice(0, count.originals).map((id) => ({
    id,
    priceUsd: seed === 1 ? BASE_PRICES[id] : BASE_PRICES[id] + Math.floor(hashUnit(seed, 'price', id) * 3),
  }));
  const named: readonly [string, number][] = Array.from(
    { length: count.added },
    (_, k) =>
      ADDED_PRODUCTS[k] ?? [`product_${count.originals + k + 1}`, 1 + Math.floor(hashUnit(seed, 'price', k) * 25)],
  );
  const step = (ADDED_PRODUCTS_TO - ADDED_PRODUCTS_FROM) / Math.max(1, named.length);
  const added = named.map(([id, priceUsd], k) => ({
    id,
    priceUsd,
    firstSaleMs: Math.floor((ADDED_PRODUCTS_FROM + (k + hashUnit(seed, 'first-sale', id)) * step) / HOUR) * HOUR,
  }));
  return [...originals, ...added];
}

/** Segments added for discovery after the original ones: more than a list page of 100. */
export const ADDED_SEGMENTS = 140;
const SEGMENT_TEAMS = ['Growth', 'Lifecycle', 'Monetization', 'Analytics'];

/** How many segments a seed had before discovery (6 for seed 1); the added ones follow. */
export function originalSegmentCount(seed: number): number {
  return countFor(seed, 'segments', 6, 4, 8);
}

export function generateSegments(seed: number, shape: CatalogueShape = DEMO_SHAPE): Segment[] {
  const { originals: n, added: addedCount } = splitCount(
    shape.size.segments,
    originalSegmentCount(seed),
    ADDED_SEGMENTS,
  );
  // The original segments exist before the workspace's data starts and never change.
  const originals = Array.from(
    { length: n },
    (_, i): Segment => ({
      id: styledId(seed, shape.idStyle, `seg_${i + 1}`),
      name: SEGMENT_NAMES[i] ?? `Segment ${i + 1}`,
      baseSize: 800 + Math.floor(hashUnit(seed, 'segment-size', i) * 40_000),
      description: `Seeded segment ${i + 1} of the emulator workspace.`,
      tags: i % 2 === 0 ? ['core'] : [],
      teams: [SEGMENT_TEAMS[i % SEGMENT_TEAMS.length]!],
      lifecycle: { createdMs: Date.UTC(2022, 11, 1 + i), editsMs: [] },
      analyticsTrackingEnabled: true,
    }),
  );
  const added = Array.from({ length: addedCount }, (_, k): Segment => {
    const i = ADDED_ID_BASE + k - 1;
    return {
      id: styledId(seed, shape.idStyle, `seg_${i + 1}`),
      name: k === 0 ? 'Untracked test users' : `Cohort ${k + 1}`,
      baseSize: 800 + Math.floor(hashUnit(seed, 'segment-size', i) * 40_000),
      description: `Segment ${i + 1} of the emulator workspace, created over time for discovery.`,
      tags: k % 3 === 0 ? ['cohort'] : [],
      teams: [SEGMENT_TEAMS[k % SEGMENT_TEAMS.length]!],
      lifecycle: seededLifecycle(seed, 'segment', k, addedCount, { archivedShare: k === 0 ? 0 : 0.1 }),
      // The first added segment has analytics tracking off: listed, but with no series.
      analyticsTrackingEnabled: k !== 0,
    };
  });
  return [...originals, ...added];
}

/** Mean purchases per hour of a product in an app at the workspace start (cheap products sell more). */
export function purchaseRate(seed: number, app: App, product: Product): number {
  return (0.4 + hashUnit(seed, 'purchase-rate', app.id, product.id) * 2.2) * (6 / (product.priceUsd + 4));
}

/** Share of an app's sessions that come from members of a segment: how segment sessions thin the app's sessions. */
export function segmentShare(seed: number, appId: string, segmentId: string): number {
  return 0.05 + hashUnit(seed, 'segment-share', appId, segmentId) * 0.45;
}
