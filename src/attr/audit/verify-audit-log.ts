/**
 * Verification of an audit log file: every line parses, matches
 * `attr-audit-entry/v1`, carries the next sequence number, links to the
 * previous entry's hash and reproduces its own hash. Stops at the first bad
 * entry and reports it with its 1-based line number. Streams the file, so
 * logs larger than memory verify too.
 */
import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { ChainVerifier, GENESIS_HASH, type ChainBreak } from '../../core/hash-chain.ts';
import { compileChecker } from '../config/schema-check.ts';
import { AuditEntrySchema, auditEntryCanonicalBody } from './audit-entry.ts';
import { AUDIT_VERIFICATION_REPORT_SCHEMA_ID, type AuditVerificationReport } from './audit-verification-report.ts';

const entryChecker = compileChecker(AuditEntrySchema);

function breakReport(brk: ChainBreak, line: number): NonNullable<AuditVerificationReport['first_bad_entry']> {
  const messages: Record<ChainBreak['kind'], string> = {
    sequence_gap: 'sequence number does not follow the previous entry (entry removed, duplicated or reordered)',
    prev_hash_mismatch: 'prev_hash does not equal the previous entry hash (chain broken)',
    entry_hash_mismatch: 'entry_hash does not match the entry content (entry modified)',
  };
  return { line, seq: brk.position, kind: brk.kind, message: messages[brk.kind], expected: String(brk.expected), found: String(brk.found) };
}

/**
 * Verifies the log at `filePath`. With `missingIsEmpty`, a missing file is an
 * empty (valid) log — what the service wants at first start; the CLI treats a
 * missing file as a failure.
 */
export async function verifyAuditLogFile(filePath: string, options: { missingIsEmpty?: boolean } = {}): Promise<AuditVerificationReport> {
  const report: AuditVerificationReport = {
    schema: AUDIT_VERIFICATION_REPORT_SCHEMA_ID,
    audit_log_path: filePath,
    ok: true,
    entries_checked: 0,
    head_seq: null,
    head_hash: null,
    first_bad_entry: null,
  };
  const fail = (bad: NonNullable<AuditVerificationReport['first_bad_entry']>): AuditVerificationReport => {
    report.ok = false;
    report.first_bad_entry = bad;
    return report;
  };
  try {
    await access(filePath);
  } catch (err) {
    if (options.missingIsEmpty && (err as NodeJS.ErrnoException).code === 'ENOENT') return report;
    return fail({ line: 0, seq: null, kind: 'unreadable', message: `cannot read audit log: ${(err as NodeJS.ErrnoException).code ?? 'error'}`, expected: null, found: null });
  }
  const verifier = new ChainVerifier(GENESIS_HASH, 1);
  const lines = createInterface({ input: createReadStream(filePath, 'utf8'), crlfDelay: Infinity });
  let lineNo = 0;
  try {
    for await (const line of lines) {
      lineNo++;
      report.entries_checked++;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        return fail({ line: lineNo, seq: null, kind: 'parse_error', message: 'line is not JSON (truncated or edited entry)', expected: null, found: null });
      }
      if (!entryChecker.check(parsed)) {
        const first = entryChecker.issues(parsed)[0];
        const seq = typeof (parsed as { seq?: unknown })?.seq === 'number' ? ((parsed as { seq: number }).seq) : null;
        return fail({ line: lineNo, seq, kind: 'schema_invalid', message: `entry does not match attr-audit-entry/v1: ${first?.path || '/'} ${first?.message ?? ''}`.trim(), expected: null, found: null });
      }
      const ok = verifier.push({ position: parsed.seq, prevHash: parsed.prev_hash, hash: parsed.entry_hash, canonicalBody: auditEntryCanonicalBody(parsed) });
      if (!ok) {
        const brk = verifier.report().firstBreak;
        if (brk) return fail(breakReport(brk, lineNo));
      }
      report.head_seq = parsed.seq;
      report.head_hash = parsed.entry_hash;
    }
  } finally {
    lines.close();
  }
  return report;
}
