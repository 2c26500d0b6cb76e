// The Canvas request figure: a 2-year backfill of the demo pipeline's Canvases read from
// /canvas/data_series (up to 14 days a request) and from /canvas/data_summary (one day a request), each a real run.
import { loadPipelineFile } from '../src/config/load-pipeline-file.js';
import { EmulatorBench } from './emulator-run.js';

export interface CanvasSourceFigure {
  canvases: number;
  days: number;
  dataSeries: number;
  dataSummary: number;
}

const UNTIL = '2026-01-01T00:00:00Z';

/** Sends the demo pipeline's canvas_summary stream alone, once per source, and counts the requests each run sent. */
export async function measureCanvasSources(demoPipelinePath: string): Promise<CanvasSourceFigure> {
  const demo = loadPipelineFile(demoPipelinePath);
  const selection = demo.streams.canvas_summary?.canvases ?? { all: false, ids: [] };
  // `all`: the Canvases the workspace lists, as discovery stored them (the only list of this pipeline).
  let canvases = selection.ids.length;
  const start = demo.startDate.toISODate();
  const sent: Record<string, number> = {};
  for (const source of ['data_series', 'data_summary']) {
    const pipeline = `name: canvas-${source}\nstart_date: ${start}\nstreams:\n  canvas_summary: { canvases: ${selection.all ? 'all' : `[${selection.ids.join(', ')}]`}, source: ${source}, variant_breakdown: true, step_breakdown: true }\n`;
    const bench = await EmulatorBench.create(pipeline, { now: UNTIL });
    try {
      sent[source] = (await bench.run(UNTIL)).summary.requests.sent;
      if (selection.all) canvases = await bench.count('listed_objects');
    } finally {
      await bench.close();
    }
  }
  const days = Math.round((Date.parse(UNTIL) - demo.startDate.toMillis()) / 86_400_000);
  return { canvases, days, dataSeries: sent['data_series']!, dataSummary: sent['data_summary']! };
}
