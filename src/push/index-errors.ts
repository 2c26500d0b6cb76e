// Per-index errors of the external-ID endpoints (spec 4.6, 4.7): "arrays of messages referring to the index of the
// object in the request array". The emulator and the live service answer `[index, "message"]`; a message that only
// names the index in its text ("index 3: …") is understood too.

/** Messages by request index; `unplaced` holds entries that name no index. */
export function readIndexErrors(list: unknown, size: number): { byIndex: Map<number, string>; unplaced: string[] } {
  const byIndex = new Map<number, string>();
  const unplaced: string[] = [];
  if (!Array.isArray(list)) return { byIndex, unplaced };
  for (const entry of list) {
    const parts = Array.isArray(entry) ? entry : [entry];
    let index: number | undefined;
    const words: string[] = [];
    for (const part of parts) {
      if (index === undefined && typeof part === 'number' && Number.isInteger(part)) index = part;
      else if (index === undefined && typeof part === 'string' && /^\d+$/.test(part)) index = Number(part);
      else words.push(typeof part === 'string' ? part : JSON.stringify(part));
    }
    const text = words.join(' ');
    if (index === undefined) {
      const named = /\bindex\s*:?\s*(\d+)/i.exec(text);
      if (named) index = Number(named[1]);
    }
    if (index !== undefined && index >= 0 && index < size) {
      const before = byIndex.get(index);
      byIndex.set(index, before ? `${before}; ${text}` : text || 'refused (no reason given)');
    } else {
      unplaced.push(text || JSON.stringify(entry));
    }
  }
  return { byIndex, unplaced };
}
