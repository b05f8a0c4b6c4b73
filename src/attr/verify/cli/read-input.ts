/**
 * File reading for the verifier CLIs: JSON documents and display texts.
 * Failures become a usage error (exit 2) with a message naming the file.
 */
import { readFileSync } from 'node:fs';

export class CliUsageError extends Error {}

export function readJsonFile(path: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new CliUsageError(`cannot read ${what} file ${path}`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new CliUsageError(`${what} file ${path} is not valid JSON`);
  }
}

export function readTextFile(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    throw new CliUsageError(`cannot read ${what} file ${path}`);
  }
}

/**
 * Runs a verifier command: parse with commander, print the JSON report, exit
 * 0 when it passes, 1 when it does not, 2 on usage or input errors.
 */
export function runVerifierCommand(produce: () => { passed: boolean; report: unknown }): void {
  try {
    const { passed, report } = produce();
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    process.exitCode = passed ? 0 : 1;
  } catch (err) {
    if (err instanceof CliUsageError) {
      process.stderr.write(`error: ${err.message}\n`);
      process.exitCode = 2;
      return;
    }
    throw err;
  }
}
