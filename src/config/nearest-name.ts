// "Did you mean …?" for misspelt keys and stream names: the closest valid name by edit distance, when close enough.

/** Levenshtein distance between two strings. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length]!;
}

/** The valid name closest to `wrong` by edit distance (case ignored), however far; undefined when `valid` is empty. */
export function closestName(wrong: string, valid: readonly string[]): { name: string; distance: number } | undefined {
  const lower = wrong.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of valid) {
    const distance = editDistance(lower, name.toLowerCase());
    if (best === undefined || distance < best.distance) best = { name, distance };
  }
  return best;
}

/** The valid name closest to `wrong`, or undefined when none is within a third of its length (at least 2 edits). */
export function nearestName(wrong: string, valid: readonly string[]): string | undefined {
  const best = closestName(wrong, valid);
  const allowed = Math.max(2, Math.floor(wrong.length / 3));
  return best !== undefined && best.distance <= allowed ? best.name : undefined;
}

/** ` Did you mean "x"?` or ` Valid: a, b, c.` — the tail of an "unknown name" message. */
export function suggestion(wrong: string, valid: readonly string[]): string {
  const near = nearestName(wrong, valid);
  return near !== undefined ? ` Did you mean "${near}"? Valid: ${valid.join(', ')}.` : ` Valid: ${valid.join(', ')}.`;
}
