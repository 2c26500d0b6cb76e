// The exposition-format check the metrics tests rely on: it reads back what the writer writes, and refuses what
// node_exporter's textfile collector would refuse.
import { describe, expect, it } from 'vitest';
import { formatPrometheusText, parsePrometheusText } from '../../src/export/prometheus-text.js';

describe('the Prometheus text format', () => {
  it('reads back what it writes, label values with quotes, backslashes and newlines included', () => {
    const text = formatPrometheusText([
      {
        name: 'a_seconds',
        help: 'A help with a \\ backslash.',
        type: 'gauge',
        samples: [
          { labels: { stream: 'x"y\\z\nw' }, value: 1.5 },
          { labels: { stream: 'b' }, value: Infinity },
        ],
      },
      { name: 'b_total', help: 'B.', type: 'counter', samples: [{ labels: {}, value: 3 }] },
    ]);
    expect(parsePrometheusText(text)).toEqual([
      { name: 'a_seconds', labels: { stream: 'x"y\\z\nw' }, value: 1.5 },
      { name: 'a_seconds', labels: { stream: 'b' }, value: Infinity },
      { name: 'b_total', labels: {}, value: 3 },
    ]);
  });

  it.each([
    ['no final newline', 'a 1'],
    ['a bad metric name', '1a 1\n'],
    ['an unquoted label value', 'a{x=1} 1\n'],
    ['a value that is not a float', 'a 1,5\n'],
    ['a series twice', 'a{x="1"} 1\na{x="1"} 2\n'],
    ['a metric in two groups', 'a 1\nb 1\na{x="2"} 1\n'],
    ['a TYPE after its samples', 'a 1\n# TYPE a gauge\n'],
    ['a second TYPE', '# TYPE a gauge\n# TYPE a gauge\na 1\n'],
    ['an unknown type', '# TYPE a thing\na 1\n'],
  ])('refuses %s', (_label, text) => {
    expect(() => parsePrometheusText(text)).toThrow();
  });
});
