// The emulator's route table: path patterns of the endpoint catalogue (`:name` segments) matched against request
// paths, so an unknown path is a 404 and a known path with the wrong method a 405 listing the allowed ones.
import { FatalError } from '../errors.js';
import type { Route } from './route.js';

export type RouteMatch =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'wrong_method'; allowed: string[]; route: Route }
  | { kind: 'not_found' }
  | { kind: 'bad_path'; reason: string };

interface Entry {
  route: Route;
  segments: string[];
}

export class RouteTable {
  readonly #entries: Entry[];

  constructor(routes: readonly Route[]) {
    const seen = new Set<string>();
    this.#entries = routes.map((route) => {
      const key = `${route.endpoint.method} ${route.endpoint.path}`;
      if (seen.has(key))
        throw new FatalError(
          `emulator route table: two routes for ${key}; each endpoint must have exactly one handler (check READ_ROUTES and WRITE_ROUTES)`,
        );
      seen.add(key);
      return { route, segments: route.endpoint.path.split('/').filter((s) => s !== '') };
    });
  }

  match(method: string, path: string): RouteMatch {
    const parts = path.split('/').filter((s) => s !== '');
    let decoded: string[];
    try {
      decoded = parts.map((p) => decodeURIComponent(p));
    } catch {
      return {
        kind: 'bad_path',
        reason: `path ${JSON.stringify(path.slice(0, 200))} has a malformed percent-encoding`,
      };
    }
    const candidates: { entry: Entry; params: Record<string, string>; literals: number }[] = [];
    for (const entry of this.#entries) {
      if (entry.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let literals = 0;
      const ok = entry.segments.every((seg, i) => {
        if (seg.startsWith(':')) {
          params[seg.slice(1)] = decoded[i]!;
          return true;
        }
        literals += 1;
        return seg === parts[i];
      });
      if (ok) candidates.push({ entry, params, literals });
    }
    if (candidates.length === 0) return { kind: 'not_found' };
    // A literal segment beats a parameter (e.g. a future /catalogs/x/items/bulk over /catalogs/:c/items/:id).
    const best = Math.max(...candidates.map((c) => c.literals));
    const top = candidates.filter((c) => c.literals === best);
    const hit = top.find((c) => c.entry.route.endpoint.method === method);
    if (hit) return { kind: 'found', route: hit.entry.route, params: hit.params };
    return {
      kind: 'wrong_method',
      allowed: [...new Set(top.map((c) => c.entry.route.endpoint.method))].sort(),
      route: top[0]!.entry.route,
    };
  }
}
