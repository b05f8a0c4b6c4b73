/**
 * Audit log segments (docs/decisions/132-audit-log-rotation.md). The live log
 * is `audit_log_path`; a rotation renames it to `<audit_log_path>.NNNNNN`
 * (1-based, six digits) and starts a fresh live file whose first entry
 * chains to the closed segment's head: sequence numbers and hashes run on
 * across segments, so the segments in order plus the live file are one chain.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';

const SEGMENT_DIGITS = 6;

export function segmentPath(logPath: string, n: number): string {
  return `${logPath}.${String(n).padStart(SEGMENT_DIGITS, '0')}`;
}

/** Closed segments of `logPath`, in order (gaps in the numbering are returned as they are; the chain check finds them). */
export async function closedSegments(logPath: string): Promise<Array<{ n: number; path: string }>> {
  const dir = path.dirname(logPath);
  const base = path.basename(logPath);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const pattern = new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.(\\d{${SEGMENT_DIGITS}})$`);
  return names
    .flatMap((name) => {
      const m = pattern.exec(name);
      return m ? [{ n: Number(m[1]), path: path.join(dir, name) }] : [];
    })
    .sort((a, b) => a.n - b.n);
}
