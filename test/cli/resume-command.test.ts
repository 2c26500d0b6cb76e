// After Ctrl-C, the command that resumes: the same flags, never the key, never --full-refresh.
import { describe, expect, it } from 'vitest';
import { resumeCommand } from '../../src/cli/run-command.js';
import { parseDuration } from '../../src/config/duration.js';

describe('resumeCommand', () => {
  it('keeps the flags, drops the key in both spellings and --full-refresh, and quotes what the shell would split', () => {
    expect(
      resumeCommand([
        'run',
        '--api-key',
        'sk-1',
        '--full-refresh',
        '--db',
        'my data/x.duckdb',
        '--api-key=sk-2',
        '--until',
        '2025-06-01',
      ]),
    ).toBe("engage-etl run --db 'my data/x.duckdb' --until 2025-06-01");
  });
});

describe('parseDuration', () => {
  it('reads s, m, h, d and their sums', () => {
    expect(parseDuration('26h', '--x')).toBe(26 * 3_600_000);
    expect(parseDuration('1d12h', '--x')).toBe(36 * 3_600_000);
    expect(parseDuration(' 90M ', '--x')).toBe(90 * 60_000);
  });

  it.each(['', '26', 'h', '2 days', '0h', '-1h'])('refuses %j naming the flag', (raw) => {
    expect(() => parseDuration(raw, '--fail-if-stale')).toThrow(/--fail-if-stale/);
  });
});
