// The load path through load packages stores what the in-heap load path stored: the demo workspace over its whole
// history and a 2,000-Canvas workspace with uuid ids over two months, loaded by this build, give the same row count and
// the same md5 of every table's rows as the code before load packages gave (test/fixtures/tables-before-load-packages.json,
// written by bench/table-fingerprints.ts from that commit's checkout). Tables this build adds (the history tables) are
// not in the fixture; every table the fixture has must be here, over the columns it had.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Fingerprints } from '../../bench/table-fingerprints.js';
import { fingerprintRun } from '../../bench/table-fingerprints.js';

const REPO = join(import.meta.dirname, '../..');

interface FixtureRun {
  size: string;
  from: string;
  until: string;
  pipeline: string;
  tables: Fingerprints;
}

interface Fixture {
  commit: string;
  runs: Record<string, FixtureRun>;
}

const fixture = JSON.parse(
  await readFile(join(REPO, 'test/fixtures/tables-before-load-packages.json'), 'utf8'),
) as Fixture;

describe('the tables a run stores', () => {
  for (const [name, run] of Object.entries(fixture.runs)) {
    it(`equal those of ${fixture.commit} on the ${name} workspace (${run.from} to ${run.until})`, async () => {
      const columns = Object.fromEntries(Object.entries(run.tables).map(([table, t]) => [table, t.columns]));
      const now = await fingerprintRun(
        { repo: REPO, size: run.size, from: run.from, until: run.until, pipeline: run.pipeline },
        columns,
      );
      const added = Object.keys(now).filter((t) => !(t in run.tables));
      expect(
        added.every((t) => t.endsWith('_history')),
        `tables the fixture lacks: ${added.join(', ')}`,
      ).toBe(true);
      const theirs = Object.fromEntries(Object.keys(run.tables).map((t) => [t, now[t]]));
      expect(theirs).toEqual(run.tables);
      expect(Object.values(run.tables).reduce((sum, t) => sum + t.rows, 0)).toBeGreaterThan(10_000);
    }, 900_000);
  }
});
