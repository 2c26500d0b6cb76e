// The API client knows pools, pacing and retries, nothing of rows: nothing in src/api/ imports from the layers above it,
// and no module of src/ reaches across layers through AsyncLocalStorage (the run's scheduler is passed as an argument).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../../src');

function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));
}

describe('no ambient hooks between layers', () => {
  it('src/api/ imports nothing of the layers above it (pipeline, extract, load, export, and the rest)', () => {
    const above: string[] = [];
    for (const file of sources(join(SRC, 'api'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'(\.\.\/[^']+)'/gm)) {
        const target = m[1]!;
        if (
          /^\.\.\/(cli|config|pipeline|extract|load|export|push|streams|store|emulator|report|dbt|views|process)\//.test(
            target,
          )
        )
          above.push(`${relative(SRC, file)} → ${target}`);
      }
    }
    expect(above).toEqual([]);
  });

  it('no module of src/ uses AsyncLocalStorage or async_hooks', () => {
    const users = sources(SRC)
      .filter((f) => /AsyncLocalStorage|node:async_hooks/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(SRC, f));
    expect(users).toEqual([]);
  });
});
