// Small checks shared by the write routes: body shapes, id lists with size limits, E.164 and email syntax.
// Each check answers a message naming the field, the value and the fix, never throws.

import { show } from '../people/plain-values.js';

export { isPlainObject, show } from '../people/plain-values.js';

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

/** E.164: a plus sign and up to 15 digits, no leading zero. */
export const E164 = /^\+[1-9]\d{1,14}$/;
/** Deliberately loose: one @, something on both sides, a dot in the domain. */
export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface ListRule {
  /** Field name as the client wrote it, for messages. */
  field: string;
  max: number;
  /** Accept a lone string as a one-element list. */
  allowSingle: boolean;
  /** Accept an empty list (for a list the spec bounds only from above, e.g. 4.1's "up to 50 external IDs"). @default false */
  allowEmpty?: boolean;
  /** Syntax every element must match, with a description for the message. */
  pattern?: { re: RegExp; what: string };
}

/** A list of strings of at most `max` elements, non-empty unless allowed (or a lone string when allowed). */
export function stringList(value: unknown, rule: ListRule): Checked<string[]> {
  const list = typeof value === 'string' && rule.allowSingle ? [value] : value;
  if (!Array.isArray(list)) {
    return {
      ok: false,
      message: `${rule.field} must be ${rule.allowSingle ? 'a string or ' : ''}an array of strings, got ${show(value)}`,
    };
  }
  if (list.length === 0 && rule.allowEmpty !== true)
    return { ok: false, message: `${rule.field} is empty: send between 1 and ${rule.max} values` };
  if (list.length > rule.max) {
    return {
      ok: false,
      message: `${rule.field} has ${list.length} values, more than the ${rule.max} allowed per request: split it into several requests`,
    };
  }
  for (const [i, el] of list.entries()) {
    if (typeof el !== 'string' || el.length === 0)
      return { ok: false, message: `${rule.field}[${i}] must be a non-empty string, got ${show(el)}` };
    if (rule.pattern && !rule.pattern.re.test(el)) {
      return { ok: false, message: `${rule.field}[${i}] ${show(el)} is not ${rule.pattern.what}` };
    }
  }
  return { ok: true, value: list as string[] };
}

/** 201 `{ message: "success" }`: what the live service answers to POST writes (recorded). */
export const CREATED_SUCCESS = { status: 201, body: { message: 'success' } } as const;
