// Best-effort mapping of a language input to its ISO-639-1 code (spec 2.2 `language`): codes, and names in English and
// a few other languages (ICU data shipped with Node), e.g. "English" → en, "Deutsch" → de. No match → null.
import { normalizeName } from './country-codes.js';

const NAME_LOCALES = ['en', 'de', 'fr', 'es', 'pt', 'it', 'nl', 'ja', 'zh'];

let byName: Map<string, string> | undefined;

function nameIndex(): Map<string, string> {
  if (byName) return byName;
  const index = new Map<string, string>();
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const english = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });
  const displays = NAME_LOCALES.map((l) => new Intl.DisplayNames([l], { type: 'language', fallback: 'code' }));
  for (const a of letters) {
    for (const b of letters) {
      const code = a + b;
      if (english.of(code) === code) continue;
      index.set(code, code);
      // Each language's own name for itself ("Deutsch", "français") is the spelling users most often send.
      const endonym = new Intl.DisplayNames([code], { type: 'language', fallback: 'code' }).of(code);
      for (const name of [endonym, ...displays.map((d) => d.of(code))]) {
        if (name && name !== code && !index.has(normalizeName(name))) index.set(normalizeName(name), code);
      }
    }
  }
  byName = index;
  return index;
}

/** The ISO-639-1 code for `input` (case-insensitive; a locale like `en-US` maps to `en`), or null. */
export function toLanguageCode(input: string): string | null {
  const index = nameIndex();
  const direct = index.get(normalizeName(input));
  if (direct) return direct;
  const locale = /^([a-z]{2})[-_][a-z0-9]+$/i.exec(input.trim());
  return locale?.[1] ? (index.get(locale[1].toLowerCase()) ?? null) : null;
}
