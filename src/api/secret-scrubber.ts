// Removes credentials from any text that may reach a message, an event or stored data. The live service echoes an
// invalid key back ("Invalid API key: <key>"), so server text is never trusted to be clean.

const REDACTED = '[redacted]';

/** Replaces every occurrence of the given secrets (raw or JSON-escaped) with `[redacted]`. */
export class SecretScrubber {
  readonly #needles: string[];

  constructor(secrets: readonly (string | undefined)[]) {
    const needles = new Set<string>();
    for (const secret of secrets) {
      if (!secret) continue;
      needles.add(secret);
      // Inside a JSON body a key with quotes or backslashes appears escaped.
      needles.add(JSON.stringify(secret).slice(1, -1));
      needles.add(encodeURIComponent(secret));
    }
    // Longest first so a secret that contains another is replaced whole.
    this.#needles = [...needles].sort((a, b) => b.length - a.length);
  }

  scrub(text: string): string {
    let out = text;
    for (const needle of this.#needles) out = out.split(needle).join(REDACTED);
    return out;
  }
}
