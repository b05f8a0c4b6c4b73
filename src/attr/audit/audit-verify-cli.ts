/**
 * `attr-service-audit-verify --audit-log <path> | --config <path> [--expect-head <seq>:<hash>]`:
 * verifies the log's closed segments (`<path>.NNNNNN`) and live file as one
 * chain and prints the report (attr-audit-verification-report/v1) as JSON on
 * stdout. With `--expect-head` (from /v1/metrics `audit_head`, the runtime
 * conformance receipt or `attr-service-audit-rotate`), the log must contain
 * that entry: a log cut short fails. Exit 0 when the chain verifies, 1 when
 * it does not, 2 on usage or config errors.
 */
import { Command } from 'commander';
import { ConfigError, loadServiceConfig } from '../config/service-config.ts';
import { parseExpectedHead, verifyAuditLogFile, type ExpectedHead } from './verify-audit-log.ts';
import { parseCliArgs } from '../cli-parse.ts';

export async function runAuditVerifyCli(argv: string[]): Promise<number> {
  const program = new Command('attr-service-audit-verify')
    .description('Verify the hash chain of an attr audit log (JSONL).')
    .option('--audit-log <path>', 'audit log file to verify')
    .option('--config <path>', 'service config whose audit_log_path to verify')
    .option('--expect-head <seq:hash>', 'checkpoint the log must contain: sequence number and entry hash of an entry seen earlier');
  const stop = parseCliArgs(program, argv);
  if (stop !== undefined) return stop;
  const opts = program.opts<{ auditLog?: string; config?: string; expectHead?: string }>();
  if ((opts.auditLog === undefined) === (opts.config === undefined)) {
    process.stderr.write('attr-service-audit-verify: give exactly one of --audit-log <path> or --config <path>\n');
    return 2;
  }
  let expectHead: ExpectedHead | undefined;
  if (opts.expectHead !== undefined) {
    expectHead = parseExpectedHead(opts.expectHead);
    if (expectHead === undefined) {
      process.stderr.write('attr-service-audit-verify: --expect-head must be <seq>:<64 hex digits>, e.g. 120:3f…\n');
      return 2;
    }
  }
  let logPath = opts.auditLog;
  if (opts.config !== undefined) {
    try {
      logPath = (await loadServiceConfig(opts.config)).auditLogPath;
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      process.stderr.write(`attr-service-audit-verify: ${err.message}\n`);
      return 2;
    }
  }
  const report = await verifyAuditLogFile(logPath!, expectHead ? { expectHead } : {});
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  return report.ok ? 0 : 1;
}
