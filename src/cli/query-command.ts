// PLACEHOLDER — replaced by the helper that owns this command.
import { Command } from 'commander';

export function makeQueryCommand(): Command {
  return new Command('query').description('(not built yet)');
}
