// The JSON Schema pieces a stream's declaration describes its pipeline-file options with; the pipeline file's schema
// (src/config/pipeline-schema.ts, pipelines/pipeline.schema.json) is assembled from the declarations.
import { ALL } from './option-reader.js';

export type OptionSchema = Record<string, unknown>;

const text = { type: 'string', minLength: 1, pattern: '\\S' };

/** A filter list where "*" means "all" (the parameter is omitted). */
export function selectorsSchema(what: string): OptionSchema {
  return { type: 'array', minItems: 1, uniqueItems: true, items: text, default: [ALL], description: `${what}; "*" = all (the parameter is omitted), one series per entry` };
}

/** A list of explicit ids: the endpoint needs one id per request, so "*" means nothing. */
export function idsSchema(what: string): OptionSchema {
  return { type: 'array', minItems: 1, uniqueItems: true, items: { ...text, not: { const: ALL } }, description: `${what} (explicit ids, "*" is not accepted)` };
}

export function flagSchema(description: string): OptionSchema {
  return { type: 'boolean', default: false, description };
}

export const UNIT_SCHEMA: OptionSchema = { enum: ['day', 'hour'], default: 'day', description: 'series unit' };

/** A stream's options block: only these keys, `required` among them; an empty block may be written as null. */
export function optionsSchema(properties: Record<string, OptionSchema>, required: string[] = []): OptionSchema {
  return { type: ['object', 'null'], additionalProperties: false, properties, ...(required.length > 0 ? { required } : {}) };
}
