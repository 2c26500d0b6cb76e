// Draws one report chart with Apache ECharts in Node (server-side rendering to an SVG string): no browser, no script
// in the report. Every row becomes one mark (a bar, or a symbol on a line) so a reader can count them, and a row's hover
// text becomes the mark's SVG <title>, which every browser shows under the pointer without a script.
import { createRequire } from 'node:module';
import type * as Echarts from 'echarts';
import type { ChartSpec } from './report-charts.js';

// The package's one-file CommonJS build: its ES modules are hundreds of files, several times slower to load, and
// `echarts/core` with the two charts still loads them all. Same version, same drawing.
const echarts = createRequire(import.meta.url)('echarts') as typeof Echarts;

export interface ChartRow {
  x: Date | string;
  series: string;
  y: number;
  /** Shown when the pointer rests on the mark. */
  hover?: string;
  /** 1: drawn against the second scale, on the right. */
  axis?: 0 | 1;
}

const CHART_WIDTH = 920;
const CHART_HEIGHT = 320;
/** Height of one small chart of a faceted chart, and how many sit side by side. */
const FACET_HEIGHT = 170;
const FACET_COLUMNS = 2;
/** Width a character of an axis label takes at the labels' 11 px (a generous mean, so a label is never cut). */
const LABEL_CHAR_PX = 6.6;
const LABEL_FONT_PX = 11;

/**
 * Twelve colours no two of which read alike (Tableau 10 and two more): a chart has at most twelve series, so no two
 * series share a colour, as ECharts' own nine-colour palette made the tenth segment repeat the first.
 */
export const PALETTE = [
  '#4e79a7',
  '#f28e2b',
  '#e15759',
  '#76b7b2',
  '#59a14f',
  '#edc948',
  '#b07aa1',
  '#ff9da7',
  '#9c755f',
  '#bab0ac',
  '#1b2a49',
  '#17becf',
] as const;

const percent = (v: number) => `${(v * 100).toFixed(1)} %`;

const escapeXml = (text: string): string =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/** The chart as an SVG document string. */
export function renderChartSvg(spec: ChartSpec, rows: readonly ChartRow[]): string {
  const seriesNames = [...new Set(rows.map((r) => r.series))];
  if (seriesNames.length > PALETTE.length)
    throw new Error(
      `chart ${spec.id}: ${seriesNames.length} series, more than the ${PALETTE.length} colours that tell them apart; its query must return fewer`,
    );
  const bySeries = seriesNames.map((name) => rows.filter((r) => r.series === name));
  const option = spec.facets ? facetOption(spec, seriesNames, bySeries) : plainOption(spec, seriesNames, bySeries);
  const height = spec.facets ? facetHeight(seriesNames.length) : plainHeight(spec, rows);
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: CHART_WIDTH, height });
  try {
    chart.setOption({ animation: false, color: [...PALETTE], ...option });
    return withHoverTitles(chart.renderToSVGString(), bySeries);
  } finally {
    chart.dispose();
  }
}

function isTimeAxis(rows: readonly ChartRow[]): boolean {
  return rows.length > 0 && rows.every((r) => r.x instanceof Date);
}

function categories(rows: readonly ChartRow[]): string[] {
  return [...new Set(rows.map((r) => String(r.x)))];
}

const longest = (labels: readonly string[]) => labels.reduce((n, l) => Math.max(n, l.length), 0);

/** Room for the category labels: across the bottom (turned 40°) or down the left of horizontal bars; never truncated. */
function labelRoom(spec: ChartSpec, rows: readonly ChartRow[]): number {
  if (isTimeAxis(rows)) return 0;
  const px = longest(categories(rows)) * LABEL_CHAR_PX;
  return spec.horizontal ? Math.ceil(px) + 16 : Math.ceil(px * Math.sin((40 * Math.PI) / 180)) + 24;
}

function plainHeight(spec: ChartSpec, rows: readonly ChartRow[]): number {
  if (!spec.horizontal) return CHART_HEIGHT + Math.max(0, labelRoom(spec, rows) - 40);
  // A row of bars per category, every label on its own line.
  return Math.max(CHART_HEIGHT, 90 + categories(rows).length * 26);
}

function valueAxis(spec: ChartSpec, extra: Record<string, unknown> = {}) {
  return { type: 'value', axisLabel: spec.yFormat === 'percent' ? { formatter: percent } : {}, ...extra };
}

