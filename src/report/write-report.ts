// `engage-etl report`: one static, self-contained HTML file (inline CSS and SVG, no script, no link, no font to fetch)
// that opens by double-click, offline. Its charts come from report-charts.ts, drawn by render-chart.ts.
import { resolve } from 'node:path';
import type { Warehouse } from '../load/warehouse.js';
import { CHARTS, FRESHNESS_SQL, setReportLastDays } from './report-charts.js';
import type { ChartSpec } from './report-charts.js';
import type { ChartRow } from './render-chart.js';
import { writeFileAtomically } from '../process/write-file-atomically.js';
import { unfilledViews, type UnfilledView } from '../views/unfilled-views.js';
import { absentHistoryNote, viewsReadingAbsentHistory } from '../views/absent-history.js';
import { printable } from '../text/printable-text.js';
import { backfillSentence } from '../pipeline/backfill-progress.js';
import { backfillFromRow } from '../load/backfill-store.js';

export interface ReportSummary {
  path: string;
  bytes: number;
  /** Per chart, the rows its query returned: the marks it draws. */
  charts: { id: string; rows: number }[];
}

// Names come from the platform: control characters are shown as escapes (a NUL is a parse error in HTML).
const escapeHtml = (text: string): string =>
  printable(text).replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (value instanceof Date)
    return value
      .toISOString()
      .replace('T', ' ')
      .replace(/:\d{2}\.\d{3}Z$/, ' UTC');
  if (typeof value === 'number') return value.toLocaleString('en-US');
  return String(value);
}

/** The rows of a chart's query, checked: a NULL y would silently draw no mark. */
async function chartRows(wh: Warehouse, spec: ChartSpec): Promise<ChartRow[]> {
  const rows = await wh.query(spec.sql);
  return rows.map((r, i) => {
    if (typeof r.y !== 'number' || !Number.isFinite(r.y))
      throw new Error(`chart ${spec.id}: row ${i} has y = ${String(r.y)}; its query must return numbers only`);
    return {
      x: r.x instanceof Date ? r.x : printable(String(r.x)),
      series: printable(String(r.series)),
      y: r.y,
      ...(r.hover !== undefined && r.hover !== null ? { hover: printable(String(r.hover)) } : {}),
      ...(r.axis === 1 ? { axis: 1 as const } : {}),
    };
  });
}

/**
 * The rows a chart draws, as data the page carries beside its picture (a JSON block no browser runs): what a reader's
 * tool, or the report's own browser test, reads instead of guessing values from the drawing.
 */
function chartData(id: string, rows: readonly ChartRow[]): string {
  const json = JSON.stringify(
    rows.map((r) => ({ ...r, x: r.x instanceof Date ? r.x.toISOString().slice(0, 10) : r.x })),
  );
  return `<script type="application/json" data-chart-data="${escapeHtml(id)}">${json.replaceAll('<', '\\u003c')}</script>`;
}

const STYLE = `
  body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0 auto; max-width: 980px; padding: 24px; color: #1d2330; background: #fafbfc; }
  h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 0 0 2px; }
  .meta, .caption { color: #5b6475; font-size: 13px; margin: 0 0 12px; }
  section { background: #fff; border: 1px solid #e3e6eb; border-radius: 8px; padding: 16px; margin: 16px 0; }
  figure { margin: 0; } svg { max-width: 100%; height: auto; }
  table { border-collapse: collapse; font-size: 13px; width: 100%; }
  th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #eef0f3; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
  .empty { color: #8a93a3; font-style: italic; }
  code { font-size: 12px; }`;

export interface ReportOptions {
  /** The time the report says it was written. @default now */
  now?: Date;
  /**
   * The database file the report names as its source: a run reads its private working copy but publishes it as `--db`,
   * the file a reader opens. @default the path `wh` was opened from
   */
  database?: string;
  /**
   * The views and columns left empty for want of a pipeline option, when the caller has them: a run passes its
   * summary's, read moments before. @default read from `wh`
   */
  unfilled?: readonly UnfilledView[];
}

