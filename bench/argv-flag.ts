// The value after `--name` on a bench's command line, or undefined when the flag is absent.
export function flag(name: string, argv: readonly string[] = process.argv): string | undefined {
  const at = argv.indexOf(name);
  return at === -1 ? undefined : argv[at + 1];
}
