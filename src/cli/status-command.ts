// PLACEHOLDER — replaced by the helper that owns this command.
import { Command } from 'commander';

export function makeStatusCommand(): Command {
  return new Command('status').description('(not built yet)');
}
