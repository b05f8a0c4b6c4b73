/**
 * Verification of an audit log: its closed segments (`<path>.NNNNNN`, see
 * audit-segments.ts) in order, then the live file. Every line parses,
 * matches `attr-audit-entry/v1`, carries the next sequence number, links to
 * the previous entry's hash (across segment boundaries too) and reproduces
 * its own hash. Stops at the first bad entry and reports it with its file
 * and 1-based line number. Streams the files, so logs larger than memory
 * verify too.
 *
 * An expected head (`{seq, hash}`, from /v1/metrics, the runtime receipt or
 * a rotation's output) is a checkpoint the log must still contain: a log
 * that ends before it has lost entries off its end, which the chain alone
 * cannot show (issue 18, item 8).
 */
import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { ChainVerifier, GENESIS_HASH, type ChainBreak } from '../../core/hash-chain.ts';
import { compileChecker } from '../config/schema-check.ts';
import { AuditEntrySchema, auditEntryCanonicalBody } from './audit-entry.ts';
import { closedSegments } from './audit-segments.ts';
import { AUDIT_VERIFICATION_REPORT_SCHEMA_ID, type AuditVerificationReport } from './audit-verification-report.ts';

const entryChecker = compileChecker(AuditEntrySchema);

type BadEntry = NonNullable<AuditVerificationReport['first_bad_entry']>;
type SegmentReport = AuditVerificationReport['segments'][number];

export interface ExpectedHead {
  seq: number;
  hash: string;
}

/** Parses `<seq>:<hash>`; undefined when malformed. */
export function parseExpectedHead(text: string): ExpectedHead | undefined {
  const m = /^(0|[1-9][0-9]{0,15}):([0-9a-f]{64})$/.exec(text.trim());
  return m ? { seq: Number(m[1]), hash: m[2]! } : undefined;
}

function breakReport(brk: ChainBreak, line: number): BadEntry {
  const messages: Record<ChainBreak['kind'], string> = {
    sequence_gap: 'sequence number does not follow the previous entry (entry removed, duplicated or reordered)',
    prev_hash_mismatch: 'prev_hash does not equal the previous entry hash (chain broken)',
    entry_hash_mismatch: 'entry_hash does not match the entry content (entry modified)',
  };
  return { line, seq: brk.position, kind: brk.kind, message: messages[brk.kind], expected: String(brk.expected), found: String(brk.found) };
}

interface ChainState {
  seq: number;
  hash: string;
}

/** Verifies one file continuing from `start`; returns the new state or the first bad entry. */
async function verifySegment(
  file: string,
  start: ChainState,
  onEntry: (seq: number, hash: string) => void,
): Promise<{ segment: SegmentReport; checked: number; end: ChainState; bad?: BadEntry }> {
  const segment: SegmentReport = { path: file, entries: 0, first_seq: null, head_seq: null, head_hash: null };
  const verifier = new ChainVerifier(start.hash, start.seq + 1);
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let lineNo = 0;
  let end = start;
  const done = (bad?: BadEntry) => ({ segment, checked: lineNo, end, ...(bad ? { bad } : {}) });
  try {
    for await (const line of lines) {
      lineNo++;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        return done({ line: lineNo, seq: null, kind: 'parse_error', message: `line is not JSON (truncated or edited entry) in ${file}`, expected: null, found: null });
      }
      if (!entryChecker.check(parsed)) {
        const first = entryChecker.issues(parsed)[0];
        const seq = typeof (parsed as { seq?: unknown })?.seq === 'number' ? (parsed as { seq: number }).seq : null;
        return done({ line: lineNo, seq, kind: 'schema_invalid', message: `entry does not match attr-audit-entry/v1: ${first?.path || '/'} ${first?.message ?? ''}`.trim(), expected: null, found: null });
      }
      if (!verifier.push({ position: parsed.seq, prevHash: parsed.prev_hash, hash: parsed.entry_hash, canonicalBody: auditEntryCanonicalBody(parsed) })) {
        const brk = verifier.report().firstBreak;
        if (brk) return done({ ...breakReport(brk, lineNo), message: `${breakReport(brk, lineNo).message} in ${file}` });
      }
      segment.entries++;
      segment.first_seq ??= parsed.seq;
      segment.head_seq = parsed.seq;
      segment.head_hash = parsed.entry_hash;
      end = { seq: parsed.seq, hash: parsed.entry_hash };
      onEntry(parsed.seq, parsed.entry_hash);
    }
  } catch (err) {
    return done({ line: lineNo, seq: null, kind: 'unreadable', message: `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`, expected: null, found: null });
  } finally {
    lines.close();
  }
  return done();
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * Verifies the log at `filePath` with its closed segments. With
 * `missingIsEmpty`, a log with neither live file nor segments is an empty
 * (valid) log — what the service wants at first start; the CLI treats it as
 * a failure. With `expectHead`, the log must contain that entry.
 */
export async function verifyAuditLogFile(filePath: string, options: { missingIsEmpty?: boolean; expectHead?: ExpectedHead } = {}): Promise<AuditVerificationReport> {
  const report: AuditVerificationReport = {
    schema: AUDIT_VERIFICATION_REPORT_SCHEMA_ID,
    audit_log_path: filePath,
    ok: true,
    entries_checked: 0,
    head_seq: null,
    head_hash: null,
    first_bad_entry: null,
    segments: [],
    expected_head: options.expectHead ? { ...options.expectHead, found: options.expectHead.seq === 0 && options.expectHead.hash === GENESIS_HASH } : null,
  };
  const fail = (bad: BadEntry): AuditVerificationReport => {
    report.ok = false;
    report.first_bad_entry = bad;
    return report;
  };
  const segments = await closedSegments(filePath);
  for (let i = 0; i < segments.length; i++) {
    if (segments[i]!.n !== i + 1) return fail({ line: 0, seq: null, kind: 'segment_missing', message: `segment ${i + 1} of ${filePath} is missing (found ${segments[i]!.path})`, expected: String(i + 1), found: String(segments[i]!.n) });
  }
  const liveExists = await exists(filePath);
  if (!liveExists && segments.length === 0) {
    if (!options.missingIsEmpty) return fail({ line: 0, seq: null, kind: 'unreadable', message: 'cannot read audit log: ENOENT', expected: null, found: null });
  }
  const files = [...segments.map((s) => s.path), ...(liveExists ? [filePath] : [])];
  let state: ChainState = { seq: 0, hash: GENESIS_HASH };
  let mismatch: string | undefined;
  for (const file of files) {
    const result = await verifySegment(file, state, (seq, hash) => {
      if (report.expected_head && seq === report.expected_head.seq) {
        if (hash === report.expected_head.hash) report.expected_head.found = true;
        else mismatch = hash;
      }
    });
    report.segments.push(result.segment);
    report.entries_checked += result.checked;
    state = result.end;
    if (state.seq > 0) {
      report.head_seq = state.seq;
      report.head_hash = state.hash;
    }
    if (result.bad) return fail(result.bad);
  }
  const expect = report.expected_head;
  if (expect && !expect.found) {
    if (mismatch !== undefined) {
      return fail({ line: 0, seq: expect.seq, kind: 'expected_head_mismatch', message: `entry ${expect.seq} does not have the expected hash (the log was rewritten)`, expected: expect.hash, found: mismatch });
    }
    return fail({
      line: 0, seq: expect.seq, kind: 'expected_head_missing',
      message: `the log ends at entry ${state.seq} but the expected head is entry ${expect.seq}: entries were cut off the end`,
      expected: String(expect.seq), found: String(state.seq),
    });
  }
  return report;
}
