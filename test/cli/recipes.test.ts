// The recipes under docs/recipes hold together: the workflow is valid YAML with a schedule, the secret, the cache and
// the artifacts; the Airflow and Dagster files are valid Python (where python3 exists) that treat exit 3 as success;
// the Dockerfile runs as a non-root user with data in a volume and its default command parses; cron, systemd and
// logrotate agree on the log file and call node by its absolute path; the Kubernetes CronJob keeps everything in a bucket.
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { makeProgram } from '../../src/cli/main.js';
import { optionalTool, whenToolMissing } from '../helpers/optional-tool.js';
import { REPO } from '../reliability/reliability-helpers.js';

const RECIPES = join(REPO, 'docs', 'recipes');
const read = (name: string) => readFile(join(RECIPES, name), 'utf8');

interface Step {
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
}

describe('the GitHub Actions workflow', () => {
  it('parses, runs nightly with the key from secrets, carries the DuckDB file in the cache and uploads Parquet and the report', async () => {
    const wf = parse(await read('github-actions-nightly.yml')) as { on: { schedule: { cron: string }[] }; jobs: Record<string, { steps: Step[] }> };
    expect(wf.on.schedule[0]!.cron).toMatch(/^\d+ \d+ \* \* \*$/);
    const steps = Object.values(wf.jobs)[0]!.steps;
    const run = steps.find((s) => s.run?.includes('engage-etl.js run'))!;
    expect(run.env?.['ENGAGE_API_KEY']).toBe('${{ secrets.ENGAGE_API_KEY }}');
    expect(run.run).toMatch(/"\$code" -eq 3/);
    const restore = steps.findIndex((s) => s.uses?.startsWith('actions/cache/restore'));
    const save = steps.findIndex((s) => s.uses?.startsWith('actions/cache/save'));
    expect(restore).toBeGreaterThanOrEqual(0);
    expect(restore).toBeLessThan(steps.indexOf(run));
    expect(save).toBeGreaterThan(steps.indexOf(run));
    expect(steps[restore]!.with?.['path']).toBe('data/engage.duckdb');
    expect(steps[save]!.with?.['path']).toBe('data/engage.duckdb');
    const uploaded = steps.filter((s) => s.uses?.startsWith('actions/upload-artifact')).map((s) => s.with?.['path']);
    expect(uploaded).toEqual(['data/parquet', 'data/report']);
    expect(steps.some((s) => s.run?.includes('npm ci'))).toBe(false);
  });
});

const pythonTool = optionalTool('python3', 'apt-get install python3-minimal', { command: 'python3', args: ['--version'] });
whenToolMissing(pythonTool, 'the Python recipes\' ast.parse check');

describe('the Airflow DAG and the Dagster asset', () => {
  const python = pythonTool.available;

  it.each(['airflow_engage_etl.py', 'dagster_engage_etl.py'])('%s treats exit 3 as succeeded with warnings and exit 2 as not worth retrying', async (name) => {
    const text = await read(name);
    expect(text).toMatch(/COMPLETED_WITH_WARNINGS = 3/);
    expect(text).toMatch(/USAGE_ERROR = 2/);
    expect(text).not.toMatch(/npx/);
  });

  it.runIf(python).each(['airflow_engage_etl.py', 'dagster_engage_etl.py'])('%s is valid Python (ast.parse)', (name) => {
    const out = execFileSync('python3', ['-c', 'import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1]); print("ok")', join(RECIPES, name)], { encoding: 'utf8' });
    expect(out.trim()).toBe('ok');
  });

});

describe('the Dockerfile', () => {
  it('builds on node:24-slim with npm install, runs as a non-root user with data in a volume, and its default command parses', async () => {
    const text = await read('Dockerfile');
    const instructions = text.split('\n').filter((l) => /^[A-Z]+ /.test(l));
    expect(instructions[0]).toBe('FROM node:24-slim');
    expect(instructions).toContain('USER node');
    expect(instructions).toContain('VOLUME ["/data"]');
    expect(text).toMatch(/RUN npm install --no-audit --no-fund/);
    expect(text).not.toMatch(/^RUN npm ci/m);
    expect(text).not.toMatch(/ENGAGE_API_KEY=/);
    const entry = JSON.parse(instructions.find((l) => l.startsWith('ENTRYPOINT '))!.slice('ENTRYPOINT '.length)) as string[];
    expect(entry).toEqual(['node', '/app/bin/engage-etl.js']);
    const cmd = JSON.parse(instructions.find((l) => l.startsWith('CMD '))!.slice('CMD '.length)) as string[];
    expect(cmd.slice(cmd.indexOf('--db'), cmd.indexOf('--db') + 2)).toEqual(['--db', '/data/engage.duckdb']);
    const program = makeProgram();
    for (const c of [program, ...program.commands]) {
      c.exitOverride().configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
      if (c !== program) c.action(() => undefined);
    }
    expect(() => program.parse(cmd, { from: 'user' })).not.toThrow(CommanderError);
  });
});

