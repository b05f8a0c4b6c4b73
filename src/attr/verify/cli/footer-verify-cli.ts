/**
 * `attr-source-footer-verify --footer <file> [--display-text <file>]`:
 * prints the footer verification report (schema
 * attr-source-footer-verification/v1). The file may hold the footer itself
 * or a whole response (its `source_footer` is taken). Exit 0 only when the
 * footer is verified and ready for public reliance; 1 otherwise; 2 on usage
 * errors.
 */
import { Command } from 'commander';
import { verifySourceFooter } from '../verify-footer.ts';
import { readJsonFile, readTextFile, runVerifierCommand } from './read-input.ts';

const program = new Command('attr-source-footer-verify')
  .description('Verify an attr source footer without the full response')
  .requiredOption('--footer <file>', 'source footer JSON (or a response holding source_footer)')
  .option('--display-text <file>', 'copied text that must still hold the exact footer')
  .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2))
  .parse();

const opts = program.opts<{ footer: string; displayText?: string }>();
runVerifierCommand(() => {
  const doc = readJsonFile(opts.footer, 'footer') as Record<string, unknown> | null;
  const footer = doc !== null && typeof doc === 'object' && 'source_footer' in doc ? doc.source_footer : doc;
  const displayText = opts.displayText === undefined ? undefined : readTextFile(opts.displayText, 'display text');
  const report = verifySourceFooter(footer, displayText === undefined ? {} : { displayText });
  return { passed: report.status === 'passed', report };
});
