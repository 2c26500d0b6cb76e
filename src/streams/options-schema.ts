// The JSON Schema of a stream's options, derived from its declaration: the declaration's own `read` runs against a
// reader that records what it asks for (a unit, a flag, a selector list, an id list) instead of reading a file. So the
// schema editors validate with can never disagree with what the loader accepts, and a new stream brings its own.
import { parse } from 'yaml';
import type { SeriesUnit } from '../api/types.js';
import { ALL, ALL_OBJECTS } from './option-reader.js';
import type { OptionReader } from './option-reader.js';
import type { StreamDeclaration } from './stream-declaration.js';

export type JsonSchema = Record<string, unknown>;

const text = { type: 'string', minLength: 1, pattern: '\\S' };

/** The options block of `stream` as a JSON Schema (draft-07): its keys, their types, defaults and what is required. */
export function optionsSchemaOf(stream: Pick<StreamDeclaration, 'options' | 'description'>): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const recorder: OptionReader = {
    unit(allowed: readonly SeriesUnit[]) {
      properties['unit'] = {
        enum: [...allowed],
        default: allowed[0],
        description:
          allowed.length === 1 ? `a ${allowed[0] === 'day' ? 'daily' : 'hourly'} series only` : 'series unit',
      };
      return allowed[0] ?? 'day';
    },
    boolean(key) {
      properties[key] = { type: 'boolean', default: false };
      return false;
    },
    selectors(key, example) {
      properties[key] = {
        type: 'array',
        minItems: 1,
        uniqueItems: true,
        items: text,
        default: [ALL],
        description: `"*" = all (the parameter is omitted), one series per entry; e.g. ${example}`,
      };
      return [ALL];
    },
    ids(key, example) {
      properties[key] = {
        type: 'array',
        minItems: 1,
        uniqueItems: true,
        items: { ...text, not: { const: ALL } },
        description: `explicit ids ("*" is not accepted): ${example}`,
      };
      required.push(key);
      return [];
    },
    idSelection(key, example, opts) {
      const list = {
        type: 'array',
        minItems: 1,
        uniqueItems: true,
        items: opts?.aggregate ? text : { ...text, not: { const: ALL } },
      };
      properties[key] = {
        oneOf: [{ const: ALL_OBJECTS }, list],
        ...(opts?.aggregate ? { default: [ALL] } : {}),
        description: `${ALL_OBJECTS} = every object the workspace lists (alone or in the list)${opts?.aggregate ? ', "*" = the aggregate' : ''}; e.g. ${example}`,
      };
      if (!opts?.aggregate) required.push(key);
      return { all: false, ids: opts?.aggregate ? [ALL] : [] };
    },
    choice(key, allowed) {
      properties[key] = { enum: [...allowed], default: allowed[0] };
      return allowed[0]!;
    },
    idsOr(key, word, example) {
      properties[key] = {
        oneOf: [
          { const: word },
          { type: 'array', minItems: 1, uniqueItems: true, items: { ...text, not: { const: ALL } } },
        ],
        description: `explicit ids, or ${word}: ${example}`,
      };
      required.push(key);
      return [];
    },
    subset(key, allowed) {
      properties[key] = {
        type: 'array',
        minItems: 1,
        uniqueItems: true,
        items: { enum: [...allowed] },
        default: [...allowed],
      };
      return allowed;
    },
    fail(): never {
      throw new Error('the options recorder never refuses');
    },
  };
  stream.options.read(recorder);
  for (const key of stream.options.keys) properties[key] ??= {};
  return {
    type: ['object', 'null'],
    description: stream.description,
    additionalProperties: false,
    properties,
    ...(required.length > 0 ? { required } : {}),
    examples: [parse(stream.options.example) as unknown],
  };
}
