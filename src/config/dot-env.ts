// Reads a `.env` file of the working directory: ENGAGE_* variables a scheduler or a person keeps beside the data, so a
// key never has to be typed on a command line or written in a pipeline file. Precedence: flag > environment > .env.
import { readFileSync } from 'node:fs';
import { ConfigError } from '../errors.js';

/** Only the tool's own variables are taken: a `.env` shared with other tools must not change this process otherwise. */
const PREFIX = 'ENGAGE_';
const LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/;

/**
 * Parses dotenv text: `KEY=value`, `export KEY=value`, `# comments`, values in single quotes (taken literally) or double
 * quotes (`\n`, `\"` and `\\` unescaped); an unquoted value ends at ` #`. Throws ConfigError naming the line otherwise.
 */
export function parseDotEnv(text: string, file = '.env'): Record<string, string> {
  const out: Record<string, string> = {};
  text.split(/\r?\n/).forEach((raw, i) => {
    if (raw.trim() === '' || raw.trim().startsWith('#')) return;
    const m = LINE.exec(raw);
    if (!m)
      throw new ConfigError(
        `${file}:${i + 1}`,
        'is not a KEY=value line; write e.g. ENGAGE_API_KEY=... (comments start with #)',
      );
    const [, key, rest] = m as unknown as [string, string, string];
    out[key] = unquote(rest, `${file}:${i + 1}`);
  });
  return out;
}

function unquote(value: string, where: string): string {
  const q = value[0];
  if (q === '"' || q === "'") {
    const end = value.lastIndexOf(q);
    if (end === 0)
      throw new ConfigError(where, `the value opens a ${q} quote that is never closed; close it on the same line`);
    const inner = value.slice(1, end);
    return q === "'" ? inner : inner.replace(/\\([n"\\])/g, (_, c: string) => (c === 'n' ? '\n' : c));
  }
  return value.replace(/\s+#.*$/, '');
}

/**
 * Puts the ENGAGE_* variables of `<dir>/.env` into `env` where `env` does not already set them (the environment wins).
 * Returns the names it set; a missing file sets nothing.
 */
export function applyDotEnv(env: NodeJS.ProcessEnv, dir: string = process.cwd()): string[] {
  const file = `${dir}/.env`;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR') return [];
    throw new ConfigError(file, `cannot be read (${code ?? String(err)}); fix its permissions or remove it`);
  }
  const set: string[] = [];
  for (const [key, value] of Object.entries(parseDotEnv(text, file))) {
    if (!key.startsWith(PREFIX) || env[key] !== undefined) continue;
    env[key] = value;
    set.push(key);
  }
  return set;
}
