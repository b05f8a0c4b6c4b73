/**
 * `attr-service-response-verify --response <file> [--display-text <file>] [--trust-store <file>]`:
 * prints the response verification report (schema
 * attr-service-response-verification/v1). Exit 0 only when the response is
 * production-display ready (with `--trust-store`, that includes the footer's
 * operator signature); 1 when it is not; 2 on usage errors.
 */
import { Command } from 'commander';
import { verifyAttributionResponse } from '../verify-response.ts';
import { readJsonFile, readTextFile, readTrustStoreFile, runVerifierCommand } from './read-input.ts';

const program = new Command('attr-service-response-verify')
  .description('Verify an attr attribution response and its source grounding')
  .requiredOption('--response <file>', 'attribution response JSON')
  .option('--display-text <file>', 'text a client copied or exported; must equal display.rendered_text')
  .option('--trust-store <file>', "the deployment trust store: the footer's Ed25519 signature must verify under one of its keys")
  .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2))
  .parse();

const opts = program.opts<{ response: string; displayText?: string; trustStore?: string }>();
runVerifierCommand(() => {
  const response = readJsonFile(opts.response, 'response');
  const displayText = opts.displayText === undefined ? undefined : readTextFile(opts.displayText, 'display text');
  const trustStore = opts.trustStore === undefined ? undefined : readTrustStoreFile(opts.trustStore);
  const report = verifyAttributionResponse(response, { ...(displayText !== undefined ? { displayText } : {}), ...(trustStore !== undefined ? { trustStore } : {}) });
  return { passed: report.production_display_ready, report };
});
