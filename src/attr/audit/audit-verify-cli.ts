/**
 * `attr-service-audit-verify --audit-log <path> | --config <path>`: prints the
 * verification report (attr-audit-verification-report/v1) as JSON on stdout.
 * Exit 0 when the chain verifies, 1 when it does not, 2 on usage or config errors.
 */
import { Command } from 'commander';
import { ConfigError, loadServiceConfig } from '../config/service-config.ts';
import { verifyAuditLogFile } from './verify-audit-log.ts';
import { parseCliArgs } from '../cli-parse.ts';

export async function runAuditVerifyCli(argv: string[]): Promise<number> {
  const program = new Command('attr-service-audit-verify')
    .description('Verify the hash chain of an attr audit log (JSONL).')
    .option('--audit-log <path>', 'audit log file to verify')
    .option('--config <path>', 'service config whose audit_log_path to verify');
  const stop = parseCliArgs(program, argv);
  if (stop !== undefined) return stop;
  const opts = program.opts<{ auditLog?: string; config?: string }>();
  if ((opts.auditLog === undefined) === (opts.config === undefined)) {
    process.stderr.write('attr-service-audit-verify: give exactly one of --audit-log <path> or --config <path>\n');
    return 2;
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
  const report = await verifyAuditLogFile(logPath!);
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  return report.ok ? 0 : 1;
}