/** Write the report to `path` (its folder is created; the file is replaced whole, never half-written). */
export async function writeReport(wh: Warehouse, path: string, opts: ReportOptions = {}): Promise<ReportSummary> {
  const now = opts.now ?? new Date();
  const target = resolve(path);
  const sections: string[] = [];
  const charts: ReportSummary['charts'] = [];
  // The drawing code is loaded with the first report (not at every start of the CLI), while DuckDB answers the first
  // queries; each chart's query then runs while the chart before it is drawn: DuckDB answers on threads of its own,
  // ECharts draws on this one.
  const [, { renderChartSvg }] = await Promise.all([setReportLastDays(wh), import('./render-chart.js')]);
  let next: Promise<ChartRow[]> | undefined = CHARTS[0] && chartRows(wh, CHARTS[0]);
  try {
    for (const [i, spec] of CHARTS.entries()) {
      const rows = await (next as Promise<ChartRow[]>);
      const following = CHARTS[i + 1];
      next = following && chartRows(wh, following);
      charts.push({ id: spec.id, rows: rows.length });
      const body =
        rows.length > 0 ? `<figure>${renderChartSvg(spec, rows)}</figure>` : '<p class="empty">No data yet.</p>';
      sections.push(`<section class="chart" data-chart="${escapeHtml(spec.id)}" data-rows="${rows.length}">
<h2>${escapeHtml(spec.title)}</h2><p class="caption">${escapeHtml(spec.caption)}</p>
${body}
${chartData(spec.id, rows)}
</section>`);
    }
  } finally {
    // A chart that cannot be drawn leaves the next query running: it ends before the warehouse is used again.
    await next?.catch(() => undefined);
  }

  const fresh = await wh.query(FRESHNESS_SQL);
  const columns = ['stream', 'series', 'oldest_watermark', 'max_age_hours', 'open_holes', 'last_successful_run_at'];
  const numeric = new Set(['series', 'max_age_hours', 'open_holes']);
  const freshness =
    fresh.length === 0
      ? '<p class="empty">No series loaded yet.</p>'
      : `<table><thead><tr>${columns.map((c) => `<th>${escapeHtml(c.replaceAll('_', ' '))}</th>`).join('')}</tr></thead><tbody>
${fresh.map((r) => `<tr>${columns.map((c) => `<td${numeric.has(c) ? ' class="num"' : ''}>${escapeHtml(cellText(r[c]))}</td>`).join('')}</tr>`).join('\n')}
</tbody></table>`;
  const views = await wh.query(
    `SELECT "view_name", "comment" FROM duckdb_views() WHERE "schema_name" = 'analytics' ORDER BY 1`,
  );
  const unfilled = opts.unfilled ?? (await unfilledViews(wh));
  const absentHistory =
    wh.absentHistory.length === 0
      ? ''
      : `<p class="meta" data-note="absent-history">${escapeHtml(absentHistoryNote(wh.absentHistory, await viewsReadingAbsentHistory(wh)))}.</p>`;
  // A first backfill that spans nights: how far each stream's days reach, until every stream has them all.
  const backfill = (
    await wh.query(`SELECT * FROM "_etl_backfill" WHERE "days_covered" < "days_asked" ORDER BY "stream"`)
  ).map(backfillFromRow);
  const backfillSection =
    backfill.length === 0
      ? ''
      : `<section data-table="backfill"><h2>Backfill in progress</h2><p class="caption">The first backfill spans nights (a time budget stops each run): per stream, the range its started series hold, the days loaded of the days asked, and the series started and complete. The charts and views show loaded days only; the next runs continue.</p><table><thead><tr><th>stream</th><th>loaded</th><th>days loaded</th><th>series started</th><th>series complete</th></tr></thead><tbody>
${backfill.map((b) => `<tr><td>${escapeHtml(b.stream)}</td><td>${escapeHtml(backfillSentence(b))}</td><td class="num">${cellText(b.daysCovered)} of ${cellText(b.daysAsked)} (${Math.floor((100 * b.daysCovered) / Math.max(1, b.daysAsked))} %)</td><td class="num">${cellText(b.seriesStarted)} of ${cellText(b.series)}</td><td class="num">${cellText(b.seriesComplete)} of ${cellText(b.series)}</td></tr>`).join('\n')}
</tbody></table></section>`;
  const unfilledSection =
    unfilled.length === 0
      ? ''
      : `<section data-table="unfilled"><h2>Empty for want of a pipeline option</h2><p class="caption">These views (or columns) hold nothing because the pipeline does not ask for what fills them.</p><table><tbody>
${unfilled.map((u) => `<tr><td><code>analytics.${escapeHtml(u.view)}${u.column === undefined ? '' : `.${escapeHtml(u.column)}`}</code></td><td>${escapeHtml(u.fill)}</td></tr>`).join('\n')}
</tbody></table></section>`;

  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>engage-etl report</title><style>${STYLE}</style></head>
<body>
<h1>engage-etl report</h1>
<p class="meta">Written ${escapeHtml(cellText(now))} from ${escapeHtml(opts.database ?? wh.path)}. Every chart reads the views of schema <code>analytics</code>; query them with <code>engage-etl query</code> or any DuckDB client.</p>
${absentHistory}
${backfillSection}
${sections.join('\n')}
<section data-table="freshness"><h2>Data freshness</h2><p class="caption">Per stream: how far the complete data reaches (watermark) and how old that is.</p>
${freshness}
</section>
${unfilledSection}
<section><h2>Views</h2><table><tbody>
${views.map((v) => `<tr><td><code>analytics.${escapeHtml(String(v.view_name))}</code></td><td>${escapeHtml(String(v.comment ?? ''))}</td></tr>`).join('\n')}
</tbody></table></section>
</body></html>
`;
  await writeFileAtomically(target, html);
  return { path: target, bytes: Buffer.byteLength(html), charts };
}
