// Helpers of the emulator tests: start a real emulator on port 0 at a frozen instant and call it with global fetch.
import type { Emulator, EmulatorOptions } from '../../src/emulator/server.js';
import { createEmulator } from '../../src/emulator/server.js';

/** The frozen "now" of most tests: mid-hour, so the current hour and day are partial. */
export const NOW = '2024-06-15T12:30:00Z';

export function startEmulator(opts: EmulatorOptions = {}): Promise<Emulator> {
  return createEmulator({ now: NOW, ...opts });
}

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** GET (or another method) with the demo key unless `key` is given (null sends no Authorization). */
export async function call(
  em: Emulator,
  path: string,
  init: { method?: string; key?: string | null; body?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  const key = init.key === undefined ? em.demoApiKey : init.key;
  if (key !== null) headers.Authorization = `Bearer ${key}`;
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${em.url}${path}`, {
    method: init.method ?? 'GET',
    headers,
    ...(init.body !== undefined ? { body: init.body } : {}),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Left as text: a test asserting on JSON will fail and show it.
  }
  return { status: res.status, headers: res.headers, body };
}
