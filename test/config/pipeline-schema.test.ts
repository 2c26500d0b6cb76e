// The pipeline file's JSON Schema: generated (the committed file is the generator's output), named by every shipped
// pipeline's first line so editors find it, accepting every file in pipelines/ and refusing each kind of bad file the
// loader refuses — checked with Ajv, the validator editors' schema engines agree with.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parsePipelineText } from '../../src/config/load-pipeline-file.js';
import { pipelineJsonSchema } from '../../src/config/pipeline-schema.js';
import { PIPELINE_YAML, REPO } from '../reliability/reliability-helpers.js';

const PIPELINES = join(REPO, 'pipelines');
const validate = new Ajv({ allErrors: true, strict: true, strictTypes: false }).compile(pipelineJsonSchema());

describe('the pipeline JSON Schema', () => {
  it('is committed as generated (regenerate with `npm run schema`)', async () => {
    const committed = JSON.parse(await readFile(join(PIPELINES, 'pipeline.schema.json'), 'utf8')) as unknown;
    expect(committed).toEqual(pipelineJsonSchema());
  });

  it('is named by the first line of every pipeline file and accepts every one of them', async () => {
    const files = (await readdir(PIPELINES)).filter((f) => f.endsWith('.yaml'));
    expect(files.length).toBeGreaterThanOrEqual(2);
    for (const f of files) {
      const text = await readFile(join(PIPELINES, f), 'utf8');
      expect(text.split('\n')[0], f).toBe('# yaml-language-server: $schema=./pipeline.schema.json');
      expect(validate(parse(text)), `${f}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    expect(validate(parse(PIPELINE_YAML)), JSON.stringify(validate.errors)).toBe(true);
  });

  // The kinds of bad file of test/reliability/bad-input.test.ts (a YAML syntax error never reaches a schema), and more.
  it.each([
    ['unknown stream', PIPELINE_YAML.replace('  custom_events:', '  custom_event:')],
    ['wrong type', PIPELINE_YAML.replace('lookback_days: 3', 'lookback_days: three')],
    ['wrong type in a list', PIPELINE_YAML.replace('segments: [seg_1] }', 'segments: [1, 2] }')],
    ['unknown key', PIPELINE_YAML.replace('lookback_days: 3', 'lookback_days: 3\nlook_back: 2')],
    [
      'unknown stream option',
      PIPELINE_YAML.replace('canvases: [cv_1, cv_2]', 'canvases: [cv_1, cv_2], canvas: [cv_3]'),
    ],
    ['empty list', PIPELINE_YAML.replace('apps: ["*", app_1]', 'apps: []')],
    ['empty streams', `${PIPELINE_YAML.slice(0, PIPELINE_YAML.indexOf('streams:'))}streams: {}\n`],
    ['not a mapping', '- just\n- a list\n'],
    ['an API key in the file', PIPELINE_YAML.replace('lookback_days: 3', 'lookback_days: 3\napi_key: abc')],
    ['"*" where ids are needed', PIPELINE_YAML.replace('canvases: [cv_1, cv_2]', 'canvases: ["*"]')],
    ['a unit that does not exist', PIPELINE_YAML.replace('unit: hour', 'unit: week')],
    [
      'a bad retries value',
      PIPELINE_YAML.replace('lookback_days: 3', 'lookback_days: 3\nretries: { max_attempts: 0 }'),
    ],
    ['a missing start_date', PIPELINE_YAML.replace(/start_date: .*\n/, '')],
  ])('refuses a file with %s, as the loader does', (_label, text) => {
    expect(validate(parse(text))).toBe(false);
    expect(() => parsePipelineText(text, 'bad.yaml')).toThrow();
  });
});
