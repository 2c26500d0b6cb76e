// The Prometheus text exposition format (version 0.0.4), both ways: written for node_exporter's textfile collector,
// and read back strictly — a file the collector would refuse must fail here first.

export interface MetricFamily {
  name: string;
  help: string;
  type: 'gauge' | 'counter';
  samples: { labels: Record<string, string>; value: number }[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = ['counter', 'gauge', 'histogram', 'summary', 'untyped'];

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

/** The families as exposition text: HELP and TYPE before each family's samples, one family per group, final newline. */
export function formatPrometheusText(families: readonly MetricFamily[]): string {
  const lines: string[] = [];
  for (const f of families) {
    if (!METRIC_NAME.test(f.name))
      throw new RangeError(`metric name ${JSON.stringify(f.name)} is not valid in the Prometheus format`);
    lines.push(`# HELP ${f.name} ${f.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`, `# TYPE ${f.name} ${f.type}`);
    for (const s of f.samples) {
      const labels = Object.entries(s.labels)
        .map(([k, v]) => `${k}="${escapeLabel(v)}"`)
        .join(',');
      lines.push(`${f.name}${labels ? `{${labels}}` : ''} ${formatValue(s.value)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * Parses exposition text, refusing what the format forbids: bad names, unquoted or badly escaped label values, a value
 * that is not a float, a TYPE after its samples or twice, a metric's lines split into two groups, a repeated series,
 * a missing final newline. Throws an Error naming the line.
 */
export function parsePrometheusText(text: string): ParsedSample[] {
  if (text.length > 0 && !text.endsWith('\n')) throw new Error('the last line does not end with a newline');
  const samples: ParsedSample[] = [];
  const typed = new Set<string>();
  const seen = new Set<string>();
  const closed = new Set<string>();
  let current: string | undefined;
  const enter = (name: string, lineNo: number) => {
    if (name === current) return;
    if (closed.has(name)) throw new Error(`line ${lineNo}: lines of ${name} are split into two groups`);
    if (current !== undefined) closed.add(current);
    current = name;
  };
  text
    .split('\n')
    .slice(0, -1)
    .forEach((line, i) => {
      const n = i + 1;
      if (line.trim() === '') return;
      if (line.startsWith('#')) {
        const m = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s+(.*))?$/.exec(line);
        if (!m) return; // a plain comment
        const [, kind, name, rest = ''] = m as unknown as [string, string, string, string?];
        if (!METRIC_NAME.test(name)) throw new Error(`line ${n}: ${JSON.stringify(name)} is not a metric name`);
        enter(name, n);
        if (kind === 'TYPE') {
          if (!TYPES.includes(rest.trim())) throw new Error(`line ${n}: ${JSON.stringify(rest)} is not a metric type`);
          if (typed.has(name)) throw new Error(`line ${n}: a second TYPE for ${name}`);
          if (samples.some((s) => s.name === name)) throw new Error(`line ${n}: TYPE of ${name} after its samples`);
          typed.add(name);
        }
        return;
      }
      const sample = parseSample(line, n);
      const family = sample.name.replace(/_(bucket|sum|count)$/, '');
      enter(typed.has(family) ? family : sample.name, n);
      const key = `${sample.name}{${Object.entries(sample.labels)
        .sort()
        .map(([k, v]) => `${k}=${v}`)
        .join(',')}}`;
      if (seen.has(key)) throw new Error(`line ${n}: the series ${key} appears twice`);
      seen.add(key);
      samples.push(sample);
    });
  return samples;
}

function parseSample(line: string, n: number): ParsedSample {
  const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)(?:\s+(-?\d+))?\s*$/.exec(line);
  if (!m) throw new Error(`line ${n}: ${JSON.stringify(line)} is not "name{labels} value [timestamp]"`);
  const [, name, rawLabels, rawValue] = m as unknown as [string, string, string | undefined, string];
  const value =
    rawValue === '+Inf' ? Infinity : rawValue === '-Inf' ? -Infinity : rawValue === 'NaN' ? NaN : Number(rawValue);
  if (Number.isNaN(value) && rawValue !== 'NaN')
    throw new Error(`line ${n}: ${JSON.stringify(rawValue)} is not a float`);
  return { name, labels: rawLabels ? parseLabels(rawLabels.slice(1, -1), n) : {}, value };
}

function parseLabels(body: string, n: number): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = body;
  while (rest.length > 0) {
    const m = /^\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"\s*(,|$)/.exec(rest);
    if (!m) throw new Error(`line ${n}: bad labels {${body}}`);
    const [all, key, raw] = m as unknown as [string, string, string];
    if (!LABEL_NAME.test(key) || key in labels) throw new Error(`line ${n}: label ${key} is invalid or repeated`);
    labels[key] = raw.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
    rest = rest.slice(all.length);
  }
  return labels;
}
