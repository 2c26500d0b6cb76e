// The recipes under docs/recipes hold together: the workflow is valid YAML with a schedule, the secret, the cache and
// the artifacts; the Airflow and Dagster files are valid Python (where python3 exists) that treat exit 3 as success;
// the Dockerfile runs as a non-root user with data in a volume and its default command parses; cron, systemd and
// logrotate agree on the log file and call node by its absolute path; the Kubernetes CronJob keeps everything in a bucket.
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CommanderError } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { makeProgram } from '../../src/cli/main.js';
import { parseDuration } from '../../src/config/duration.js';
import { optionalTool, whenToolMissing } from '../helpers/optional-tool.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import type { Emulator } from '../../src/emulator/server.js';
import {
  CLI,
  PIPELINE_YAML,
  REPO,
  UNTIL,
  makeTarget,
  runCli,
  runInProcess,
  startEmulator,
} from '../reliability/reliability-helpers.js';
import { download, listKeys, s3Suite, tableDifferences } from '../store/s3-fixtures.js';

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
  it('parses, runs nightly with the key from secrets within its timeout, carries the database and its working copy in the cache and uploads Parquet and the report', async () => {
    const wf = parse(await read('github-actions-nightly.yml')) as {
      on: { schedule: { cron: string }[] };
      jobs: Record<string, { steps: Step[] }>;
    };
    expect(wf.on.schedule[0]!.cron).toMatch(/^\d+ \d+ \* \* \*$/);
    const steps = Object.values(wf.jobs)[0]!.steps;
    const run = steps.find((s) => s.run?.includes('engage-etl.js run'))!;
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a JavaScript template
    expect(run.env?.['ENGAGE_API_KEY']).toBe('${{ secrets.ENGAGE_API_KEY }}');
    expect(run.run).toMatch(/"\$code" -eq 3/);
    const restore = steps.findIndex((s) => s.uses?.startsWith('actions/cache/restore'));
    const save = steps.findIndex((s) => s.uses?.startsWith('actions/cache/save'));
    expect(restore).toBeGreaterThanOrEqual(0);
    expect(restore).toBeLessThan(steps.indexOf(run));
    expect(save).toBeGreaterThan(steps.indexOf(run));
    // The published file and the working copy beside it (what a run that did not finish committed), not the lock.
    const cached = ['data/engage.duckdb', 'data/.engage.duckdb.*'];
    expect(String(steps[restore]!.with?.['path']).trim().split('\n')).toEqual(cached);
    expect(String(steps[save]!.with?.['path']).trim().split('\n')).toEqual(cached);
    expect(steps[save]!.if).toContain(`hashFiles('data/engage.duckdb', 'data/.engage.duckdb.*')`);
    // The budget ends the run well before the job's timeout: it publishes what it committed instead of being killed.
    const timeout = (Object.values(wf.jobs)[0] as unknown as { 'timeout-minutes': number })['timeout-minutes'];
    expect(
      timeout * 60_000 - parseDuration(/--time-budget (\S+)/.exec(run.run!)![1]!, '--time-budget'),
    ).toBeGreaterThanOrEqual(15 * 60_000);
    const uploaded = steps.filter((s) => s.uses?.startsWith('actions/upload-artifact')).map((s) => s.with?.['path']);
    expect(uploaded).toEqual(['data/parquet', 'data/report']);
    expect(steps.some((s) => s.run?.includes('npm ci'))).toBe(false);
  });
});

const pythonTool = optionalTool('python3', 'apt-get install python3-minimal', {
  command: 'python3',
  args: ['--version'],
});
whenToolMissing(pythonTool, "the Python recipes' ast.parse check");

