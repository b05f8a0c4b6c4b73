/** The command word of the CLI's arguments (after the global options `--url <u>`, `--url=<u>`, `--json`), if any. */
export function commandWord(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--url') i++;
    else if (!a.startsWith('-')) return a;
  }
  return undefined;
}
