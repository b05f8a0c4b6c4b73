/**
 * `attr-service-audit-rotate --config <path> [--timeout-ms <n>]`: the
 * documented way to rotate the audit log (docs/attr-service.md, Operations;
 * docs/decisions/132-audit-log-rotation.md).
 *
 * With a running attr-service (its pid is in `<audit_log_path>.lock`), the
 * command sends it SIGHUP and waits until the closed segment
 * `<audit_log_path>.NNNNNN` and the new live file exist: the service rotates
 * between two group commits, so no entry is split or lost. Without a running
 * service it takes the state lock itself and rotates offline. Either way it
 * prints `{"event":"audit_rotated","segment","segment_path","head_seq","head_hash","expect_head"}`
 * — `expect_head` is the checkpoint to pass to `attr-service-audit-verify --expect-head`.
 * Exit 0 rotated, 1 rotation failed or timed out, 2 usage or config error.
 */
import { Command, InvalidArgumentError } from 'commander';
import { access, readFile } from 'node:fs/promises';
import { parseCliArgs } from '../cli-parse.ts';
import { ConfigError, loadServiceConfig } from '../config/service-config.ts';
import { acquireStateLock, lockOwner, StateLockedError } from '../service/state-lock.ts';
import { AuditEntrySchema } from './audit-entry.ts';
import { AuditLog } from './audit-log.ts';
import { closedSegments, segmentPath } from './audit-segments.ts';
import { compileChecker } from '../config/schema-check.ts';

const entryChecker = compileChecker(AuditEntrySchema);

function parseTimeout(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 100 || n > 600_000) throw new InvalidArgumentError('timeout must be an integer 100-600000 (ms)');
  return n;
}

async function exists(p: string): Promise<boolean> {
  return access(p).then(
    () => true,
    () => false,
  );
}

/** The last entry of a closed segment (what the next segment chains to). */
async function lastEntry(file: string): Promise<{ seq: number; entry_hash: string } | undefined> {
  const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
  const last = lines[lines.length - 1];
  if (!last) return undefined;
  try {
    const parsed: unknown = JSON.parse(last);
    return entryChecker.check(parsed) ? { seq: parsed.seq, entry_hash: parsed.entry_hash } : undefined;
  } catch {
    return undefined;
  }
}

function print(segment: number, file: string, headSeq: number, headHash: string): void {
  process.stdout.write(`${JSON.stringify({ event: 'audit_rotated', segment, segment_path: file, head_seq: headSeq, head_hash: headHash, expect_head: `${headSeq}:${headHash}` })}\n`);
}

export async function runAuditRotateCli(argv: string[]): Promise<number> {
  const program = new Command('attr-service-audit-rotate')
    .description('Rotate the attr audit log: close the live file as the next segment and continue the chain in a new one.')
    .requiredOption('--config <path>', 'service config whose audit log to rotate')
    .option('--timeout-ms <n>', 'how long to wait for a running service to rotate', parseTimeout, 30_000);
  const stop = parseCliArgs(program, argv);
  if (stop !== undefined) return stop;
  const opts = program.opts<{ config: string; timeoutMs: number }>();
  let config;
  try {
    config = await loadServiceConfig(opts.config);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`attr-service-audit-rotate: ${err.message}\n`);
    return 2;
  }
  const logPath = config.auditLogPath;
  const next = (await closedSegments(logPath)).length + 1;
  const target = segmentPath(logPath, next);
  const owner = lockOwner(`${logPath}.lock`);

  if (owner === undefined) {
    // No running service: rotate offline under the state lock.
    let lock;
    try {
      lock = acquireStateLock(config);
    } catch (err) {
      if (!(err instanceof StateLockedError)) throw err;
      process.stderr.write(`attr-service-audit-rotate: ${err.message}\n`);
      return 1;
    }
    try {
      const log = await AuditLog.open(logPath, { fsync: 'per_batch' });
      try {
        const r = await log.rotate();
        print(r.segment, r.segmentPath, r.headSeq, r.headHash);
        return 0;
      } catch (err) {
        process.stderr.write(`attr-service-audit-rotate: ${(err as Error).message}\n`);
        return 1;
      } finally {
        await log.close();
      }
    } finally {
      lock.release();
    }
  }

  process.kill(owner, 'SIGHUP');
  const deadline = Date.now() + opts.timeoutMs;
  while (Date.now() < deadline) {
    if ((await exists(target)) && (await exists(logPath))) {
      const last = await lastEntry(target);
      const headSeq = last?.seq ?? 0;
      const headHash = last?.entry_hash ?? '0'.repeat(64);
      print(next, target, headSeq, headHash);
      return 0;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  process.stderr.write(`attr-service-audit-rotate: the service (pid ${owner}) did not rotate within ${opts.timeoutMs} ms; see its log and /readyz\n`);
  return 1;
}