describe('the Airflow DAG and the Dagster asset', () => {
  const python = pythonTool.available;

  it.each(['airflow_engage_etl.py', 'dagster_engage_etl.py'])(
    "%s treats exit 3 as succeeded with warnings, exit 1 and 2 as not worth retrying, and runs the user's own file",
    async (name) => {
      const text = await read(name);
      expect(text).toMatch(/COMPLETED_WITH_WARNINGS = 3/);
      expect(text).toMatch(/NOT_WORTH_RETRYING = \(1, 2\)/);
      expect(text).toMatch(/ENGAGE_ETL_RUN = "bin\/engage-etl\.js run --pipeline pipelines\/workspace\.yaml /);
      expect(text).toContain('engage-etl.js init --output pipelines/workspace.yaml');
      expect(text).not.toMatch(/npx/);
    },
  );

  it.runIf(python).each(['airflow_engage_etl.py', 'dagster_engage_etl.py'])(
    '%s is valid Python (ast.parse)',
    (name) => {
      const out = execFileSync(
        'python3',
        ['-c', 'import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1]); print("ok")', join(RECIPES, name)],
        { encoding: 'utf8' },
      );
      expect(out.trim()).toBe('ok');
    },
  );
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
    const entry = JSON.parse(
      instructions.find((l) => l.startsWith('ENTRYPOINT '))!.slice('ENTRYPOINT '.length),
    ) as string[];
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
    expect(service).toMatch(
      /^ExecStart=\/usr\/bin\/node \/srv\/engage-etl\/bin\/engage-etl\.js run --pipeline pipelines\/workspace\.yaml --json/m,
    );
    expect(service).toMatch(/^SuccessExitStatus=3$/m);
    expect(service).toContain(`append:${log}`);
    expect(logrotate).toContain(`${log} {`);
    expect(logrotate).not.toMatch(/^\s*copytruncate/m);
    expect(await read('engage-etl.timer')).toMatch(/^OnCalendar=\*-\*-\* 02:30:00 UTC$/m);
  });
});

