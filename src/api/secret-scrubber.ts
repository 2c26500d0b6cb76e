// Removes credentials from any text that may reach a message, an event or stored data. The live service echoes an
// invalid key back ("Invalid API key: <key>"), and servers escape it as they please (`\/` from PHP, `\u0026` from Go,
// `%2F` or `+` in a query string, `&#x2F;` in an HTML page), so server text is never trusted to be clean.

const REDACTED = '[redacted]';

/** Replaces every occurrence of the given secrets, in any of the spellings above, with `[redacted]`. */
export class SecretScrubber {
  readonly #pattern: RegExp | undefined;

  constructor(secrets: readonly (string | undefined)[]) {
    // Longest first so a secret that contains another is replaced whole.
    const sorted = [...new Set(secrets.filter((s): s is string => typeof s === 'string' && s !== ''))].sort(
      (a, b) => b.length - a.length,
    );
    this.#pattern = sorted.length === 0 ? undefined : new RegExp(sorted.map(spellings).join('|'), 'g');
  }

  scrub(text: string): string {
    return this.#pattern === undefined ? text : text.replace(this.#pattern, REDACTED);
  }
}

/** A pattern matching `secret` with each character written plainly or in any escape a JSON, URL or HTML writer uses. */
function spellings(secret: string): string {
  return [...secret].map(charSpellings).join('');
}

function charSpellings(ch: string): string {
  const code = ch.codePointAt(0) as number;
  const forms = [escapeRegExp(ch)];
  if (code <= 0xff) {
    const hex = code.toString(16).padStart(2, '0');
    const anyCase = [...hex].map((h) => (/[a-f]/.test(h) ? `[${h}${h.toUpperCase()}]` : h)).join('');
    // URL encoding, once or twice (%2F, %252F); JSON \u escapes, also doubly escaped JSON-in-JSON (\\u002F); HTML entities.
    forms.push(`%(?:25)?${anyCase}`, `\\\\+u00${anyCase}`, `&#[xX]0*${anyCase};`, `&#0*${code};`);
  } else {
    forms.push(
      `\\\\+u${[...code.toString(16).padStart(4, '0')].map((h) => (/[a-f]/.test(h) ? `[${h}${h.toUpperCase()}]` : h)).join('')}`,
    );
  }
  // A backslash escape of the character itself (`\/`, `\"`, `\\`), as JSON writers may put it.
  if (!/[A-Za-z0-9]/.test(ch)) forms.push(`\\\\+${escapeRegExp(ch)}`);
  if (ch === ' ') forms.push('\\+');
  if (ch === '&') forms.push('&amp;');
  if (ch === '<') forms.push('&lt;');
  if (ch === '>') forms.push('&gt;');
  if (ch === '"') forms.push('&quot;');
  return `(?:${forms.join('|')})`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
