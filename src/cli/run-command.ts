// PLACEHOLDER — replaced by the helper that owns this command.
import { Command } from 'commander';

export function makeRunCommand(): Command {
  return new Command('run').description('(not built yet)');
}
