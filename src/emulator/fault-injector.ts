// Injected faults: for each request, (seed, sequence number) decides whether a fault happens and which, so a failing
// run can be replayed exactly. Faults are decided before any handler runs: a faulted write changes nothing.
import { hashUnit } from './random.js';

export const FAULT_KINDS = [
  'rate_limited',
  'server_error',
  'unavailable',
  'truncated_body',
  'connection_reset',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** The fault for request number `sequence`, or undefined. `rate` is the probability in [0, 1]. */
export function faultFor(seed: number, sequence: number, rate: number): FaultKind | undefined {
  if (rate <= 0) return undefined;
  if (hashUnit(seed, 'fault', sequence) >= rate) return undefined;
  return FAULT_KINDS[Math.floor(hashUnit(seed, 'fault-kind', sequence) * FAULT_KINDS.length)];
}