function plainOption(spec: ChartSpec, names: readonly string[], bySeries: readonly ChartRow[][]) {
  const rows = bySeries.flat();
  const timeAxis = isTimeAxis(rows);
  const cats = timeAxis ? [] : categories(rows);
  const room = labelRoom(spec, rows);
  const twoScales = rows.some((r) => r.axis === 1);
  const categoryAxis = timeAxis
    ? { type: 'time' }
    : spec.horizontal
      ? { type: 'category', data: cats, inverse: true, axisLabel: { interval: 0, fontSize: LABEL_FONT_PX } }
      : { type: 'category', data: cats, axisLabel: { rotate: 40, interval: 0, fontSize: LABEL_FONT_PX } };
  const values = twoScales
    ? [valueAxis(spec), valueAxis(spec, { position: 'right', splitLine: { show: false } })]
    : valueAxis(spec);
  return {
    grid: spec.horizontal
      ? { left: room, right: 30, top: 40, bottom: 30 }
      : { left: 70, right: twoScales ? 80 : 20, top: 40, bottom: timeAxis ? 40 : room },
    legend: { top: 4, type: 'plain' },
    xAxis: spec.horizontal ? valueAxis(spec) : categoryAxis,
    yAxis: spec.horizontal ? categoryAxis : values,
    series: names.map((name, i) => {
      const data = bySeries[i]!.map((r) => {
        const x = timeAxis ? (r.x as Date).getTime() : String(r.x);
        return spec.horizontal ? [r.y, x] : [x, r.y];
      });
      const onRight = bySeries[i]!.some((r) => r.axis === 1) ? { yAxisIndex: 1 } : {};
      return spec.kind === 'line'
        ? {
            type: 'line',
            name,
            data,
            showSymbol: true,
            showAllSymbol: true,
            symbol: 'circle',
            symbolSize: 3,
            lineStyle: { width: 1.5 },
            ...onRight,
          }
        : { type: 'bar', name, data, ...(spec.barLayout === 'grouped' ? {} : { stack: 'all' }), ...onRight };
    }),
  };
}

function facetHeight(n: number): number {
  return 20 + Math.ceil(n / FACET_COLUMNS) * FACET_HEIGHT;
}

/** One small chart per series, on one shared value scale, FACET_COLUMNS to a row, each titled with its series. */
function facetOption(spec: ChartSpec, names: readonly string[], bySeries: readonly ChartRow[][]) {
  const ys = bySeries.flat().map((r) => r.y);
  const min = Math.min(...ys);
  const max = Math.max(...ys);
  const pad = (max - min) * 0.1 || Math.abs(max) * 0.1 || 1;
  const width = (CHART_WIDTH - 20) / FACET_COLUMNS;
  const place = (i: number) => ({
    left: 10 + (i % FACET_COLUMNS) * width,
    top: 20 + Math.floor(i / FACET_COLUMNS) * FACET_HEIGHT,
  });
  return {
    title: names.map((name, i) => ({
      text: name,
      left: place(i).left + 60,
      top: place(i).top - 16,
      textStyle: { fontSize: 12, fontWeight: 'normal' },
    })),
    grid: names.map((_, i) => ({
      left: place(i).left + 60,
      top: place(i).top + 10,
      width: width - 80,
      height: FACET_HEIGHT - 60,
    })),
    xAxis: names.map((_, i) => ({ type: 'time', gridIndex: i, axisLabel: { fontSize: 10 } })),
    yAxis: names.map((_, i) =>
      valueAxis(spec, {
        gridIndex: i,
        min: Math.max(0, min - pad),
        max: max + pad,
        splitNumber: 3,
        axisLabel: { fontSize: 10, ...(spec.yFormat === 'percent' ? { formatter: percent } : {}) },
      }),
    ),
    series: names.map((name, i) => ({
      type: spec.kind,
      name,
      xAxisIndex: i,
      yAxisIndex: i,
      data: bySeries[i]!.map((r) => [(r.x as Date).getTime(), r.y]),
      showSymbol: true,
      showAllSymbol: true,
      symbol: 'circle',
      symbolSize: 3,
      lineStyle: { width: 1.5 },
    })),
  };
}

/** Each mark's hover text as its SVG <title> (ECharts tags marks with their series and data index). */
function withHoverTitles(svg: string, bySeries: readonly ChartRow[][]): string {
  return svg.replace(
    /<path [^>]*?ecmeta_series_index="(\d+)" ecmeta_data_index="(\d+)"[^>]*>/g,
    (tag, s: string, d: string) => {
      const hover = bySeries[Number(s)]?.[Number(d)]?.hover;
      return hover === undefined ? tag : `${tag}<title>${escapeXml(hover)}</title>`;
    },
  );
}
