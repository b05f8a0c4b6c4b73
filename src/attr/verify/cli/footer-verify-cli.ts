/**
 * `attr-source-footer-verify --footer <file> [--display-text <file>] [--trust-store <file>]`:
 * prints the footer verification report (schema
 * attr-source-footer-verification/v1). The file may hold the footer itself
 * or a whole response (its `source_footer` is taken). Exit 0 when the footer
 * verifies (`status: passed`; with `--trust-store` that includes the
 * operator's signature); 1 otherwise; 2 on usage errors. Only a run with
 * `--trust-store` can report `public_reliance_ready: true`.
 */
import { Command } from 'commander';
import { verifySourceFooter } from '../verify-footer.ts';
import { readJsonFile, readTextFile, readTrustStoreFile, runVerifierCommand } from './read-input.ts';

const program = new Command('attr-source-footer-verify')
  .description('Verify an attr source footer without the full response')
  .requiredOption('--footer <file>', 'source footer JSON (or a response holding source_footer)')
  .option('--display-text <file>', 'copied text that must still hold the exact footer')
  .option('--trust-store <file>', "the deployment trust store: the footer's Ed25519 signature must verify under one of its keys")
  .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2))
  .parse();

const opts = program.opts<{ footer: string; displayText?: string; trustStore?: string }>();
runVerifierCommand(() => {
  const doc = readJsonFile(opts.footer, 'footer') as Record<string, unknown> | null;
  const footer = doc !== null && typeof doc === 'object' && 'source_footer' in doc ? doc.source_footer : doc;
  const displayText = opts.displayText === undefined ? undefined : readTextFile(opts.displayText, 'display text');
  const trustStore = opts.trustStore === undefined ? undefined : readTrustStoreFile(opts.trustStore);
  const report = verifySourceFooter(footer, { ...(displayText !== undefined ? { displayText } : {}), ...(trustStore !== undefined ? { trustStore } : {}) });
  return { passed: report.status === 'passed', report };
});
