// Runs the enclosing describe block with the machine's time zone (TZ and luxon's default) set to `zone`, and restores it.
import { Settings } from 'luxon';
import { afterAll, beforeAll } from 'vitest';

export function useMachineZone(zone: string): void {
  const saved = { tz: process.env.TZ, luxon: Settings.defaultZone };
  beforeAll(() => {
    process.env.TZ = zone;
    Settings.defaultZone = zone;
  });
  afterAll(() => {
    if (saved.tz === undefined) delete process.env.TZ;
    else process.env.TZ = saved.tz;
    Settings.defaultZone = saved.luxon;
  });
}
