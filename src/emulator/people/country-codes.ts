// Best-effort mapping of a country input to its ISO-3166-1 alpha-2 code (spec 2.2 `country`): codes, English and a few
// other languages' names (from the ICU data Node ships), and common abbreviations. No match → null.
const NAME_LOCALES = ['en', 'de', 'fr', 'es', 'pt', 'it', 'nl'];

/** Spellings ICU does not produce that people commonly send. */
const ALIASES: Record<string, string> = {
  usa: 'US',
  'u s a': 'US',
  'u s': 'US',
  'united states of america': 'US',
  america: 'US',
  uk: 'GB',
  'u k': 'GB',
  'great britain': 'GB',
  britain: 'GB',
  england: 'GB',
  scotland: 'GB',
  wales: 'GB',
  deu: 'DE',
  ger: 'DE',
  fra: 'FR',
  gbr: 'GB',
  esp: 'ES',
  ita: 'IT',
  jpn: 'JP',
  bra: 'BR',
  can: 'CA',
  mex: 'MX',
  ind: 'IN',
  chn: 'CN',
  aus: 'AU',
  nld: 'NL',
  che: 'CH',
  aut: 'AT',
  bel: 'BE',
  prt: 'PT',
  pol: 'PL',
  swe: 'SE',
  nor: 'NO',
  dnk: 'DK',
  holland: 'NL',
  'south korea': 'KR',
  korea: 'KR',
  russia: 'RU',
  'czech republic': 'CZ',
};

/** Region codes ICU names that are not ISO-3166-1 countries. */
const NOT_COUNTRIES = new Set(['EU', 'EZ', 'UN', 'QO', 'XA', 'XB', 'ZZ']);

let byName: Map<string, string> | undefined;

/** Lower-case, strip accents and punctuation, collapse spaces: "Côte d’Ivoire" → "cote d ivoire". */
export function normalizeName(s: string): string {
  return s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

function nameIndex(): Map<string, string> {
  if (byName) return byName;
  const index = new Map<string, string>();
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  const english = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });
  const displays = NAME_LOCALES.map((l) => new Intl.DisplayNames([l], { type: 'region', fallback: 'code' }));
  for (const a of letters) {
    for (const b of letters) {
      const written = a + b;
      // ICU answers the code itself for regions it does not know, and knows some that are not countries.
      if (english.of(written) === written || NOT_COUNTRIES.has(written)) continue;
      // Deprecated codes (DD, UK, YU…) canonicalize to the current one, so "Deutschland" maps to DE, not DD.
      const code = (Intl.getCanonicalLocales(`und-${written}`)[0] ?? `und-${written}`).slice(4);
      index.set(normalizeName(written), code);
      for (const d of displays) {
        const name = d.of(code);
        if (name && !index.has(normalizeName(name))) index.set(normalizeName(name), code);
      }
    }
  }
  for (const [alias, code] of Object.entries(ALIASES)) index.set(alias, code);
  byName = index;
  return index;
}

/** The alpha-2 code for `input`, or null when nothing matches (the platform then stores null). */
export function toCountryCode(input: string): string | null {
  return nameIndex().get(normalizeName(input)) ?? null;
}
