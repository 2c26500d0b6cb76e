// Checks shared by the targets when they read a source row: required text columns, unknown columns, address syntax.
// Each returns a message naming the column, the value and the fix — the row becomes `invalid` and is never sent.
import { show } from './row-values.js';

/** E.164: a plus sign and up to 15 digits, no leading zero. */
export const E164 = /^\+[1-9]\d{1,14}$/;
/** Deliberately loose (one @, a dot in the domain): the platform has the last word. */
export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The non-empty string in `column`, or a message. Numbers are accepted and turned into text (ids read from CSV). */
export function requiredText(row: Record<string, unknown>, column: string): string | { problem: string } {
  const value = row[column];
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  if (typeof value === 'number' && Number.isInteger(value)) return String(value);
  if (value === null || value === undefined || value === '')
    return { problem: `column "${column}" is empty; every row needs it` };
  return { problem: `column "${column}" must be text, got ${show(value)}` };
}

/** The optional string in `column` (undefined when NULL or absent), or a message. */
export function optionalText(row: Record<string, unknown>, column: string): string | undefined | { problem: string } {
  const value = row[column];
  if (value === null || value === undefined) return undefined;
  return requiredText(row, column);
}

/** A message when the source lacks a required column or has columns the target does not know. */
export function checkColumns(
  target: string,
  columns: readonly string[],
  required: readonly string[],
  allowed: readonly string[],
): string | undefined {
  const missing = required.filter((c) => !columns.includes(c));
  if (missing.length > 0) {
    return `${target} needs the column${missing.length > 1 ? 's' : ''} ${missing.map((c) => `"${c}"`).join(', ')}; the source has ${columns.map((c) => `"${c}"`).join(', ') || 'no columns'} (rename with AS in the query)`;
  }
  const unknown = columns.filter((c) => !allowed.includes(c));
  if (unknown.length > 0) {
    return `${target} does not know the column${unknown.length > 1 ? 's' : ''} ${unknown.map((c) => `"${c}"`).join(', ')}; it reads ${allowed.map((c) => `"${c}"`).join(', ')} (drop or rename them in the query)`;
  }
  return undefined;
}

export function isProblem(value: unknown): value is { problem: string } {
  return typeof value === 'object' && value !== null && 'problem' in value;
}
