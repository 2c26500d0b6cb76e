// Whether a process id on this host is still running, and when it started: how a lock or a staging folder of a killed
// run is told from a live one, and a live process that merely reuses a dead run's pid from the run itself.
import { readFileSync } from 'node:fs';

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// USER_HZ: the unit of /proc/<pid>/stat's start time; 100 on every Linux architecture Node supports.
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * When process `pid` started, from /proc (Linux), to within a second; undefined where /proc is not available or the
 * process does not exist. Boot time is read each call: it is the same for every process of one boot.
 */
export function processStartTime(pid: number): Date | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: fields are counted after its closing one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    const bootSeconds = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    if (!Number.isFinite(ticks) || !Number.isFinite(bootSeconds)) return undefined;
    return new Date(bootSeconds * 1000 + (ticks * 1000) / CLOCK_TICKS_PER_SECOND);
  } catch {
    return undefined;
  }
}
