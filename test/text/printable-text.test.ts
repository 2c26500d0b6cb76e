// Values shown on a terminal never carry control characters raw: a name from the platform or a cell from a query could
// otherwise clear the screen, overwrite a line or reorder it.
import { describe, expect, it } from 'vitest';
import { formatRows } from '../../src/cli/format-rows.js';
import { printable } from '../../src/text/printable-text.js';

describe('printable', () => {
  it('shows newline, tab and carriage return by name and every other control as \\u escapes; leaves other text alone', () => {
    expect(printable('a\nb\tc\rd')).toBe('a\\nb\\tc\\rd');
    expect(printable('\u0000\u001b[31m\u007f\u009b\u202e')).toBe('\\u0000\\u001b[31m\\u007f\\u009b\\u202e');
    expect(printable('Café — 東京 ✓')).toBe('Café — 東京 ✓');
  });

  it("is what a query's table shows for a text cell", () => {
    const out = formatRows([{ name: 'x\u001b[2Jy', n: 1 }]);
    expect(out).toContain('x\\u001b[2Jy');
    expect(out).not.toContain('\u001b');
  });
});
