// PLACEHOLDER — replaced by the helper that owns this command.
import { Command } from 'commander';

export function makeExportCommand(): Command {
  return new Command('export').description('(not built yet)');
}
