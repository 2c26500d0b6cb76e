// Names in the report come from the platform: a NUL, an ESC or a bidi override in a Canvas or step name must reach
// report.html as a visible escape, never raw (a NUL is a parse error in HTML and fatal in the SVG's XML).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Warehouse } from '../../src/load/warehouse.js';
import { WAREHOUSE_TABLES } from '../../src/streams/table-specs.js';
import { writeReport } from '../../src/report/write-report.js';
import type { PipelineFixture } from '../pipeline/helpers/pipeline-fixture.js';
import { analystWarehouse } from '../views/analyst-fixture.js';

let f: PipelineFixture;
let dir: string;

beforeAll(async () => {
  f = await analystWarehouse();
  dir = await mkdtemp(join(tmpdir(), 'engage-report-ctl-'));
}, 180_000);
afterAll(async () => {
  await f?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the report and control characters in names', () => {
  it('shows a NUL, an ESC and a bidi override in a step name as escapes, in the chart and nowhere raw', async () => {
    const path = join(dir, 'report.html');
    const wh = await Warehouse.open(f.db, WAREHOUSE_TABLES);
    try {
      const evil = `'Evil' || chr(0) || chr(27) || '[2J' || chr(8238) || 'step'`;
      await wh.query(`UPDATE "canvas_step_summary" SET "name" = ${evil}`);
      await wh.query(`UPDATE "canvas_steps" SET "name" = ${evil}`);
      await writeReport(wh, path);
    } finally {
      await wh.close();
    }
    const html = await readFile(path, 'utf8');
    // The chart's axis cuts long labels: the escape is shown as far as the label goes.
    expect(html).toContain('Evil\\u0');
    expect(html).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e]/);
  }, 60_000);
});
