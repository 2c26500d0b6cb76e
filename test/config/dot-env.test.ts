// The .env reader: dotenv's common syntax, ENGAGE_* variables only, and the environment always wins over the file.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyDotEnv, parseDotEnv } from '../../src/config/dot-env.js';
import { ConfigError } from '../../src/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'engage-dotenv-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('parseDotEnv', () => {
  it('reads plain, exported, single- and double-quoted values, and skips comments and blank lines', () => {
    const text = [
      '# a comment',
      '',
      'ENGAGE_API_KEY=abc-123 # trailing comment',
      'export ENGAGE_BASE_URL = https://rest.example.com/x#frag',
      "ENGAGE_A='kept $literally # here'",
      'ENGAGE_B="line\\none \\"quoted\\""',
      'ENGAGE_EMPTY=',
    ].join('\n');
    expect(parseDotEnv(text)).toEqual({
      ENGAGE_API_KEY: 'abc-123',
      ENGAGE_BASE_URL: 'https://rest.example.com/x#frag',
      ENGAGE_A: 'kept $literally # here',
      ENGAGE_B: 'line\none "quoted"',
      ENGAGE_EMPTY: '',
    });
  });

  it('names the line of a line that is not KEY=value, and of an unclosed quote', () => {
    expect(() => parseDotEnv('A=1\nnot a pair\n')).toThrow(/\.env:2: is not a KEY=value line/);
    expect(() => parseDotEnv('A="open\n')).toThrow(ConfigError);
  });
});

describe('applyDotEnv', () => {
  it('sets the ENGAGE_* variables the environment lacks, never overriding it, and nothing else', () => {
    writeFileSync(join(dir, '.env'), 'ENGAGE_API_KEY=from-file\nENGAGE_BASE_URL=http://file\nPATH=/nowhere\n');
    const env: NodeJS.ProcessEnv = { ENGAGE_BASE_URL: 'http://env', PATH: '/usr/bin' };
    expect(applyDotEnv(env, dir)).toEqual(['ENGAGE_API_KEY']);
    expect(env).toEqual({ ENGAGE_API_KEY: 'from-file', ENGAGE_BASE_URL: 'http://env', PATH: '/usr/bin' });
  });

  it('sets nothing when there is no .env', () => {
    const env: NodeJS.ProcessEnv = {};
    expect(applyDotEnv(env, join(dir, 'missing'))).toEqual([]);
    expect(env).toEqual({});
  });
});
