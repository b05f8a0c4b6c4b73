/**
 * `attr-trust-store-validate --file <path>`: prints the validation report
 * (attr-trust-store-validation-report/v1) as JSON. Exit 0 valid, 1 invalid, 2 usage.
 */
import { Command } from 'commander';
import { validateTrustStoreFile } from './validate-trust-store.ts';
import { parseCliArgs } from '../cli-parse.ts';

export async function runTrustStoreValidateCli(argv: string[]): Promise<number> {
  const program = new Command('attr-trust-store-validate')
    .description('Validate an attr-deployment-trust-store/v1 document.')
    .requiredOption('--file <path>', 'trust store JSON file');
  const stop = parseCliArgs(program, argv);
  if (stop !== undefined) return stop;
  const report = await validateTrustStoreFile(program.opts<{ file: string }>().file);
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  return report.valid ? 0 : 1;
}
