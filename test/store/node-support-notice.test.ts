// The AWS SDK's seven-line NodeVersionSupportWarning never reaches a user: on Node 22 and 24 an S3 client prints
// nothing, on Node 20 the first one prints one line naming the upgrade, and with the SDK's own switch set, nothing.
// Each case is a child process on that Node, importing the built client (dist/) as the CLI does.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SDK_WARNING_SWITCH, nodeSupportNotice } from '../../src/store/node-support-notice.js';
import { nodeOfMajor } from '../helpers/node-binaries.js';
import { whenToolMissing } from '../helpers/optional-tool.js';

const CLIENT = pathToFileURL(resolve('dist/src/store/s3-client.js')).href;

/** stderr of a child on `node` that creates two S3 clients (the second must add nothing). */
function clientStderr(node: string, env: Record<string, string> = {}): string {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== SDK_WARNING_SWITCH)) as Record<
    string,
    string
  >;
  const child = spawnSync(
    node,
    [
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(CLIENT)}); m.createS3Client(); m.createS3Client();`,
    ],
    { env: { ...base, ...env }, encoding: 'utf8' },
  );
  expect(child.status, child.stderr).toBe(0);
  return child.stderr;
}

describe('the Node support notice', () => {
  it("is one line on Node 20 and below, nothing from 22 on or when the SDK's switch is set", () => {
    expect(nodeSupportNotice('v20.20.2', {})).toMatch(
      /^engage-etl: Node v20\.20\.2 is past its end of life .*: upgrade to Node 24 \(engage-etl is tested on 22 and 24\)$/,
    );
    expect(nodeSupportNotice('v18.0.0', {})).toContain('upgrade to Node 24');
    expect(nodeSupportNotice('v20.20.2', { [SDK_WARNING_SWITCH]: 'true' })).toBeUndefined();
    expect(nodeSupportNotice('v22.23.3', {})).toBeUndefined();
    expect(nodeSupportNotice('v24.21.0', {})).toBeUndefined();
  });
});

const node20 = nodeOfMajor(20);
whenToolMissing(node20, 'the S3 client on Node 20');
describe.runIf(node20.available)('an S3 client on Node 20', () => {
  it("prints the one line instead of the SDK's warning, once per process", () => {
    const stderr = clientStderr(node20.path);
    expect(stderr.split('\n').filter(Boolean)).toEqual([
      expect.stringMatching(/^engage-etl: Node v20\.\d+\.\d+ is past its end of life .*upgrade to Node 24/),
    ]);
    expect(stderr).not.toContain('NodeVersionSupportWarning');
  });

  it("prints nothing when the user set the SDK's switch", () => {
    expect(clientStderr(node20.path, { [SDK_WARNING_SWITCH]: 'true' })).toBe('');
  });
});

for (const major of [22, 24]) {
  const node = nodeOfMajor(major);
  whenToolMissing(node, `the S3 client on Node ${major}`);
  describe.runIf(node.available)(`an S3 client on Node ${major}`, () => {
    it('prints nothing', () => {
      expect(clientStderr(node.path)).toBe('');
    });
  });
}
