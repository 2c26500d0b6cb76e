// What a usable credential looks like. A key must travel in an HTTP header (visible ASCII only) and be long enough that
// masking it in a message cannot garble the message itself; anything else is refused before any request is sent.

/**
 * Shortest API key or SCIM token accepted. The platform's keys are UUID-like (36 characters) and the emulator's demo key
 * is 21; 16 leaves room for other schemes while refusing a placeholder ("key", "secret") or a truncated paste.
 */
export const MIN_CREDENTIAL_LENGTH = 16;

/**
 * Why a credential cannot be used, or undefined when it can. The value itself never appears in the reason: only its
 * length and, for a stray character, its position and code point.
 */
export function credentialProblem(value: string): string | undefined {
  if (value.trim() === '') return 'is empty';
  for (let i = 0; i < value.length; i++) {
    const code = value.codePointAt(i) as number;
    if (code < 0x21 || code > 0x7e) {
      const what = code <= 0x20 || code === 0x7f ? 'a space or control character' : 'a character outside visible ASCII';
      return `contains ${what} (U+${code.toString(16).toUpperCase().padStart(4, '0')} at position ${i + 1}), which cannot be sent in an HTTP header; copy it again from the dashboard without spaces, line breaks or typographic quotes`;
    }
  }
  if (value.length < MIN_CREDENTIAL_LENGTH) {
    return `is ${value.length} characters long, shorter than any real one (at least ${MIN_CREDENTIAL_LENGTH}); pass the value itself, not its name or a placeholder`;
  }
  return undefined;
}
