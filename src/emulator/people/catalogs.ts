// Catalogs of the emulated workspace (spec 2.4): typed fields, items, and the queue of items accepted by the
// asynchronous create endpoint (4.4) that become visible a moment later on the emulator clock.
import { createRng, pick } from '../random.js';

export type CatalogFieldType = 'string' | 'number' | 'boolean' | 'object' | 'time';

export interface CatalogField {
  readonly name: string;
  readonly type: CatalogFieldType;
  /** Set when the field feeds a filtered set: its values may not exceed this many characters (error 7.1). */
  readonly filteredSetMaxLength?: number;
}

export type CatalogItemValue = Record<string, unknown> & { id: string };

export interface PendingCatalogItems {
  /** Emulator-clock instant from which the items are visible. */
  readonly visibleAtMs: number;
  readonly items: CatalogItemValue[];
}

export interface Catalog {
  readonly name: string;
  /** The catalog's fields other than `id`. */
  readonly fields: readonly CatalogField[];
  /** Visible items by id, in insertion order. */
  readonly items: Map<string, CatalogItemValue>;
  /** Accepted by 4.4 and not yet visible, oldest first. */
  readonly pending: PendingCatalogItems[];
}

/**
 * How long after a create request (4.4, asynchronous) its items become visible, in emulator-clock milliseconds.
 * With a frozen clock, tests make items visible by advancing the clock by at least this much.
 */
export const CATALOG_CREATE_DELAY_MS = 1_000;

/** The character limit of the `City` field, which feeds a filtered set. */
export const FILTERED_SET_MAX_LENGTH = 100;

const CITIES = ['New York', 'Berlin', 'Paris', 'Tokyo', 'Lisbon', 'Toronto'];
const CUISINES = ['American', 'Italian', 'Japanese', 'French', 'Portuguese', 'Thai'];

export function generateCatalogs(seed: number): Catalog[] {
  const rng = createRng(seed ^ 0xca7a_1065);
  const restaurants: Catalog = {
    name: 'restaurants',
    fields: [
      { name: 'Name', type: 'string' },
      { name: 'City', type: 'string', filteredSetMaxLength: FILTERED_SET_MAX_LENGTH },
      { name: 'Cuisine', type: 'string' },
      { name: 'Rating', type: 'number' },
      { name: 'Loyalty_Program', type: 'boolean' },
      { name: 'Location', type: 'object' },
      { name: 'Created_At', type: 'time' },
    ],
    items: new Map(),
    pending: [],
  };
  for (let n = 1; n <= 20; n++) {
    restaurants.items.set(`restaurant${n}`, {
      id: `restaurant${n}`,
      Name: `Restaurant${n}`,
      City: pick(rng, CITIES),
      Cuisine: pick(rng, CUISINES),
      Rating: 1 + Math.floor(rng() * 5),
      Loyalty_Program: rng() < 0.5,
      Location: {
        Latitude: Math.round((rng() * 120 - 60) * 1e4) / 1e4,
        Longitude: Math.round((rng() * 340 - 170) * 1e4) / 1e4,
      },
      Created_At: `2022-${String(1 + (n % 12)).padStart(2, '0')}-01T09:03:19.967Z`,
    });
  }
  const products: Catalog = {
    name: 'products',
    fields: [
      { name: 'Name', type: 'string' },
      { name: 'Price', type: 'number' },
      { name: 'In_Stock', type: 'boolean' },
    ],
    items: new Map(),
    pending: [],
  };
  for (let n = 1; n <= 10; n++) {
    products.items.set(`product_${n}`, {
      id: `product_${n}`,
      Name: `Product ${n}`,
      Price: Math.round(rng() * 10_000) / 100,
      In_Stock: rng() < 0.8,
    });
  }
  return [restaurants, products];
}

/** Make every pending batch whose time has come visible. Called by each catalog route and read helper. */
export function settleCatalog(catalog: Catalog, nowMs: number): void {
  while (catalog.pending.length > 0 && (catalog.pending[0]?.visibleAtMs ?? Infinity) <= nowMs) {
    const batch = catalog.pending.shift();
    for (const item of batch?.items ?? []) catalog.items.set(item.id, item);
  }
}

/** Visible items of a catalog at `nowMs` (pending creates that are due are applied first). */
export function listCatalogItems(catalog: Catalog, nowMs: number): CatalogItemValue[] {
  settleCatalog(catalog, nowMs);
  return [...catalog.items.values()];
}
