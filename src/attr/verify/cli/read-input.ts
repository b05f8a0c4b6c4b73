/**
 * File reading for the verifier CLIs: JSON documents and display texts.
 * Failures become a usage error (exit 2) with a message naming the file.
 */
import { readFileSync } from 'node:fs';
import type { TrustStore } from '../../trust-store/trust-store-schema.ts';
import { validateTrustStoreDocument } from '../../trust-store/validate-trust-store.ts';

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

/** A trust store file for signature checks: it must validate, or nothing can be checked against it (exit 2). */
export function readTrustStoreFile(path: string): TrustStore {
  const document = readJsonFile(path, 'trust store');
  const report = validateTrustStoreDocument(document, path);
  if (!report.valid) {
    const first = report.schema_issues[0] ?? report.key_issues[0];
    throw new CliUsageError(`trust store file ${path} does not validate: ${first ? `${first.path || '/'} ${first.message}` : 'invalid'} (run attr-trust-store-validate --file ${path})`);
  }
  return document as TrustStore;
}
