// Loaded with `node --require` into a measured CLI process: when the process exits, writes its own resource usage (peak
// RSS, CPU seconds) as JSON to the file ENGAGE_BENCH_RUSAGE names, so the process measured is exactly `engage-etl …`.
import { writeFileSync } from 'node:fs';

/** What the hook writes: getrusage(RUSAGE_SELF) of the measured process at exit, DuckDB's threads included. */
export interface ProcessUsage {
  peakRssMb: number;
  cpuSeconds: number;
}

const target = process.env['ENGAGE_BENCH_RUSAGE'];
if (target) {
  process.on('exit', () => {
    const u = process.resourceUsage();
    const usage: ProcessUsage = { peakRssMb: u.maxRSS / 1024, cpuSeconds: (u.userCPUTime + u.systemCPUTime) / 1e6 };
    writeFileSync(target, JSON.stringify(usage));
  });
}
