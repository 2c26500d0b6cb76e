// The identifiers of the analytics side, generated from the seed: apps, products with their USD prices, segments, and
// the per-entity base rates the series model grows from. Seed 1 has fixed counts so the demo pipeline can name its ids.
import { hashUnit } from '../random.js';

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
}

export interface Segment {
  id: string;
  name: string;
  /** Estimated size at the workspace start. */
  baseSize: number;
}

const PRODUCT_NAMES = ['gems_small', 'gems_medium', 'gems_large', 'coins_pack', 'starter_bundle', 'season_pass', 'no_ads', 'vip_month'] as const;
const BASE_PRICES: Record<(typeof PRODUCT_NAMES)[number], number> = {
  gems_small: 2, gems_medium: 5, gems_large: 20, coins_pack: 3, starter_bundle: 10, season_pass: 15, no_ads: 4, vip_month: 9,
};
const APP_NAMES = ['Puzzle Quest', 'Word Garden', 'Tile Tycoon', 'Space Merge', 'Farm Match'];
const SEGMENT_NAMES = ['Whales', 'Lapsed 7 days', 'New this week', 'Push enabled', 'Spenders 30 days', 'Tutorial completers', 'Weekend players', 'Guild members'];

/** Count for seed 1 (fixed), or a seed-dependent count in [min, max] for other seeds. */
export function countFor(seed: number, what: string, seedOne: number, min: number, max: number): number {
  if (seed === 1) return seedOne;
  return min + Math.floor(hashUnit(seed, 'count', what) * (max - min + 1));
}

export function generateApps(seed: number, workspaceStartMs: number): App[] {
  const n = countFor(seed, 'apps', 3, 2, 5);
  return Array.from({ length: n }, (_, i) => {
    const id = `app_${i + 1}`;
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

export function generateProducts(seed: number): Product[] {
  const n = countFor(seed, 'products', 7, 6, 8);
  return PRODUCT_NAMES.slice(0, n).map((id) => ({
    id,
    priceUsd: seed === 1 ? BASE_PRICES[id] : BASE_PRICES[id] + Math.floor(hashUnit(seed, 'price', id) * 3),
  }));
}

export function generateSegments(seed: number): Segment[] {
  const n = countFor(seed, 'segments', 6, 4, 8);
  return Array.from({ length: n }, (_, i) => ({
    id: `seg_${i + 1}`,
    name: SEGMENT_NAMES[i] ?? `Segment ${i + 1}`,
    baseSize: 800 + Math.floor(hashUnit(seed, 'segment-size', i) * 40_000),
  }));
}

/** Mean purchases per hour of a product in an app at the workspace start (cheap products sell more). */
export function purchaseRate(seed: number, app: App, product: Product): number {
  return (0.4 + hashUnit(seed, 'purchase-rate', app.id, product.id) * 2.2) * (6 / (product.priceUsd + 4));
}

/** Share of an app's sessions that come from members of a segment: how segment sessions thin the app's sessions. */
export function segmentShare(seed: number, appId: string, segmentId: string): number {
  return 0.05 + hashUnit(seed, 'segment-share', appId, segmentId) * 0.45;
}
