// Summarizes a `node --cpu-prof` profile: self time by file (npm packages folded into one line each) and by function,
// with each share of the profile's total. How docs/performance.md reads the demo's first run:
//   node --cpu-prof --cpu-prof-dir=prof bin/engage-etl.js run --emulator && node dist/scripts/profile-summary.js prof/*.cpuprofile
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function summarize(file: string, top: number): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  let totalUs = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    selfUs.set(id, (selfUs.get(id) ?? 0) + dt);
    totalUs += dt;
  });
  const byFile = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    const url = frame.url.replace(/^file:\/\/.*?\/(dist|node_modules)\//, '$1/');
    const where = url.includes('node_modules/')
      ? `npm:${/node_modules\/((@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? url}`
      : url || frame.functionName;
    byFile.set(where, (byFile.get(where) ?? 0) + us);
    const fn = `${frame.functionName || '(anonymous)'} ${url}:${frame.lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
  }
  const lines = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(
        ([name, us]) =>
          `${(us / 1e6).toFixed(1).padStart(8)} s ${((100 * us) / totalUs).toFixed(1).padStart(5)} %  ${name}`,
      );
  return [
    `${file}: ${(totalUs / 1e6).toFixed(1)} s sampled`,
    '  by file:',
    ...lines(byFile),
    '  by function:',
    ...lines(byFunction),
    '',
  ].join('\n');
}

const files = process.argv.slice(2);
if (files.length === 0) {
  process.stderr.write('usage: node dist/scripts/profile-summary.js PROFILE.cpuprofile…\n');
  process.exitCode = 2;
}
for (const file of files) process.stdout.write(summarize(file, 20));
