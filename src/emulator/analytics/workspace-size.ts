// How big the emulator's workspace is and how its ids look: the demo (seed 1's fixed catalogue, ids such as `cv_1`), or
// any number of apps, products, segments, events, Canvases and campaigns, with the demo's ids or with opaque UUIDs as the
// platform issues them — so a pipeline can be tried on a workspace that is not the demo without a vendor account.
import { hashUnit } from '../random.js';

/** Counts of the listed objects; a count left out keeps the seed's own. Each is the workspace's total at the end of time. */
export interface WorkspaceSize {
  apps?: number;
  products?: number;
  segments?: number;
  events?: number;
  canvases?: number;
  campaigns?: number;
}

/** `demo`: `app_1`, `seg_101`, `cv_3`, `cmp_12`; `uuid`: ids such as `5f0c3b7e-9a41-4d2e-8c55-0b1f6e2d9a73`. */
export type IdStyle = 'demo' | 'uuid';

export const ID_STYLES: readonly IdStyle[] = ['demo', 'uuid'];

/** Named sizes for `engage-etl emulator --size` and the bench: Canvases and campaigns grow, the rest stays readable. */
export const SIZE_PRESETS: Readonly<Record<string, WorkspaceSize>> = {
  demo: {},
  small: { apps: 4, products: 30, segments: 104, events: 642, canvases: 200, campaigns: 120 },
  '2k': { apps: 5, products: 40, segments: 400, events: 800, canvases: 2_000, campaigns: 2_000 },
  '5k': { apps: 5, products: 40, segments: 800, events: 1_000, canvases: 5_000, campaigns: 5_000 },
  '20k': { apps: 6, products: 60, segments: 2_000, events: 1_500, canvases: 20_000, campaigns: 20_000 },
};

/** Largest count of any kind: beyond it a workspace's catalogue alone would crowd the emulator's memory. */
export const MAX_OBJECTS = 100_000;

/** The wire id of the object whose demo id is `demoId` (`cv_7`), in `style`; stable for a seed. */
export function styledId(seed: number, style: IdStyle, demoId: string): string {
  if (style === 'demo') return demoId;
  const hex = (part: number) =>
    Math.floor(hashUnit(seed, 'uuid', demoId, part) * 2 ** 32)
      .toString(16)
      .padStart(8, '0');
  const h = hex(0) + hex(1) + hex(2) + hex(3);
  // A version-4 layout, as the platform's identifiers have.
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[parseInt(h[16]!, 16) % 4]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** What the catalogue generators read: the counts asked for and the id style. */
export interface CatalogueShape {
  size: WorkspaceSize;
  idStyle: IdStyle;
}

/** The demo's shape: the seed's own counts, `cv_1`-style ids. */
export const DEMO_SHAPE: CatalogueShape = { size: {}, idStyle: 'demo' };

/**
 * How many of `total` objects are originals and how many were added over time: the seed's originals first (fewer when
 * the total is smaller), the rest added. `total` undefined keeps the seed's `defaultAdded`.
 */
export function splitCount(
  total: number | undefined,
  originals: number,
  defaultAdded: number,
): { originals: number; added: number } {
  if (total === undefined) return { originals, added: defaultAdded };
  const o = Math.min(originals, total);
  return { originals: o, added: total - o };
}
