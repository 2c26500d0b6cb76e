// The --max-in-flight flag of `run`, `plan` and `push`: a cap on the requests on the wire at once, for a user whose
// network, proxy or agreement with the platform demands one. Without it each limit pool decides (src/api/in-flight-window.ts).
import { ConfigError } from '../errors.js';

/** A whole number ≥ 1 from the flag's text; undefined when the flag is absent. */
export function parseMaxInFlight(raw: string | undefined, flag = '--max-in-flight'): number | undefined {
  if (raw === undefined) return undefined;
  const text = raw.trim();
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < 1) {
    throw new ConfigError(flag, `${JSON.stringify(raw)} is not a whole number of requests ≥ 1; e.g. ${flag} 16`);
  }
  return n;
}