describe('cron, systemd and logrotate', () => {
  it('call node by its absolute path, accept exit 3, and rotate the file the runs append to', async () => {
    const cron = (await read('crontab')).split('\n').filter((l) => /^\d/.test(l));
    const service = await read('engage-etl.service');
    const logrotate = await read('logrotate.conf');
    const log = '/var/log/engage-etl/run.jsonl';
    expect(cron.length).toBeGreaterThan(0);
    for (const line of cron) expect(line).toMatch(/ \/usr\/bin\/node bin\/engage-etl\.js /);
    expect(cron.join('\n')).not.toMatch(/\bnpx\b/);
    expect(cron[0]).toContain(`>> ${log} 2>&1`);
    expect(service).toMatch(/^ExecStart=\/usr\/bin\/node \/srv\/engage-etl\/bin\/engage-etl\.js run --json/m);
    expect(service).toMatch(/^SuccessExitStatus=3$/m);
    expect(service).toContain(`append:${log}`);
    expect(logrotate).toContain(`${log} {`);
    expect(logrotate).not.toMatch(/^\s*copytruncate/m);
    expect(await read('engage-etl.timer')).toMatch(/^OnCalendar=\*-\*-\* 02:30:00 UTC$/m);
  });
});

describe('the Kubernetes CronJob', () => {
  interface Container { name: string; command: string[]; args: string[]; env: { name: string; value?: string; valueFrom?: { secretKeyRef?: { key: string } } }[] }
  interface PodSpec { volumes?: unknown[]; restartPolicy: string; containers: (Container & { volumeMounts?: unknown[] })[] }

  it('keeps state and output in the bucket (no volume), the key in a Secret, treats exit 3 as success and exit 2 as final, and its args parse', async () => {
    const job = parse(await read('k8s-cronjob.yaml')) as {
      kind: string;
      spec: { schedule: string; concurrencyPolicy: string; jobTemplate: { spec: { podFailurePolicy: { rules: { action: string; onExitCodes: { values: number[] } }[] }; template: { spec: PodSpec } } } };
    };
    expect(job.kind).toBe('CronJob');
    expect(job.spec.schedule).toMatch(/^\d+ \d+ \* \* \*$/);
    expect(job.spec.concurrencyPolicy).toBe('Forbid');
    const pod = job.spec.jobTemplate.spec.template.spec;
    expect(pod.volumes).toBeUndefined();
    const [container] = pod.containers;
    expect(container!.volumeMounts).toBeUndefined();
    const flag = (name: string) => container!.args[container!.args.indexOf(name) + 1];
    expect(flag('--db')).toMatch(/^s3:\/\/[a-z0-9.-]+\/.+\.duckdb$/);
    expect(flag('--out')).toMatch(/^s3:\/\/[a-z0-9.-]+\/.+/);
    const env = new Map(container!.env.map((e) => [e.name, e]));
    expect(env.get('ENGAGE_API_KEY')?.valueFrom?.secretKeyRef?.key).toBe('ENGAGE_API_KEY');
    expect(env.get('ENGAGE_API_KEY')?.value).toBeUndefined();
    expect(env.get('AWS_SECRET_ACCESS_KEY')?.value).toBeUndefined();
    expect(container!.command.join(' ')).toMatch(/"\$code" -eq 3 \]; then exit 0/);
    expect(job.spec.jobTemplate.spec.podFailurePolicy.rules.find((r) => r.action === 'FailJob')?.onExitCodes.values).toEqual([2]);
    const program = makeProgram();
    for (const c of [program, ...program.commands]) {
      c.exitOverride().configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
      if (c !== program) c.action(() => undefined);
    }
    expect(() => program.parse(container!.args, { from: 'user' })).not.toThrow(CommanderError);
  });
});
