// Reads a response body as a stream up to a cap: a body announced or streamed past the cap is cancelled, never held whole
// in memory (a body read whole past the cap ends in ERR_STRING_TOO_LONG after downloading all of it, on every retry).

/** The text of a body within the cap, or how the body overran it. */
export type CappedBody = { text: string } | { tooLarge: { declared?: number; readBytes?: number } };

/** Reads `response.body` as UTF-8 text, at most `maxBytes`; rejects only when the transport fails mid-body. */
export async function readCappedBody(response: Response, maxBytes: number): Promise<CappedBody> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return { tooLarge: { declared } };
  }
  if (response.body === null) return { text: '' };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return { tooLarge: { readBytes: total } };
    }
    chunks.push(value);
  }
  return { text: Buffer.concat(chunks, total).toString('utf8') };
}
