// Durations as operators write them on a command line: `26h`, `90m`, `2d`, `45s`, `1h30m`.
import { ConfigError } from '../errors.js';

const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds of a duration like `26h` or `1d12h`; ConfigError naming `flag` otherwise. */
export function parseDuration(raw: string, flag: string): number {
  const text = raw.trim().toLowerCase();
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)([smhd])/g)];
  if (text === '' || parts.map((p) => p[0]).join('') !== text) {
    throw new ConfigError(
      flag,
      `${JSON.stringify(raw)} is not a duration; write a number and a unit (s, m, h, d), e.g. 26h, 90m, 1d12h`,
    );
  }
  const ms = parts.reduce((sum, p) => sum + Number(p[1]) * UNIT_MS[p[2]!]!, 0);
  if (ms <= 0) throw new ConfigError(flag, `${JSON.stringify(raw)} is zero; give a positive duration, e.g. 26h`);
  return ms;
}
