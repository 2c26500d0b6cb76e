// One limit pool's requests simulated in virtual time: sent at the pool's rate while the in-flight window has room,
// answered by a modelled server. The window sees what it would see on the wire (round trips, in-flight counts, clock
// readings), so its rule can be tested on a latency jump, a server our own load slows, or a stalled client.
import type { InFlightWindow } from '../../../src/api/in-flight-window.js';

/** A server: the time it answers a request sent at `sentAt` with `inFlight` of ours in flight (counting this one). */
export type ServerModel = (sentAt: number, inFlight: number) => number;

/** A server whose round trip is `latencyMs(sentAt)`, whatever our load. */
export function fixedLatency(latencyMs: (sentAt: number) => number): ServerModel {
  return (sentAt) => sentAt + latencyMs(sentAt);
}

/** A server that works one request at a time, `serviceMs` each, after `latencyMs` on the wire: our load queues there. */
export function queueingServer(serviceMs: number, latencyMs = 0): ServerModel {
  let freeAt = 0;
  return (sentAt) => {
    freeAt = Math.max(freeAt, sentAt + latencyMs / 2) + serviceMs;
    return freeAt + latencyMs / 2;
  };
}

export interface Simulation {
  /** The window's limit at each step, with the time. */
  limits: { t: number; limit: number }[];
  /** Round trips as the client measured them, with the time each was sent. */
  answers: { sentAt: number; roundTripMs: number }[];
  /** Requests sent in [from, to). */
  sentBetween: (from: number, to: number) => number;
  /** The window's limit at time t (the last step at or before it). */
  limitAt: (t: number) => number;
}

export interface SimulationOptions {
  ratePerMs: number;
  server: ServerModel;
  untilMs: number;
  /** A time during which the client runs nothing (a long synchronous task): answers due then are read at its end. */
  stall?: { from: number; to: number };
}

export function simulatePool(window: InFlightWindow, opts: SimulationOptions): Simulation {
  const spacing = 1 / opts.ratePerMs;
  const due: { at: number; sentAt: number; sentAmong: number }[] = [];
  const limits: Simulation['limits'] = [];
  const answers: Simulation['answers'] = [];
  const sends: number[] = [];
  let nextSend = 0;
  let t = 0;
  const awake = (at: number): number =>
    opts.stall && at >= opts.stall.from && at < opts.stall.to ? opts.stall.to : at;
  while (t < opts.untilMs) {
    const firstDue = due.length ? Math.min(...due.map((d) => d.at)) : Infinity;
    const canSend = due.length < window.limit();
    const sendAt = canSend ? Math.max(nextSend, t) : Infinity;
    if (sendAt <= firstDue) {
      t = awake(sendAt);
      due.push({ at: opts.server(t, due.length + 1), sentAt: t, sentAmong: due.length + 1 });
      window.sent(due.length);
      sends.push(t);
      nextSend = t + spacing;
    } else {
      t = awake(firstDue);
      const ready = due.filter((d) => d.at <= t).sort((a, b) => a.at - b.at);
      for (const d of ready) {
        due.splice(due.indexOf(d), 1);
        answers.push({ sentAt: d.sentAt, roundTripMs: t - d.sentAt });
        window.finished('ok', t - d.sentAt, due.length, t, d.sentAmong);
      }
    }
    limits.push({ t, limit: window.limit() });
  }
  return {
    limits,
    answers,
    sentBetween: (from, to) => sends.filter((s) => s >= from && s < to).length,
    limitAt: (at) => limits.filter((l) => l.t <= at).at(-1)?.limit ?? window.limit(),
  };
}
