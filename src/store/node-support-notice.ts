// The AWS SDK's NodeVersionSupportWarning, said in one line. On Node < 22 the SDK's first client prints a seven-line
// process warning (its releases after January 2027 need Node 22) plus Node's `--trace-warnings` hint; on 22 and later it
// says nothing. engage-etl is tested on Node 22 and 24 (and smoke-tested on 20, past its end of life on 2026-04-30), so
// on an older Node the first S3 client of a process prints one line naming the upgrade instead, and the SDK none. A
// user who set AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true hears neither.

/** The variable the SDK reads at its first client; engage-etl sets it once it has said the line itself. */
export const SDK_WARNING_SWITCH = 'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED';

/** The oldest Node major the SDK's next releases (and engage-etl's tested range) support. */
export const OLDEST_SUPPORTED_NODE = 22;

/** The line to print on `version` (e.g. `v20.20.2`), or undefined where nothing is to be said. */
export function nodeSupportNotice(version: string, env: NodeJS.ProcessEnv): string | undefined {
  const major = Number(/^v(\d+)\./.exec(version)?.[1]);
  if (!(major < OLDEST_SUPPORTED_NODE) || env[SDK_WARNING_SWITCH] === 'true') return undefined;
  return `engage-etl: Node ${version} is past its end of life and the AWS SDK's releases after January 2027 need Node ${OLDEST_SUPPORTED_NODE} or later: upgrade to Node 24 (engage-etl is tested on 22 and 24)`;
}

/** Before a client is created: say the line once (and silence the SDK's own warning), where there is one to say. */
export function announceNodeSupport(env: NodeJS.ProcessEnv = process.env): void {
  const notice = nodeSupportNotice(process.version, env);
  if (notice === undefined) return;
  env[SDK_WARNING_SWITCH] = 'true';
  process.stderr.write(`${notice}\n`);
}
