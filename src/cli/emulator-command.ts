// PLACEHOLDER — replaced by the helper that owns this command.
import { Command } from 'commander';

export function makeEmulatorCommand(): Command {
  return new Command('emulator').description('(not built yet)');
}