describe('the Kubernetes CronJob', () => {
  interface Container {
    name: string;
    command: string[];
    args: string[];
    env: { name: string; value?: string; valueFrom?: { secretKeyRef?: { key: string } } }[];
  }
  interface PodSpec {
    volumes?: unknown[];
    restartPolicy: string;
    terminationGracePeriodSeconds?: number;
    containers: (Container & { volumeMounts?: unknown[] })[];
  }

  it('keeps state and output in the bucket (no volume), the key in a Secret, treats exit 3 as success and exit 1 and 2 as final, ends its run before the deadline, and its args parse', async () => {
    const job = parse(await read('k8s-cronjob.yaml')) as {
      kind: string;
      spec: {
        schedule: string;
        concurrencyPolicy: string;
        jobTemplate: {
          spec: {
            activeDeadlineSeconds: number;
            podFailurePolicy: { rules: { action: string; onExitCodes: { values: number[] } }[] };
            template: { spec: PodSpec };
          };
        };
      };
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
    expect(
      job.spec.jobTemplate.spec.podFailurePolicy.rules.find((r) => r.action === 'FailJob')?.onExitCodes.values,
    ).toEqual([1, 2]);
    // The run's budget ends it at least 15 minutes before the deadline kills the pod; SIGTERM leaves time for a checkpoint.
    const deadlineMs = job.spec.jobTemplate.spec.activeDeadlineSeconds * 1000;
    expect(deadlineMs - parseDuration(flag('--time-budget')!, '--time-budget')).toBeGreaterThanOrEqual(15 * 60_000);
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(60);
    const program = makeProgram();
    for (const c of [program, ...program.commands]) {
      c.exitOverride().configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
      if (c !== program) c.action(() => undefined);
    }
    expect(() => program.parse(container!.args, { from: 'user' })).not.toThrow(CommanderError);
  });
});

interface Ended {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Each recipe's own command line through an interrupted first backfill (SIGTERM in the middle) and the next run, with
 * what the recipe keeps between runs and nothing else: the folder of cron (systemd runs the same line) and of the
 * container's volume, the Actions cache's paths copied into a new checkout, the CronJob's bucket with a new empty pod
 * folder (the Airflow and Dagster tasks run the cron line, quieter: `--log-level warn`). Against the emulator (slow
 * answers) and s3rver. Added to each command: `--until` (the emulator's clock stands still) and `--max-in-flight 4`
 * (the run is still fetching when SIGTERM comes); taken out: `--time-budget`, hours long, which a run of seconds never
 * reaches (its end is tested with the run).
 */
describe('each recipe through an interrupted first backfill and the next run', () => {
  const suite = s3Suite('engage-etl-recipes-');
  let slow: Emulator;
  let clean: string;

  beforeAll(async () => {
    slow = await startEmulator({ latencyMs: 200 });
    const target = await makeTarget(suite.dir, 'clean');
    await runInProcess(suite.em, target);
    clean = target.db;
  }, 120_000);
  afterAll(async () => {
    await slow?.close();
  });

  /** The recipe's arguments with the test's additions and without the budget. */
  function forTest(args: readonly string[]): string[] {
    const out = [...args];
    const budget = out.indexOf('--time-budget');
    if (budget >= 0) out.splice(budget, 2);
    return [...out, '--until', UNTIL, '--max-in-flight', '4'];
  }

  /** Start `command` as the scheduler would, with only the environment given (and PATH, HOME, TZ). */
  function start(
    command: string,
    args: string[],
    opts: { cwd: string; env: Record<string, string> },
  ): { child: ChildProcess; done: Promise<Ended> } {
    const child = spawn(command, args, {
      cwd: opts.cwd,
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', TZ: 'UTC', ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const ended: Ended = { code: null, stdout: '', stderr: '' };
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (ended.stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (ended.stderr += d));
    return { child, done: new Promise((resolve) => child.once('close', (code) => resolve({ ...ended, code }))) };
  }

  /** Start `command`, SIGTERM it once it has committed a few times, and wait for its end. */
  async function interrupted(
    command: string,
    args: string[],
    opts: { cwd: string; env: Record<string, string> },
  ): Promise<Ended> {
    const { child, done } = start(command, args, opts);
    let seen = '';
    await new Promise<void>((resolve) => {
      child.stderr!.on('data', (d: string) => {
        seen += d;
        if ((seen.match(/"type":"committed"/g) ?? []).length >= 4) resolve();
      });
      void done.then(() => resolve());
    });
    child.kill('SIGTERM');
    return done;
  }

  // The database stays where it is between runs (the server's checkout, the container's volume): the working copy
  // beside it holds what the stopped run committed.
  it.each([
    [
      'crontab',
      async () => {
        const line = (await read('crontab')).split('\n').find((l) => l.includes('engage-etl.js run'))!;
        return line
          .slice(line.indexOf('engage-etl.js') + 'engage-etl.js'.length, line.indexOf('>>'))
          .trim()
          .split(/\s+/);
      },
    ],
    [
      'Dockerfile',
      async () => {
        const cmd = (await read('Dockerfile')).split('\n').find((l) => l.startsWith('CMD '))!;
        return JSON.parse(cmd.slice('CMD '.length)) as string[];
      },
    ],
  ])(
    '%s: the next run in the same folder resumes the first backfill and ends equal to an uninterrupted run',
    async (name, recipeArgs) => {
      const folder = join(suite.dir, `local-${name}`);
      await mkdir(join(folder, 'pipelines'), { recursive: true });
      await writeFile(join(folder, 'pipelines', 'workspace.yaml'), PIPELINE_YAML);
      // The image's /app and /data are this folder.
      const args = forTest(
        (await recipeArgs()).map((a) => a.replace(/^\/app\//, `${folder}/`).replace(/^\/data\//, `${folder}/data/`)),
      );
      const env = { ENGAGE_API_KEY: slow.demoApiKey, ENGAGE_BASE_URL: slow.url };
      const stopped = await interrupted(process.execPath, [CLI, ...args], { cwd: folder, env });
      expect(stopped.code, stopped.stderr.slice(-800)).toBe(EXIT.interrupted);
      const resumed = await runCli(args, env, folder);
      expect(resumed.code, resumed.stderr.slice(-800)).toBe(0);
      expect(await tableDifferences(clean, join(folder, 'data', 'engage.duckdb'))).toEqual({});
    },
    240_000,
  );

  it('GitHub Actions: a new checkout with only the cached paths resumes the first backfill and ends equal to an uninterrupted run', async () => {
    const wf = parse(await read('github-actions-nightly.yml')) as { jobs: Record<string, { steps: Step[] }> };
    const steps = Object.values(wf.jobs)[0]!.steps;
    const line = steps
      .find((s) => s.run?.includes('engage-etl.js run'))!
      .run!.split('\n')
      .find((l) => l.includes('engage-etl.js run'))!;
    const args = forTest(
      line
        .slice(line.indexOf('engage-etl.js') + 'engage-etl.js'.length, line.indexOf('>'))
        .trim()
        .split(/\s+/),
    );
    const cached = String(steps.find((s) => s.uses?.startsWith('actions/cache/save'))!.with?.['path'])
      .trim()
      .split('\n');
    const checkout = async (name: string) => {
      const dir = join(suite.dir, name);
      await mkdir(join(dir, 'pipelines'), { recursive: true });
      await mkdir(join(dir, 'data', 'report'), { recursive: true });
      await writeFile(join(dir, 'pipelines', 'workspace.yaml'), PIPELINE_YAML);
      return dir;
    };
    const env = { ENGAGE_API_KEY: slow.demoApiKey, ENGAGE_BASE_URL: slow.url };

    const first = await checkout('gha-1');
    const stopped = await interrupted(process.execPath, [CLI, ...args], { cwd: first, env });
    expect(stopped.code, stopped.stderr.slice(-800)).toBe(EXIT.interrupted);
    expect(existsSync(join(first, 'data', 'engage.duckdb')), 'the first run was not interrupted').toBe(false);

    // The cache: what its paths match, and nothing else, reaches the next job.
    const next = await checkout('gha-2');
    const matches = (rel: string) =>
      cached.some((pattern) => new RegExp(`^${pattern.replace(/\./g, '\\.').replace(/\*/g, '[^/]*')}$`).test(rel));
    const kept = (await readdir(join(first, 'data'))).map((f) => `data/${f}`).filter(matches);
    expect(kept).toContain('data/.engage.duckdb.work');
    for (const rel of kept) await copyFile(join(first, rel), join(next, rel));
    const resumed = await runCli(args, env, next);
    expect(resumed.code, resumed.stderr.slice(-800)).toBe(0);
    expect(await tableDifferences(clean, join(next, 'data', 'engage.duckdb'))).toEqual({});
  }, 240_000);

  it("Kubernetes CronJob: SIGTERM to the pod's shell reaches the run, which keeps a checkpoint in the bucket; a new pod resumes from it and ends equal to an uninterrupted run", async () => {
    const job = parse(await read('k8s-cronjob.yaml')) as {
      spec: { jobTemplate: { spec: { template: { spec: { containers: { command: string[]; args: string[] }[] } } } } };
    };
    const [container] = job.spec.jobTemplate.spec.template.spec.containers;
    const pipeline = (await makeTarget(suite.dir, 'k8s')).pipeline;
    const db = `s3://${suite.store.bucket}/k8s/engage.duckdb`;
    const podArgs = async (pod: string) => {
      const args = forTest(container!.args);
      const set = (flag: string, value: string) => void (args[args.indexOf(flag) + 1] = value);
      set('--pipeline', pipeline);
      set('--db', db);
      set('--out', `s3://${suite.store.bucket}/k8s-parquet`);
      const work = join(suite.dir, pod);
      await mkdir(work);
      set('--work-dir', work);
      return args;
    };
    const [shell, ...shellArgs] = container!.command.map((word) => word.replace('/app/bin/engage-etl.js', CLI));
    const env = { ...suite.store.env, ENGAGE_API_KEY: slow.demoApiKey, ENGAGE_BASE_URL: slow.url };

    const stopped = await interrupted(shell!, [...shellArgs, ...(await podArgs('pod-1'))], { cwd: suite.dir, env });
    expect(stopped.code, stopped.stderr.slice(-800)).toBe(EXIT.interrupted);
    expect(stopped.stdout).toContain('"status":"interrupted"');
    const keys = (await listKeys(suite.s3, suite.store.bucket, 'k8s/')).map((o) => o.key);
    expect(keys).toContain('k8s/engage.duckdb.checkpoint.json');
    expect(keys).not.toContain('k8s/engage.duckdb');

    const resumed = await start(shell!, [...shellArgs, ...(await podArgs('pod-2'))], { cwd: suite.dir, env }).done;
    expect(resumed.code, resumed.stderr.slice(-800)).toBe(0);
    expect(resumed.stderr).toContain('"code":"checkpoint_resumed"');
    const published = join(suite.dir, 'k8s-published.duckdb');
    await download(suite.s3, suite.store.bucket, 'k8s/engage.duckdb', published);
    expect(await tableDifferences(clean, published)).toEqual({});
  }, 240_000);
});
