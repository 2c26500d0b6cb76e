// A URL as it may appear in a message: a base URL pasted with credentials in it (`user:pass@`, `?api_key=…`) must not
// carry them into an error line, a log or the run table.

/** The text of a URL fit for a message, quoted: the `user:password@` part, every query value and the fragment masked. */
export function showUrl(raw: string): string {
  let text = raw.replace(/\/\/[^/@?#]*@/, '//***@');
  text = text.replace(/#.*$/s, (hash) => (hash.length > 1 ? '#***' : hash));
  text = text.replace(/\?[^#]*/, (query) =>
    query.length <= 1
      ? query
      : `?${query
          .slice(1)
          .split('&')
          .map((pair) => pair.replace(/^([^=]*)=.*$/s, '$1=***').replace(/^([^=]+)$/s, '***'))
          .join('&')}`,
  );
  return JSON.stringify(text);
}
