// Helpers over parsed JSON shared by the people state and the write routes: the plain-object test and a short,
// never-throwing rendering of any value for error messages.

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A value as it would appear in the request, shortened for messages. Never throws, even on absurdly deep input. */
export function show(v: unknown, max = 80): string {
  let s: string;
  try {
    s = v === undefined ? 'undefined' : (JSON.stringify(v) ?? String(v));
  } catch {
    // JSON.stringify recurses; a value nested tens of thousands of levels deep exhausts the stack.
    s = Array.isArray(v) ? '[…]' : '{…}';
  }
  return s.length > max ? `${s.slice(0, max - 3)}...` : s;
}
