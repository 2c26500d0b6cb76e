// Text from the platform or a database shown on a terminal: control characters (an ESC that recolours or clears the
// screen, a NUL, a carriage return that overwrites the line, a bidi override that reorders it) are shown as escapes,
// so what a user reads is what the value holds.

// C0 and C1 controls, DEL, and the Unicode format characters that reorder or hide text (bidi overrides, isolates).
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` with every control character shown as `\n`, `\t`, `\r` or `\u001b`. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
