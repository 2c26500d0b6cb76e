// src/pipeline/ has no import circle: every module of the run's phases can be read on its own, from the modules it
// imports down. Imports are read from the source text (type-only imports count too: a circle of types is still one).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIR = join(import.meta.dirname, '../../src/pipeline');

/** Module → the modules of the same folder it imports. */
function localImports(dir: string): Map<string, string[]> {
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(join(dir, file), 'utf8');
    const targets = [...text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'\.\/([\w-]+)\.js'/gm)].map(
      (m) => `${m[1]}.ts`,
    );
    graph.set(
      file,
      [...new Set(targets)].filter((t) => files.includes(t)),
    );
  }
  return graph;
}

/** The first circle found (a path that comes back to its start), or undefined. */
function findCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === 'done') return undefined;
    if (state.get(node) === 'open') return [...path.slice(path.indexOf(node)), node];
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('src/pipeline imports', () => {
  it('form no circle', () => {
    const graph = localImports(DIR);
    expect(graph.size).toBeGreaterThan(10);
    expect(findCycle(graph)?.join(' → ')).toBeUndefined();
  });

  it('are read by a check that does find a circle when there is one', () => {
    expect(
      findCycle(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', ['c.ts']],
          ['c.ts', ['a.ts']],
        ]),
      ),
    ).toEqual(['a.ts', 'b.ts', 'c.ts', 'a.ts']);
    expect(
      findCycle(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', []],
          ['c.ts', ['a.ts', 'b.ts']],
        ]),
      ),
    ).toBeUndefined();
  });
});
