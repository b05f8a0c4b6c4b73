/**
 * Argument parsing shared by the attr command-line tools: commander never
 * exits the process itself, so each tool returns its own exit code.
 * Usage errors → 2; `--help` / `--version` → 0 (commander has printed them).
 */
import { type Command, CommanderError } from 'commander';

/** Parses `argv` into `program`; returns an exit code when the tool should stop, undefined to go on. */
export function parseCliArgs(program: Command, argv: string[]): number | undefined {
  program.exitOverride().configureOutput({ writeErr: (s) => process.stderr.write(s) });
  try {
    program.parse(argv, { from: 'user' });
    return undefined;
  } catch (err) {
    return err instanceof CommanderError && err.exitCode === 0 ? 0 : 2;
  }
}
