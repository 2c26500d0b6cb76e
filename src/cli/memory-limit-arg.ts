// `--memory-limit`: a size DuckDB takes as its memory_limit, checked where it is typed: DuckDB's own error for a bad one
// ("Failed to set config") names neither the option nor the value, and came out as a database that cannot be opened.
import { InvalidArgumentError } from 'commander';

const SIZE = /^(\d+(?:\.\d+)?)\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i;

export function memoryLimitArg(raw: string): string {
  const m = SIZE.exec(raw.trim());
  if (!m || !(Number(m[1]) > 0)) {
    throw new InvalidArgumentError(
      `"${raw}" is not a memory size; give a number and a unit (KB, MB, GB, TB, KiB, MiB, GiB, TiB), e.g. --memory-limit 1GB`,
    );
  }
  return `${m[1]}${m[2]!.toUpperCase().replace('I', 'i')}`;
}
