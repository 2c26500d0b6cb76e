// RFC 8288 Link header parsing: several links per header (or several headers joined by commas), quoted or bare
// parameters, and `rel` holding a space-separated list of relation types compared case-insensitively.

/** One link of a Link header. */
export interface WebLink {
  /** The target exactly as written between `<` and `>`, not yet resolved. */
  target: string;
  /** Relation types, lower-cased. */
  rels: string[];
  /** Other parameters, names lower-cased, values unquoted. */
  params: Record<string, string>;
}

/** Parses a Link header value into its links; malformed pieces are skipped rather than guessed at. */
export function parseLinkHeader(value: string | null | undefined): WebLink[] {
  if (!value) return [];
  const links: WebLink[] = [];
  let i = 0;
  const n = value.length;
  while (i < n) {
    const open = value.indexOf('<', i);
    if (open < 0) break;
    const close = value.indexOf('>', open + 1);
    if (close < 0) break;
    const link: WebLink = { target: value.slice(open + 1, close).trim(), rels: [], params: {} };
    i = close + 1;
    // Parameters: `; name=value` or `; name="quoted, value"` until the comma that starts the next link.
    while (i < n) {
      while (i < n && /\s/.test(value[i] as string)) i++;
      if (value[i] !== ';') break;
      i++;
      const nameMatch = /^\s*([^\s=;,]+)\s*/.exec(value.slice(i));
      if (!nameMatch) break;
      const name = (nameMatch[1] as string).toLowerCase();
      i += nameMatch[0].length;
      let paramValue = '';
      if (value[i] === '=') {
        i++;
        while (i < n && /\s/.test(value[i] as string)) i++;
        if (value[i] === '"') {
          i++;
          while (i < n && value[i] !== '"') {
            if (value[i] === '\\' && i + 1 < n) i++;
            paramValue += value[i];
            i++;
          }
          i++;
        } else {
          const bare = /^[^;,]*/.exec(value.slice(i))?.[0] ?? '';
          paramValue = bare.trim();
          i += bare.length;
        }
      }
      // RFC 8288 §3.3: only the first occurrence of `rel` counts.
      if (name === 'rel') {
        if (link.rels.length === 0)
          link.rels = paramValue
            .toLowerCase()
            .split(/\s+/)
            .filter((r) => r !== '');
      } else if (!(name in link.params)) {
        link.params[name] = paramValue;
      }
    }
    links.push(link);
    const comma = value.indexOf(',', i);
    if (comma < 0) break;
    i = comma + 1;
  }
  return links;
}

/** The target of the first link whose relation types include `rel`, or undefined. */
export function findLink(value: string | null | undefined, rel: string): string | undefined {
  const wanted = rel.toLowerCase();
  return parseLinkHeader(value).find((link) => link.rels.includes(wanted))?.target;
}
