// Draws one report chart with Apache ECharts in Node (server-side rendering to an SVG string): no browser, no script
// in the report. Every row becomes one mark (a bar, or a symbol on a line) so a reader can count them.
import { createRequire } from 'node:module';
import type * as Echarts from 'echarts';
import type { ChartSpec } from './report-charts.js';

// The package's one-file CommonJS build: its ES modules are about 600 files, which took 0.4 s to load (0.1 s this way),
// and `echarts/core` with the two charts still loads them all. Same version, same drawing.
const echarts = createRequire(import.meta.url)('echarts') as typeof Echarts;

export interface ChartRow {
  x: Date | string;
  series: string;
  y: number;
}

const CHART_WIDTH = 920;
const CHART_HEIGHT = 320;

const percent = (v: number) => `${(v * 100).toFixed(1)} %`;

/** The chart as an SVG document string. */
export function renderChartSvg(spec: ChartSpec, rows: readonly ChartRow[]): string {
  const seriesNames = [...new Set(rows.map((r) => r.series))];
  const timeAxis = rows.length > 0 && rows.every((r) => r.x instanceof Date);
  const categories = timeAxis ? [] : [...new Set(rows.map((r) => String(r.x)))];
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: CHART_WIDTH, height: CHART_HEIGHT });
  try {
    chart.setOption({
      animation: false,
      grid: { left: 70, right: 20, top: 40, bottom: timeAxis ? 40 : 110 },
      legend: { top: 4, type: 'plain' },
      xAxis: timeAxis
        ? { type: 'time' }
        : { type: 'category', data: categories, axisLabel: { rotate: 30, interval: 0, fontSize: 10, width: 160, overflow: 'truncate' } },
      yAxis: { type: 'value', axisLabel: spec.yFormat === 'percent' ? { formatter: percent } : {} },
      series: seriesNames.map((name) => {
        const data = rows.filter((r) => r.series === name).map((r) => [timeAxis ? (r.x as Date).getTime() : String(r.x), r.y]);
        return spec.kind === 'line'
          ? { type: 'line', name, data, showSymbol: true, showAllSymbol: true, symbol: 'circle', symbolSize: 3, lineStyle: { width: 1.5 } }
          : { type: 'bar', name, data, ...(spec.barLayout === 'grouped' ? {} : { stack: 'all' }) };
      }),
    });
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}
